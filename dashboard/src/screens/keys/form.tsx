/**
 * The form that issues an API key (POST /api/v1/keys): a name, its scopes, the sites it may
 * act on, an optional rate limit. Least privilege by default: no scope ticked, and chosen
 * sites rather than every site.
 */
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, unwrap, type Scope, type Schemas } from "../../api/client";
import { sites } from "../../state/sites";
import {
  Field,
  FieldProblem,
  FormProblem,
  SubmitOrCancel,
  controlProps,
  useApiForm,
  valueOf,
  type ApiForm,
  type FieldIssue,
  WholeNumberField,
} from "../../ui/field";
import { SCOPES, SCOPE_HELP, VIEWER_SCOPES } from "./scopes";

export type NewApiKey = Schemas["NewApiKey"];
type SiteChoice = "chosen" | "every" | "own";

interface Draft {
  name: string;
  scopes: Scope[];
  siteChoice: SiteChoice;
  siteIds: string[];
  requests: string;
  perSeconds: string;
}

/** What the draft lacks before it is worth sending; the API checks the rest. */
function draftIssue(d: Draft): FieldIssue | null {
  if (d.scopes.length === 0) return { field: "scopes", text: "Choose at least one scope." };
  if (!d.scopes.includes("admin") && d.siteChoice === "chosen" && d.siteIds.length === 0)
    return { field: "sites", text: "Choose at least one site, or another option." };
  if ((d.requests === "") !== (d.perSeconds === ""))
    return {
      field: d.requests === "" ? "rate_limit.requests" : "rate_limit.per_seconds",
      text: "Give both numbers, or neither for the server's default.",
    };
  return null;
}

function keyBody(d: Draft) {
  const admin = d.scopes.includes("admin");
  return {
    name: d.name.trim(),
    scopes: d.scopes,
    // Admin keys reach every site whatever the list says; "own" leaves it out (the sites the key creates).
    ...(admin || d.siteChoice === "own" ? {} : { sites: d.siteChoice === "every" ? ["*"] : d.siteIds }),
    ...(d.requests !== "" ? { rate_limit: { requests: Number(d.requests), per_seconds: Number(d.perSeconds) } } : {}),
  };
}

function ScopesFieldset({ form, value, onChange }: { form: ApiForm; value: Scope[]; onChange: (scopes: Scope[]) => void }) {
  const group = controlProps(form, "scopes", false);
  return (
    <fieldset class="key-scopes" aria-describedby={group["aria-describedby"]}>
      <legend>Scopes</legend>
      <div class="key-presets">
        <button type="button" aria-describedby="key-preset-viewer" onClick={() => onChange([...VIEWER_SCOPES])}>
          Viewer
        </button>
        <span class="muted" id="key-preset-viewer">
          Ticks {VIEWER_SCOPES.join(", ")}: every screen of its sites, read-only.
        </span>
      </div>
      {SCOPES.map((scope, i) => (
        <label key={scope} class="ak-check">
          <input
            type="checkbox"
            // The first box carries the group's id, so a refusal of "scopes" focuses it.
            id={i === 0 ? group.id : undefined}
            value={scope}
            checked={value.includes(scope)}
            onChange={(e) =>
              onChange((e.target as HTMLInputElement).checked ? [...value, scope] : value.filter((s) => s !== scope))
            }
          />
          <span>
            <code>{scope}</code> <span class="muted">{SCOPE_HELP[scope]}</span>
          </span>
        </label>
      ))}
      {value.includes("read:reports") && !value.includes("read:sites") && !value.includes("admin") && (
        <p class="hint key-scope-note" role="note">
          With read:reports but not read:sites the key knows its sites by id only and cannot open the Goals screen (nor name the
          goals alert rules watch): add read:sites, or use the Viewer preset.
        </p>
      )}
      <FieldProblem form={form} field="scopes" />
    </fieldset>
  );
}

