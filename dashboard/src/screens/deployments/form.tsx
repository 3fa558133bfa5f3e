/**
 * Recording a deployment marker by hand (POST /api/v1/deployments), for a release no CI step
 * or webhook reported. The time is entered in the browser's zone and sent as an instant.
 */
import { useState } from "preact/hooks";
import { api, unwrap, type Schemas } from "../../api/client";
import { Field, FormProblem, useApiForm, valueOf } from "../../ui/field";

type Deployment = Schemas["Deployment"];

const FIELDS = ["version", "environment", "external_id", "description", "url", "deployed_at"] as const;
type MarkerField = (typeof FIELDS)[number];

/** "2026-11-21T09:30" in the browser's zone → an ISO instant; empty → omitted (the API takes now). */
function instant(local: string): string | undefined {
  if (!local) return undefined;
  const at = new Date(local);
  return Number.isNaN(at.getTime()) ? local : at.toISOString();
}

export function RecordMarkerForm({ site, onRecorded }: { site: string; onRecorded(marker: Deployment): void }) {
  const [values, setValues] = useState<Record<MarkerField, string>>({
    version: "",
    environment: "production",
    external_id: "",
    description: "",
    url: "",
    deployed_at: "",
  });
  const [outcome, setOutcome] = useState<string | null>(null);
  const set = (field: MarkerField) => (event: Event) => {
    const value = valueOf(event);
    setValues((v) => ({ ...v, [field]: value }));
  };
  const form = useApiForm({
    id: "marker",
    fields: FIELDS,
    async send() {
      setOutcome(null);
      const optional = (value: string) => (value.trim() ? value.trim() : undefined);
      const body = {
        site,
        version: values.version.trim(),
        environment: optional(values.environment),
        external_id: optional(values.external_id),
        description: optional(values.description),
        url: optional(values.url),
        deployed_at: instant(values.deployed_at),
      };
      const call = api.POST("/api/v1/deployments", { body });
      const marker = await unwrap(call);
      return { marker, created: (await call).response.status === 201 };
    },
    done({ marker, created }) {
      setOutcome(created ? `Recorded marker ${marker.version}.` : `Marker ${marker.version} was already recorded (same external id): nothing changed.`);
      setValues((v) => ({ ...v, version: "", external_id: "", description: "", url: "", deployed_at: "" }));
      onRecorded(marker);
    },
  });
  const text = (field: MarkerField, label: string, hint: string, extra: Record<string, unknown> = {}) => (
    <Field form={form} field={field} label={label} hint={hint}>
      {(props) => <input {...props} value={values[field]} onInput={set(field)} autoComplete="off" {...extra} />}
    </Field>
  );
  return (
    <form class="stack" onSubmit={form.onSubmit}>
      {text("version", "Version", "A commit SHA, tag or build number, without spaces.", { required: true, maxLength: 128, spellcheck: false })}
      {text("environment", "Environment", "Default production.", { maxLength: 64 })}
      {text("deployed_at", "Deployed at (optional)", "In your browser's time zone; empty means now. At most 24 hours ago.", { type: "datetime-local" })}
      {text("description", "Description (optional)", "What changed, in a few words.", { maxLength: 1000 })}
      {text("url", "URL (optional)", "A link to the build or release, http:// or https://.", { type: "url", inputMode: "url" })}
      {text("external_id", "External id (optional)", "Makes a re-post safe: the same id again is the same marker. Default version:environment.", {
        maxLength: 200,
      })}
      <FormProblem form={form} />
      <button type="submit" class="primary" disabled={form.busy}>
        {form.busy ? "Recording…" : "Record marker"}
      </button>
      <p role="status" class="form-outcome">
        {outcome && <span class="success">{outcome}</span>}
      </p>
    </form>
  );
}
