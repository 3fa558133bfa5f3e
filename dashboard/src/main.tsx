/** Boots the dashboard: resumes the tab's key if it has one, then renders the app — or, on a shared link, the shared dashboard. */
import { render } from "preact";
import { App } from "./app";
import { followLink } from "./state/location";
import { resume } from "./state/session";
import { shareToken } from "./state/share";
import { lazyScreen } from "./ui/lazy";

/** The shared dashboard's shell: loaded only on a shared link. */
const ShareApp = lazyScreen(() => import("./share/app").then((m) => m.ShareApp), "the shared dashboard");

const root = document.getElementById("app")!;
document.addEventListener("click", followLink);
void (shareToken ? Promise.resolve(false) : resume()).finally(() => {
  root.replaceChildren();
  render(shareToken ? <ShareApp /> : <App />, root);
});