function SitesFieldset({ form, draft, set }: { form: ApiForm; draft: Draft; set: (patch: Partial<Draft>) => void }) {
  const group = controlProps(form, "sites", false);
  if (draft.scopes.includes("admin")) {
    return (
      <fieldset class="key-sites">
        <legend>Sites</legend>
        <p class="hint">An admin key reaches every site.</p>
      </fieldset>
    );
  }
  const list = sites.value ?? [];
  const choice = (value: SiteChoice, label: string, hint: string) => (
    <label class="ak-check">
      <input
        type="radio"
        name="key-sites"
        value={value}
        checked={draft.siteChoice === value}
        onChange={() => set({ siteChoice: value })}
      />
      <span>
        {label} <span class="muted">{hint}</span>
      </span>
    </label>
  );
  return (
    <fieldset class="key-sites" aria-describedby={group["aria-describedby"]}>
      <legend>Sites</legend>
      {choice("chosen", "These sites", "(and the sites it creates)")}
      {draft.siteChoice === "chosen" &&
        (list.length === 0 ? (
          <p class="hint">There are no sites yet: choose another option.</p>
        ) : (
          <div class="key-site-list" role="group" aria-label="Sites the key may act on">
            {list.map((site, i) => (
              <label key={site.id} class="ak-check">
                <input
                  type="checkbox"
                  id={i === 0 ? group.id : undefined}
                  value={site.id}
                  checked={draft.siteIds.includes(site.id)}
                  onChange={(e) =>
                    set({
                      siteIds: (e.target as HTMLInputElement).checked
                        ? [...draft.siteIds, site.id]
                        : draft.siteIds.filter((id) => id !== site.id),
                    })
                  }
                />
                <span>
                  {site.name} {site.domain && <span class="muted">{site.domain}</span>}
                </span>
              </label>
            ))}
          </div>
        ))}
      {choice("every", "Every site (*)", "(including sites added later)")}
      {choice("own", "Only the sites it creates", "(e.g. a CI key that registers preview sites)")}
      <FieldProblem form={form} field="sites" />
    </fieldset>
  );
}

export function KeyForm({ onCreated, onCancel }: { onCreated: (key: NewApiKey) => void; onCancel: () => void }) {
  const [draft, setDraft] = useState<Draft>({
    name: "",
    scopes: [],
    siteChoice: "chosen",
    siteIds: [],
    requests: "",
    perSeconds: "",
  });
  const heading = useRef<HTMLHeadingElement>(null);
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const form = useApiForm({
    id: "key-new",
    // An admin key's sites are not asked for (it reaches every site).
    fields: [
      "name",
      "scopes",
      ...(draft.scopes.includes("admin") ? [] : ["sites"]),
      "rate_limit.requests",
      "rate_limit.per_seconds",
    ],
    check: () => draftIssue(draft),
    send: () => unwrap(api.POST("/api/v1/keys", { body: keyBody(draft) })),
    done: onCreated,
  });

  useLayoutEffect(() => heading.current?.focus(), []);

  return (
    <form id="key-form" class="ak-form" aria-labelledby="key-form-title" onSubmit={form.onSubmit}>
      <h2 id="key-form-title" tabIndex={-1} ref={heading}>
        New key
      </h2>
      <FormProblem form={form} lead="The key was not made" />
      <Field form={form} field="name" label="Name" hint="What the key is for, e.g. warehouse or ci-previews.">
        {(props) => (
          <input
            {...props}
            required
            maxLength={100}
            autoComplete="off"
            value={draft.name}
            onInput={(e) => set({ name: valueOf(e) })}
          />
        )}
      </Field>
      <ScopesFieldset form={form} value={draft.scopes} onChange={(scopes) => set({ scopes })} />
      <SitesFieldset form={form} draft={draft} set={set} />
      <fieldset class="key-rate">
        <legend>Rate limit (optional)</legend>
        <p class="hint">Leave both empty for the server's default (WREN_RATE_LIMIT, 600 requests per 60 s unless changed).</p>
        <div class="row">
          <WholeNumberField
            form={form}
            field="rate_limit.requests"
            label="Requests"
            min={1}
            max={1_000_000}
            required={false}
            value={draft.requests}
            onValue={(value) => set({ requests: value })}
          />
          <WholeNumberField
            form={form}
            field="rate_limit.per_seconds"
            label="Per (seconds)"
            min={1}
            max={86_400}
            required={false}
            value={draft.perSeconds}
            onValue={(value) => set({ perSeconds: value })}
          />
        </div>
      </fieldset>
      <SubmitOrCancel form={form} label="Create key" busyLabel="Creating…" onCancel={onCancel} />
    </form>
  );
}
