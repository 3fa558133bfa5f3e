/**
 * The label of a report's `other` row (docs/reports.md, "Hidden rows and labels"): every value or
 * path hidden over the period, shown together and greyed, never one by one. It carries no count.
 */
export const OTHER_ROW_CLASS = "other-row";

/**
 * `today`: today's ranges hide a row whose noised count fell below k too (docs/reports.md, Today),
 * so a hidden row there may have had up to k + 4 visitors.
 */
export function OtherLabel({ k, what = "values", today = false }: { k: number; what?: string; today?: boolean }) {
  if (today) {
    return (
      <span
        class="muted"
        title={`Each of these ${what} had fewer than ${k} visitors so far today, or up to ${k + 4} whose count with noise added fell below ${k}, so none of them is named.`}
      >
        Other {what} (hidden so far today)
      </span>
    );
  }
  return (
    <span
      class="muted"
      title={`Each of these ${what} had fewer than ${k} visitors on every day of the period, so none of them is named.`}
    >
      Other {what} (fewer than {k} each)
    </span>
  );
}
