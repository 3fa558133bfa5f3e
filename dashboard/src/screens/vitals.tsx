/** The Vitals screen. (Placeholder: being built.) */
export function VitalsScreen({ site }: { site: string }) {
  return <p>Vitals of {site}</p>;
}
