/** The Goals screen. (Placeholder: being built.) */
export function GoalsScreen({ site }: { site: string }) {
  return <p>Goals of {site}</p>;
}
