/** Boots the dashboard: resumes the tab's key if it has one, then renders the app. */
import { render } from "preact";
import { App } from "./app";
import { followLink } from "./state/location";
import { resume } from "./state/session";

const root = document.getElementById("app")!;
document.addEventListener("click", followLink);
void resume().finally(() => {
  root.replaceChildren();
  render(<App />, root);
});
