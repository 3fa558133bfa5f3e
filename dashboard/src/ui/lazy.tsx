/**
 * A screen loaded when it is first shown: each screen is its own chunk, so a first visit
 * downloads the shell and the one screen it opens (the bench weighs exactly that). preact/compat's
 * `lazy` would need Suspense and compat; this is the few lines the dashboard needs.
 */
import type { FunctionComponent } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ApiProblem } from "../api/client";
import { Failure, Loading } from "./states";

/** `what` names it while it loads ("Loading the screen…"), for a part of a screen loaded the same way. */
export function lazyScreen<P extends object>(load: () => Promise<FunctionComponent<P>>, what = "the screen"): FunctionComponent<P> {
  let loaded: FunctionComponent<P> | undefined;
  let loading: Promise<FunctionComponent<P>> | undefined;
  return function LazyScreen(props: P) {
    const [, setReady] = useState(loaded !== undefined);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (loaded) return;
      loading ??= load().then((component) => (loaded = component));
      loading.then(
        () => setReady(true),
        () => {
          loading = undefined;
          setFailed(true);
        },
      );
    }, []);
    if (loaded) {
      const Screen = loaded;
      return <Screen {...props} />;
    }
    if (failed) return <Failure problem={new ApiProblem(0, `${what === "the screen" ? "This screen" : what.charAt(0).toUpperCase() + what.slice(1)} could not be loaded. Is \`wren start\` still running?`)} retry={() => location.reload()} />;
    return <Loading what={what} />;
  };
}
