/** The Pages screen. (Placeholder: being built.) */
export function PagesScreen({ site }: { site: string }) {
  return <p>Pages of {site}</p>;
}
