/** The Wizard screen. (Placeholder: being built.) */
export function WizardScreen() {
  return <p>Wizard</p>;
}
