/** The Overview screen. (Placeholder: being built.) */
export function OverviewScreen({ site }: { site: string }) {
  return <p>Overview of {site}</p>;
}
