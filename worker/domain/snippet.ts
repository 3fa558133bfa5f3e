/** The embeddable snippet: one self-contained tag that loads the tracker and names the site. */
export function snippetFor(baseUrl: string, siteId: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return `<script defer src="${base}/t.js" data-site="${siteId}"></script>`;
}
