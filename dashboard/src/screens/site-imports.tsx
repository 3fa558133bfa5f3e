/**
 * "Import history" on a site's settings (docs/dashboard.md "Importing from another tool"): a
 * site admin (write:sites on the site) picks the tool and its export, watches it upload (a
 * progress bar: XMLHttpRequest, since fetch reports none) and then "Reading…" until the API
 * answers with the summary — rows read, days imported, the first and last day, the rows left out
 * by reason with the first few by file and line. Below, every import of the site, each
 * removable (with its days) after a confirmation. Nobody else sees this section.
 */
import { useState } from "preact/hooks";
import { api, ApiProblem, unwrap, type Schemas } from "../api/client";
import { uploadFile, type UploadProgress } from "../api/upload";
import { useLoad } from "../state/load";
import { hasScope } from "../state/session";
import { ConfirmButton } from "../ui/confirm";
import { Field, FormProblem, useApiForm, valueOf } from "../ui/field";
import { Failure, Loaded } from "../ui/states";
import { formatDate, formatInstant } from "../ui/time";

type Import = Schemas["Import"];
type ImportResult = Schemas["ImportResult"];
type Tool = Import["source"];

/** Each tool, the export it gives and how it is sent. */
const TOOLS: Readonly<Record<Tool, { name: string; file: string; accept: string; type: string }>> = {
  plausible: {
    name: "Plausible",
    file: "the zip of CSV files from Site settings → Imports & exports → Export",
    accept: ".zip",
    type: "application/zip",
  },
  umami: { name: "Umami", file: "the website_event CSV of its data export", accept: ".csv", type: "text/csv" },
  goatcounter: { name: "GoatCounter", file: "the CSV from Settings → Export", accept: ".csv", type: "text/csv" },
};

const readImports = (site: string) => unwrap(api.GET("/api/v1/sites/{id}/imports", { params: { path: { id: site } } }));

export function SiteImports({ site }: { site: string }) {
  if (!hasScope("write:sites")) return null;
  return <SiteImportsSection site={site} />;
}

function SiteImportsSection({ site }: { site: string }) {
  const load = useLoad(() => readImports(site), [site]);
  return (
    <section aria-labelledby="imports-title">
      <h2 id="imports-title">Import history</h2>
      <p class="hint">
        Bring this site's past in from Plausible, Umami or GoatCounter. Only the days before Wren's own first day of data (and
        before yesterday) are imported; the same file twice is imported once. Imported days pass the same privacy filter as every
        other figure.
      </p>
      <Loaded load={load} what="the imports">
        {(data) => <ImportsBody site={site} initial={data.imports} />}
      </Loaded>
    </section>
  );
}

function ImportsBody({ site, initial }: { site: string; initial: Import[] }) {
  const [imports, setImports] = useState(initial);
  const [result, setResult] = useState<ImportResult | null>(null);
  return (
    <>
      <UploadForm
        site={site}
        onImported={(answer) => {
          setResult(answer);
          setImports([answer.import, ...imports.filter((i) => i.id !== answer.import.id)]);
        }}
      />
      {result && <ImportSummary result={result} />}
      {imports.length === 0 ? (
        <p class="imports-none">Nothing imported yet.</p>
      ) : (
        <ImportList site={site} imports={imports} onRemoved={(id) => setImports(imports.filter((i) => i.id !== id))} />
      )}
    </>
  );
}

type Phase = { kind: "idle" } | { kind: "uploading"; progress: UploadProgress } | { kind: "reading" };

