/**
 * Wizard step 1: name, domain and time zone → POST /api/v1/sites. The zone is guessed from the
 * browser, since most people register a site in the zone they work in; it is fixed once the
 * site's first hour is published, so the hint says so before it matters.
 */
import { useMemo, useState } from "preact/hooks";
import { api, unwrap, type Site } from "../../api/client";
import { Field, FormProblem, useApiForm, valueOf } from "../../ui/field";

function guessTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/** Every zone this browser knows, with UTC and the guess always among them. */
function timeZones(guess: string): string[] {
  let zones: string[] = [];
  try {
    zones = Intl.supportedValuesOf("timeZone");
  } catch {
    // An older browser: the guess and UTC still make a usable list.
  }
  return [...new Set([guess, "UTC", ...zones])].sort((a, b) => (a === "UTC" ? -1 : b === "UTC" ? 1 : a.localeCompare(b)));
}

/** `created` is false when the domain was already this key's site (the API answers 200 with it). */
export function SiteForm({ onCreated }: { onCreated(site: Site, created: boolean): void }) {
  const guess = useMemo(guessTimeZone, []);
  const zones = useMemo(() => timeZones(guess), [guess]);
  const [name, setName] = useState("");
  const [domain, setDomain] = useState("");
  const [timezone, setTimezone] = useState(guess);
  const form = useApiForm({
    id: "site",
    fields: ["name", "domain", "timezone"],
    async send() {
      const call = api.POST("/api/v1/sites", { body: { name: name.trim(), domain: domain.trim(), timezone } });
      const site = await unwrap(call);
      return { site, created: (await call).response.status === 201 };
    },
    done: ({ site, created }) => onCreated(site, created),
  });
  return (
    <form class="stack" onSubmit={form.onSubmit}>
      <Field form={form} field="name" label="Name" hint="How the site is listed here, e.g. Shop.">
        {(props) => <input {...props} required maxLength={100} autoComplete="off" value={name} onInput={(e) => setName(valueOf(e))} />}
      </Field>
      <Field
        form={form}
        field="domain"
        label="Domain"
        hint="The hostname only, e.g. shop.example.com: no https://, path or port. The snippet works on this hostname only."
      >
        {(props) => (
          <input
            {...props}
            required
            inputMode="url"
            autoComplete="off"
            autoCapitalize="off"
            spellcheck={false}
            placeholder="shop.example.com"
            value={domain}
            onInput={(e) => setDomain(valueOf(e))}
          />
        )}
      </Field>
      <Field
        form={form}
        field="timezone"
        label="Time zone"
        hint="Report days and hours are cut in this zone. It cannot change once the site's first hour with data is published."
      >
        {(props) => (
          <select {...props} value={timezone} onChange={(e) => setTimezone(valueOf(e))}>
            {zones.map((zone) => (
              <option key={zone} value={zone}>
                {zone}
              </option>
            ))}
          </select>
        )}
      </Field>
      <FormProblem form={form} />
      <button type="submit" class="primary" disabled={form.busy}>
        {form.busy ? "Creating the site…" : "Create site"}
      </button>
    </form>
  );
}
