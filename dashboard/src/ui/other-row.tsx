/**
 * The label of a report's `other` row (docs/reports.md, "Hidden rows and labels"): every value or
 * path hidden over the period, shown together and greyed, never one by one. It carries no count.
 */
export const OTHER_ROW_CLASS = "other-row";

export function OtherLabel({ k, what = "values" }: { k: number; what?: string }) {
  return (
    <span
      class="muted"
      title={`Each of these ${what} had fewer than ${k} visitors on every day of the period, so none of them is named.`}
    >
      Other {what} (fewer than {k} each)
    </span>
  );
}