function UploadForm({ site, onImported }: { site: string; onImported: (result: ImportResult) => void }) {
  const [tool, setTool] = useState<Tool>("plausible");
  const [file, setFile] = useState<File | null>(null);
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const form = useApiForm({
    id: "import",
    fields: ["from", "body"],
    check: () => (file ? null : { field: "body", text: "Choose the export's file." }),
    send: async () => {
      const path = `/api/v1/sites/${encodeURIComponent(site)}/imports?from=${tool}&name=${encodeURIComponent(file!.name)}`;
      setPhase({ kind: "uploading", progress: { sent: 0, total: file!.size } });
      try {
        const answer = await uploadFile<ImportResult>(path, file!, TOOLS[tool].type, (progress) =>
          // All sent: the server now reads the file whole before it answers.
          setPhase(progress.sent >= progress.total ? { kind: "reading" } : { kind: "uploading", progress }),
        );
        return answer.body;
      } finally {
        setPhase({ kind: "idle" });
      }
    },
    done: onImported,
  });
  return (
    <form class="stack imports-add" aria-label="Import an export" onSubmit={form.onSubmit}>
      <Field form={form} field="from" label="From" hint={`Upload ${TOOLS[tool].file}.`}>
        {(props) => (
          <select {...props} value={tool} onChange={(e) => setTool(valueOf(e) as Tool)}>
            {(Object.keys(TOOLS) as Tool[]).map((id) => (
              <option key={id} value={id}>
                {TOOLS[id].name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field form={form} field="body" label="Export file">
        {(props) => (
          <input
            {...props}
            type="file"
            accept={TOOLS[tool].accept}
            onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)}
          />
        )}
      </Field>
      <FormProblem form={form} />
      <div class="row">
        <button type="submit" class="primary" disabled={form.busy}>
          Import
        </button>
        <UploadState phase={phase} />
      </div>
    </form>
  );
}

function UploadState({ phase }: { phase: Phase }) {
  if (phase.kind === "idle") return null;
  if (phase.kind === "reading") {
    return (
      <span class="import-state" role="status">
        <progress aria-label="Reading the file" /> Reading…
      </span>
    );
  }
  const { sent, total } = phase.progress;
  const percent = total > 0 ? Math.floor((sent / total) * 100) : 0;
  return (
    <span class="import-state" role="status">
      <progress aria-label="Uploading the file" max={100} value={percent} /> Uploading… {percent}%
    </span>
  );
}

/** The answer to an upload, said in sentences, then the rows left out. */
function ImportSummary({ result }: { result: ImportResult }) {
  const { import: done, unchanged } = result;
  const reasons = Object.entries(done.refusals.by_reason);
  return (
    <div class="import-summary" role="status" aria-label="Import summary">
      <p>
        {unchanged ? (
          <>
            <strong>{done.file_name}</strong> was imported before: nothing changed.
          </>
        ) : (
          <>
            Imported <strong>{done.file_name}</strong> from {TOOLS[done.source].name}.
          </>
        )}
      </p>
      <dl class="import-figures">
        <dt>Rows read</dt>
        <dd>{done.rows_read}</dd>
        <dt>Days imported</dt>
        <dd>{done.days_imported}</dd>
        <dt>Period</dt>
        <dd>{periodOf(done)}</dd>
        <dt>Rows left out</dt>
        <dd>{done.rows_refused}</dd>
      </dl>
      {reasons.length > 0 && (
        <div class="table-wrap">
          <table class="report-table import-refusals">
            <caption>Rows left out, by reason</caption>
            <thead>
              <tr>
                <th scope="col">Reason</th>
                <th scope="col" class="num">
                  Rows
                </th>
              </tr>
            </thead>
            <tbody>
              {reasons.map(([reason, rows]) => (
                <tr key={reason}>
                  <th scope="row">{reason}</th>
                  <td class="num">{rows}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {done.refusals.first.length > 0 && (
        <ul class="import-examples" aria-label="The first rows left out">
          {done.refusals.first.map((row) => (
            <li key={`${row.file}:${row.line}`}>
              <code>{row.file}</code>, line {row.line}: {row.reason}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

const periodOf = (done: Import) =>
  done.first_day && done.last_day ? `${formatDate(done.first_day)} – ${formatDate(done.last_day)}` : "no day";

function ImportList({ site, imports, onRemoved }: { site: string; imports: Import[]; onRemoved: (id: string) => void }) {
  return (
    <div class="table-wrap">
      <table class="report-table imports-list">
        <caption>Imports, newest first</caption>
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col">From</th>
            <th scope="col">Period</th>
            <th scope="col" class="num">
              Days
            </th>
            <th scope="col" class="num">
              Rows read
            </th>
            <th scope="col" class="num">
              Left out
            </th>
            <th scope="col">Imported</th>
            <th scope="col">
              <span class="sr-only">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {imports.map((item) => (
            <tr key={item.id}>
              <th scope="row" id={`import-${item.id}`}>
                {item.file_name}
              </th>
              <td>{TOOLS[item.source].name}</td>
              <td>{periodOf(item)}</td>
              <td class="num">{item.days_imported}</td>
              <td class="num">{item.rows_read}</td>
              <td class="num">{item.rows_refused}</td>
              <td>{item.status === "done" ? formatInstant(item.created_at) : "interrupted: upload it again to finish"}</td>
              <td>
                <RemoveImport site={site} item={item} onRemoved={() => onRemoved(item.id)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Remove, asked in place: the import's days leave the reports. */
function RemoveImport({ site, item, onRemoved }: { site: string; item: Import; onRemoved: () => void }) {
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const remove = () => {
    setProblem(null);
    return unwrap(
      api.DELETE("/api/v1/sites/{id}/imports/{import_id}", { params: { path: { id: site, import_id: item.id } } }),
    ).then(onRemoved, (error: unknown) => setProblem(ApiProblem.from(error)));
  };
  return (
    <>
      <ConfirmButton
        label="Remove"
        ariaLabel={`Remove ${item.file_name}`}
        describedBy={`import-${item.id}`}
        question={`Remove the import of ${item.file_name}? Its ${item.days_imported} days leave the reports.`}
        confirmLabel="Yes, remove"
        busyLabel="Removing…"
        onConfirm={remove}
      />
      {problem && <Failure problem={problem} />}
    </>
  );
}
