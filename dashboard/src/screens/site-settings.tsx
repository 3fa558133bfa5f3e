/**
 * A site's settings: the custom property names it keeps (GET/PUT/DELETE
 * /api/v1/sites/{id}/props), each removable after a confirmation, and the props the collector
 * dropped over the last 7 days per reason, each reason said in one line, so that a name missing
 * from the list shows up as `not_allowed` drops. Keys without write:goals see the list read-only.
 * Below: the site's digests (site-digests.tsx) and its imports (site-imports.tsx).
 */
import { useState } from "preact/hooks";
import { api, ApiProblem, unwrap } from "../api/client";
import { useLoad } from "../state/load";
import { hasScope } from "../state/session";
import { ConfirmButton } from "../ui/confirm";
import { Field, FormProblem, useApiForm, valueOf } from "../ui/field";
import { Failure, Loaded } from "../ui/states";
import { ShareLinks } from "./share-links";
import { SiteImports } from "./site-imports";
import { SiteDigests } from "./site-digests";

const readProps = (site: string) => unwrap(api.GET("/api/v1/sites/{id}/props", { params: { path: { id: site } } }));
type SiteProps = Awaited<ReturnType<typeof readProps>>;
type DropReason = keyof SiteProps["drops"];

/** What each drop reason means (docs/collector.md, Custom properties). */
export const DROP_REASONS: Readonly<Record<DropReason, string>> = {
  not_allowed: "The name is not in the list above: allow it to keep its values.",
  invalid_name: "The name has characters other than letters, digits and _ . : - or is longer than 64.",
  invalid_value: "The value was empty or not text.",
  too_many: "The event carried more than 30 properties; the rest were dropped.",
};

/** The names the collector always keeps (the tracker's outbound and download options). */
const RESERVED = "url and file (outbound links and downloads) are always kept.";

export function SiteSettingsScreen({ site }: { site: string }) {
  const load = useLoad(() => readProps(site), [site]);
  return (
    <>
      <section aria-labelledby="props-title">
        <h2 id="props-title">Custom properties</h2>
        <p class="hint">
          Pages send properties with <code>{'wren.track("signup", {props: {plan: "pro"}})'}</code> or the snippet's{" "}
          <code>data-props</code>. Only the names listed here are kept; {RESERVED}
        </p>
        <Loaded load={load} what="the custom properties">
          {(data) => <PropsBody site={site} initial={data} />}
        </Loaded>
      </section>
      <ShareLinks site={site} />
      <SiteDigests site={site} />
      <SiteImports site={site} />
    </>
  );
}

function PropsBody({ site, initial }: { site: string; initial: SiteProps }) {
  const [names, setNames] = useState(initial.names);
  const canWrite = hasScope("write:goals");
  return (
    <>
      {names.length === 0 ? (
        <p class="props-none">No property names yet: every property the pages send is dropped.</p>
      ) : (
        <ul class="props-list" aria-label="Property names kept">
          {names.map((name) => (
            <li key={name}>
              <code id={`prop-${name}`}>{name}</code>
              {canWrite && <RemoveProp site={site} name={name} onRemoved={() => setNames(names.filter((n) => n !== name))} />}
            </li>
          ))}
        </ul>
      )}
      {canWrite ? (
        <AddProp site={site} onAdded={(name) => names.includes(name) || setNames([...names, name].sort())} />
      ) : (
        <p class="hint">A key with the write:goals scope can add and remove names.</p>
      )}
      <div class="table-wrap">
        <table class="report-table props-drops">
          <caption>Properties dropped since {initial.drops_since} (the last 7 days)</caption>
          <thead>
            <tr>
              <th scope="col">Reason</th>
              <th scope="col" class="num">
                Dropped
              </th>
              <th scope="col">What it means</th>
            </tr>
          </thead>
          <tbody>
            {(Object.keys(DROP_REASONS) as DropReason[]).map((reason) => (
              <tr key={reason}>
                <th scope="row">
                  <code>{reason}</code>
                </th>
                <td class="num">{initial.drops[reason]}</td>
                <td>{DROP_REASONS[reason]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function AddProp({ site, onAdded }: { site: string; onAdded: (name: string) => void }) {
  const [name, setName] = useState("");
  const form = useApiForm({
    id: "prop-add",
    fields: ["name"],
    send: () =>
      unwrap(api.PUT("/api/v1/sites/{id}/props/{name}", { params: { path: { id: site, name: name.trim() } } })).then(
        (d) => d.name,
      ),
    done: (added) => {
      setName("");
      onAdded(added);
    },
  });
  return (
    <form class="stack props-add" aria-label="Allow a property name" onSubmit={form.onSubmit}>
      <Field form={form} field="name" label="Property name" hint="Letters, digits and _ . : - (up to 64); at most 50 names.">
        {(props) => <input {...props} required maxLength={64} value={name} onInput={(e) => setName(valueOf(e))} />}
      </Field>
      <FormProblem form={form} />
      <div class="row">
        <button type="submit" class="primary" disabled={form.busy}>
          Allow
        </button>
      </div>
    </form>
  );
}

/** Remove, asked in place: stored values stay, new ones are dropped. */
function RemoveProp({ site, name, onRemoved }: { site: string; name: string; onRemoved: () => void }) {
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const remove = () => {
    setProblem(null);
    return unwrap(api.DELETE("/api/v1/sites/{id}/props/{name}", { params: { path: { id: site, name } } })).then(
      onRemoved,
      (error: unknown) => setProblem(ApiProblem.from(error)),
    );
  };
  return (
    <>
      <ConfirmButton
        label="Remove"
        ariaLabel={`Remove ${name}`}
        question={`Stop keeping “${name}”? Values already stored stay in the reports; new ones are dropped.`}
        confirmLabel="Yes, remove"
        busyLabel="Removing…"
        onConfirm={remove}
      />
      {problem && <Failure problem={problem} />}
    </>
  );
}
