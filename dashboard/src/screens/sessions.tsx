/** The Sessions screen. (Placeholder: being built.) */
export function SessionsScreen({ site }: { site: string }) {
  return <p>Sessions of {site}</p>;
}
