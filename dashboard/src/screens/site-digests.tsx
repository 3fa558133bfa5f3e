/**
 * A site's scheduled digests, on its Settings screen (GET/POST /api/v1/sites/{id}/digests,
 * DELETE …/{digestId}, POST …/{digestId}/preview): each weekly or monthly digest with its
 * addresses and alert destination, a preview of the latest complete period (rendered as the
 * email's text; nothing is sent) and, for keys with write:alerts, making and deleting them.
 * A digest's figures are the reports' k-filtered figures (docs/api.md, Digests).
 */
import { useState } from "preact/hooks";
import { api, ApiProblem, unwrap } from "../api/client";
import { useLoad } from "../state/load";
import { hasScope } from "../state/session";
import { ConfirmButton } from "../ui/confirm";
import { Field, FormProblem, useApiForm, valueOf } from "../ui/field";
import { Failure, Loaded } from "../ui/states";

const readDigests = (site: string) => unwrap(api.GET("/api/v1/sites/{id}/digests", { params: { path: { id: site } } }));
type Digest = Awaited<ReturnType<typeof readDigests>>["digests"][number];
type Frequency = Digest["frequency"];

/** The site's alert destinations a digest may go to (from its alert rules). */
async function readDestinations(site: string): Promise<{ id: string; url: string; format: string }[]> {
  if (!hasScope("read:reports") && !hasScope("write:alerts")) return [];
  const { alerts } = await unwrap(api.GET("/api/v1/alerts", { params: { query: { site } } }));
  return alerts.flatMap((rule) => rule.destinations.map((d) => ({ id: d.id, url: d.url, format: d.format })));
}

export function SiteDigests({ site }: { site: string }) {
  const load = useLoad(async () => ({ ...(await readDigests(site)), destinations: await readDestinations(site) }), [site]);
  return (
    <section aria-labelledby="digests-title">
      <h2 id="digests-title">Digests</h2>
      <p class="hint">
        A weekly digest (Monday to Sunday, sent on Monday) or a monthly one (sent on the 1st): visitors, pageviews, the top pages
        and sources and each goal's conversions, against the period before — every figure as the reports show it, hidden ones
        without a name. By email (when the server has mail configured) and to an alert destination.
      </p>
      <Loaded load={load} what="the digests">
        {(data) => <DigestsBody site={site} initial={data.digests} destinations={data.destinations} />}
      </Loaded>
    </section>
  );
}

function DigestsBody({
  site,
  initial,
  destinations,
}: {
  site: string;
  initial: Digest[];
  destinations: { id: string; url: string; format: string }[];
}) {
  const [digests, setDigests] = useState(initial);
  const canWrite = hasScope("write:alerts");
  return (
    <>
      {digests.length === 0 ? (
        <p class="digests-none">No digests yet.</p>
      ) : (
        <ul class="digests-list" aria-label="Scheduled digests">
          {digests.map((d) => (
            <DigestItem
              key={d.id}
              site={site}
              digest={d}
              canWrite={canWrite}
              onRemoved={() => setDigests(digests.filter((x) => x.id !== d.id))}
            />
          ))}
        </ul>
      )}
      {canWrite ? (
        <AddDigest site={site} destinations={destinations} onAdded={(d) => setDigests([...digests, d])} />
      ) : (
        <p class="hint">A key with the write:alerts scope can schedule and delete digests.</p>
      )}
    </>
  );
}

function describe(d: Digest): string {
  const to = [...d.email_to, ...(d.destination ? [`${d.destination.format} webhook ${d.destination.url}`] : [])];
  return `${d.frequency === "weekly" ? "Weekly" : "Monthly"} to ${to.join(", ") || "nowhere (its destination was deleted)"}`;
}

