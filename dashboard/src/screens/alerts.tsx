/** The Alerts screen. (Placeholder: being built.) */
export function AlertsScreen({ site }: { site: string }) {
  return <p>Alerts of {site}</p>;
}
