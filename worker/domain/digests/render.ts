/**
 * A digest in words: a plain-text and a simple HTML email, a Slack message and the Standard
 * Webhooks body, all from the same composed figures (reports/digest.ts). A suppressed figure
 * reads "hidden (fewer than k)"; a hidden row has no label, only those words; a delta shows only
 * when both periods' figures are shown ("—" otherwise). Every label is escaped for where it
 * goes: HTML entities in the email, Slack's `&`, `<`, `>` in Slack text (a page path like
 * `/<script>` or `<!channel>` is text, never markup).
 */
import type { DigestFrequency } from "../../lib/schema";
import type { Figure } from "../../reports/figures";
import type { Compared, DigestFigures, DigestRow } from "../../reports/digest";

export type DigestEventType = "digest.weekly" | "digest.monthly";

/** The Standard Webhooks body of a digest. */
export interface DigestPayload {
  type: DigestEventType;
  timestamp: string;
  data: DigestFigures & { frequency: DigestFrequency; links: { dashboard: string } };
}

export interface RenderedDigest {
  subject: string;
  text: string;
  html: string;
  slack: { text: string; blocks: unknown[] };
  payload: DigestPayload;
}

export const HIDDEN_WORDS = (k: number) => `hidden (fewer than ${k})`;

function figure(f: Figure, k: number): string {
  if (f.value === null) return HIDDEN_WORDS(k);
  return `${f.qualifier === "estimated" ? "≈" : ""}${f.value}`;
}

function delta(c: Compared): string {
  if (!c.delta || c.delta.value === null) return "—";
  const sign = c.delta.value > 0 ? "+" : c.delta.value < 0 ? "−" : "±";
  return `${c.delta.qualifier === "estimated" ? "≈" : ""}${sign}${Math.abs(c.delta.value)}`;
}

function rowLabel(row: DigestRow, k: number): string {
  if (row.hidden) return HIDDEN_WORDS(k);
  if (row.direct) return "Direct / none";
  return row.label ?? "";
}

interface Line {
  label: string;
  value: string;
  delta: string;
}

interface Section {
  title: string;
  lines: Line[];
}

function sections(d: DigestFigures): Section[] {
  const k = d.k;
  const counted = (label: string, c: Compared): Line => ({ label, value: figure(c.current, k), delta: delta(c) });
  const rows = (list: DigestRow[]): Line[] =>
    list.map((r) => (r.hidden ? { label: HIDDEN_WORDS(k), value: "", delta: "" } : counted(rowLabel(r, k), r.visitors)));
  return [
    { title: "Totals", lines: [counted("Visitors", d.visitors), counted("Pageviews", d.pageviews)] },
    { title: "Top pages (visitors)", lines: rows(d.pages) },
    { title: "Top sources (visitors)", lines: rows(d.sources) },
    { title: "Goals (conversions)", lines: d.goals.map((g) => counted(g.name, g.conversions)) },
  ];
}

const periodWords = (frequency: DigestFrequency) => (frequency === "weekly" ? "Weekly" : "Monthly");

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** Slack reads `<…>` as markup: text is escaped as Slack asks (worker/alerts/payload.ts does the same). */
export function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function renderDigest(d: DigestFigures, frequency: DigestFrequency, publicUrl: string, at: number): RenderedDigest {
  const dashboard = `${publicUrl}/dashboard/s/${d.site.id}/overview`;
  const head = `${periodWords(frequency)} digest for ${d.site.name}, ${d.period.from} – ${d.period.to}`;
  const subject = head.replace(/[\r\n]+/g, " ").slice(0, 200);
  const against = `Deltas against ${d.previous.from} – ${d.previous.to}. Figures below k = ${d.k} visitors are hidden.`;
  const parts = sections(d);
  const textLine = (l: Line) => (l.value === "" ? `  ${l.label}` : `  ${l.label}: ${l.value} (${l.delta})`);
  const text = [
    head,
    against,
    "",
    ...parts.flatMap((s) => [s.title, ...(s.lines.length === 0 ? ["  (none)"] : s.lines.map(textLine)), ""]),
    `Dashboard: ${dashboard}`,
    "",
  ].join("\n");
  const htmlRow = (l: Line) =>
    l.value === ""
      ? `<tr><td colspan="3"><em>${escapeHtml(l.label)}</em></td></tr>`
      : `<tr><td>${escapeHtml(l.label)}</td><td align="right">${escapeHtml(l.value)}</td><td align="right">${escapeHtml(l.delta)}</td></tr>`;
  const html =
    `<!doctype html><html><body><h1>${escapeHtml(head)}</h1><p>${escapeHtml(against)}</p>` +
    parts
      .map(
        (s) =>
          `<h2>${escapeHtml(s.title)}</h2><table>` +
          (s.lines.length === 0 ? `<tr><td>(none)</td></tr>` : s.lines.map(htmlRow).join("")) +
          "</table>",
      )
      .join("") +
    `<p><a href="${escapeHtml(dashboard)}">Open the dashboard</a></p></body></html>`;
  const slackSection = (s: Section) =>
    `*${slackEscape(s.title)}*\n` +
    (s.lines.length === 0
      ? "(none)"
      : s.lines.map((l) => slackEscape(l.value === "" ? `• ${l.label}` : `• ${l.label}: ${l.value} (${l.delta})`)).join("\n"));
  const slack = {
    text: slackEscape(head),
    blocks: [
      { type: "header", text: { type: "plain_text", text: head.slice(0, 150) } },
      { type: "section", text: { type: "mrkdwn", text: slackEscape(against) } },
      ...parts.map((s) => ({ type: "section", text: { type: "mrkdwn", text: slackSection(s).slice(0, 3000) } })),
      { type: "section", text: { type: "mrkdwn", text: `<${slackEscape(dashboard).replace(/\|/g, "%7C")}|Open the dashboard>` } },
    ],
  };
  const payload: DigestPayload = {
    type: frequency === "weekly" ? "digest.weekly" : "digest.monthly",
    timestamp: new Date(at).toISOString(),
    data: { ...d, frequency, links: { dashboard } },
  };
  return { subject, text, html, slack, payload };
}
