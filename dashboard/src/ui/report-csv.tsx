/**
 * "Download CSV" for a report. The API answers CSV to `Accept: text/csv`, which a plain link
 * cannot send with the key's Authorization header, so the first click fetches the file with
 * the key and the link then points at it as a blob: URL with a `download` name (CSP governs
 * fetches and subresources, not a download the page offers). A change of `source` (the
 * report's parameters) drops the prepared file.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiProblem } from "../api/client";

export function CsvDownload({ filename, source, read }: { filename: string; source: string; read: () => Promise<string> }) {
  const [url, setUrl] = useState<string | null>(null);
  const [status, setStatus] = useState<"" | "Preparing the CSV…" | "CSV ready" | { failed: string }>("");
  const link = useRef<HTMLAnchorElement>(null);
  const clickWhenReady = useRef(false);

  useEffect(() => {
    setUrl(null);
    setStatus("");
  }, [source]);
  // Each prepared file is released when it is replaced or the screen goes.
  useEffect(() => () => void (url && URL.revokeObjectURL(url)), [url]);
  useEffect(() => {
    if (url && clickWhenReady.current) {
      clickWhenReady.current = false;
      link.current?.click();
    }
  }, [url]);

  const prepare = async () => {
    setStatus("Preparing the CSV…");
    try {
      const text = await read();
      clickWhenReady.current = true;
      setUrl(URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" })));
      setStatus("CSV ready");
    } catch (error) {
      setStatus({ failed: error instanceof ApiProblem ? error.message : String(error) });
    }
  };

  return (
    <span class="report-csv">
      <a
        ref={link}
        class="button"
        href={url ?? "#"}
        download={filename}
        onClick={(event) => {
          if (url) return; // the prepared file: the browser downloads it
          event.preventDefault();
          if (status !== "Preparing the CSV…") void prepare();
        }}
      >
        Download CSV
      </a>
      <span role="status" class={typeof status === "object" ? "failure" : "hint"}>
        {typeof status === "object" ? `The CSV could not be made: ${status.failed}` : status === "CSV ready" ? "" : status}
      </span>
    </span>
  );
}
