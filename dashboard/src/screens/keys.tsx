/** The Keys screen. (Placeholder: being built.) */
export function KeysScreen() {
  return <p>Keys</p>;
}
