/** The Deployments screen. (Placeholder: being built.) */
export function DeploymentsScreen({ site }: { site: string }) {
  return <p>Deployments of {site}</p>;
}