function DigestItem({
  site,
  digest,
  canWrite,
  onRemoved,
}: {
  site: string;
  digest: Digest;
  canWrite: boolean;
  onRemoved: () => void;
}) {
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const path = { id: site, digestId: digest.id };
  const showPreview = () => {
    setProblem(null);
    setBusy(true);
    unwrap(api.POST("/api/v1/sites/{id}/digests/{digestId}/preview", { params: { path } })).then(
      (p) => {
        setBusy(false);
        setPreview(p.text);
      },
      (error: unknown) => {
        setBusy(false);
        setProblem(ApiProblem.from(error));
      },
    );
  };
  const remove = () => {
    setProblem(null);
    return unwrap(api.DELETE("/api/v1/sites/{id}/digests/{digestId}", { params: { path } })).then(onRemoved, (error: unknown) =>
      setProblem(ApiProblem.from(error)),
    );
  };
  return (
    <li>
      <span id={`digest-${digest.id}`}>{describe(digest)}</span>
      {digest.last_period_end && <span class="hint"> · covered through {digest.last_period_end}</span>}
      <button type="button" disabled={busy} aria-label={`Preview ${describe(digest)}`} onClick={showPreview}>
        Preview
      </button>
      {canWrite && (
        <ConfirmButton
          label="Delete"
          ariaLabel={`Delete ${describe(digest)}`}
          question="Delete this digest? Nothing more is sent for it."
          confirmLabel="Yes, delete"
          busyLabel="Deleting…"
          onConfirm={remove}
        />
      )}
      {problem && <Failure problem={problem} />}
      {preview !== null && (
        <pre class="digest-preview" aria-label="Digest preview (the email's text)">
          {preview}
        </pre>
      )}
    </li>
  );
}

function AddDigest({
  site,
  destinations,
  onAdded,
}: {
  site: string;
  destinations: { id: string; url: string; format: string }[];
  onAdded: (d: Digest) => void;
}) {
  const [frequency, setFrequency] = useState<Frequency>("weekly");
  const [emails, setEmails] = useState("");
  const [destination, setDestination] = useState("");
  const form = useApiForm({
    id: "digest-add",
    fields: ["frequency", "email_to", "destination_id"],
    send: () => {
      const list = emails
        .split(/[\s,;]+/)
        .map((e) => e.trim())
        .filter(Boolean);
      return unwrap(
        api.POST("/api/v1/sites/{id}/digests", {
          params: { path: { id: site } },
          body: {
            frequency,
            ...(list.length > 0 ? { email_to: list } : {}),
            ...(destination ? { destination_id: destination } : {}),
          },
        }),
      );
    },
    done: (made) => {
      setEmails("");
      setDestination("");
      onAdded(made);
    },
  });
  return (
    <form class="stack digests-add" aria-label="Schedule a digest" onSubmit={form.onSubmit}>
      <Field form={form} field="frequency" label="Every">
        {(props) => (
          <select {...props} value={frequency} onChange={(e) => setFrequency(valueOf(e) as Frequency)}>
            <option value="weekly">Week (Monday to Sunday)</option>
            <option value="monthly">Month</option>
          </select>
        )}
      </Field>
      <Field
        form={form}
        field="email_to"
        label="Email addresses"
        hint="Up to 10, separated by commas or spaces; needs mail configured on the server."
      >
        {(props) => <input {...props} type="text" value={emails} onInput={(e) => setEmails(valueOf(e))} />}
      </Field>
      <Field
        form={form}
        field="destination_id"
        label="Alert destination"
        hint="A webhook or Slack destination of one of this site's alert rules."
      >
        {(props) => (
          <select {...props} value={destination} onChange={(e) => setDestination(valueOf(e))}>
            <option value="">None</option>
            {destinations.map((d) => (
              <option key={d.id} value={d.id}>
                {d.format}: {d.url}
              </option>
            ))}
          </select>
        )}
      </Field>
      <FormProblem form={form} />
      <div class="row">
        <button type="submit" class="primary" disabled={form.busy}>
          Schedule
        </button>
      </div>
    </form>
  );
}
