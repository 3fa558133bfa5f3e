/**
 * How a revenue figure is drawn: the amount in its goal's currency (Intl.NumberFormat: "€5,571",
 * an average with its cents), "≈" when estimated (every shown revenue is: perturbed), and
 * "hidden" when suppressed — never "< k", which would read as a count of money. Each carries a
 * tooltip saying why, in the words of docs/reports.md (Revenue).
 */
import type { Schemas } from "../api/client";
import { ESTIMATED_REASON, QualifiedText } from "./figure";

export type RevenueFigure = Schemas["RevenueFigure"];

export const REVENUE_ESTIMATED_REASON = `${ESTIMATED_REASON} Revenue is perturbed by up to a fifth of its largest buyer's amount and rounded to whole currency units.`;

export const REVENUE_HIDDEN_REASON =
  "Hidden: its converting sessions are hidden, one of them holds most of the sum (their amount would be readable), or the period reaches back past the per-session rows Wren keeps.";

/** The amount as money: whole units for a total, cents for an average. */
export function moneyText(value: number, currency: string, cents: boolean): string {
  return new Intl.NumberFormat("en", {
    style: "currency",
    currency,
    minimumFractionDigits: cents ? 2 : 0,
    maximumFractionDigits: cents ? 2 : 0,
  }).format(value);
}

/** The figure as the screen writes it: "≈ €5,571", "≈ €58.03", "hidden". */
export function revenueText(figure: RevenueFigure, cents = false): string {
  if (figure.qualifier === "suppressed" || figure.value === null) return "hidden";
  const text = moneyText(figure.value, figure.currency, cents);
  return figure.qualifier === "estimated" ? `≈ ${text}` : text;
}

export function RevenueView({
  figure,
  cents = false,
}: {
  figure: RevenueFigure;
  /** An average: with cents. */ cents?: boolean;
}) {
  const text = revenueText(figure, cents);
  if (figure.qualifier === "suppressed" || figure.value === null) {
    return <QualifiedText text={text} qualifier="suppressed" why={REVENUE_HIDDEN_REASON} />;
  }
  if (figure.qualifier === "estimated") return <QualifiedText text={text} qualifier="estimated" why={REVENUE_ESTIMATED_REASON} />;
  return <QualifiedText text={text} qualifier="exact" />;
}

/** The two revenue columns' headers, after a table's counts (the Goals table, a breakdown with a revenue goal). */
export function RevenueHeaders() {
  return (
    <>
      <th scope="col" class="num">
        Revenue
      </th>
      <th scope="col" class="num">
        Average revenue
      </th>
    </>
  );
}
