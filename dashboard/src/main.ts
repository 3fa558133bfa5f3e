/**
 * The dashboard: a static page that talks only to the public API with the key the operator
 * types in. The key lives in sessionStorage, so it is gone when the tab closes.
 */
const KEY_STORAGE = "wren.apiKey";

const $ = <T extends HTMLElement>(selector: string) => document.querySelector(selector) as T;

async function api<T>(path: string): Promise<T> {
  const key = sessionStorage.getItem(KEY_STORAGE);
  const response = await fetch(path, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { detail?: string };
    throw new Error(body.detail ?? `${response.status} ${response.statusText}`);
  }
  return (await response.json()) as T;
}

async function showHealth(): Promise<void> {
  const badge = $("#health");
  const ok = await fetch("/healthz").then((r) => r.ok, () => false);
  badge.textContent = ok ? "database ok" : "database down";
  badge.className = ok ? "ok" : "down";
}

interface Site {
  id: string;
  name: string;
  domain: string;
}

async function showSites(): Promise<void> {
  const { sites } = await api<{ sites: Site[] }>("/api/v1/sites");
  const body = $("#sites tbody");
  body.replaceChildren(
    ...sites.map((site) => {
      const row = document.createElement("tr");
      for (const value of [site.name, site.domain, site.id]) {
        const cell = document.createElement("td");
        cell.textContent = value;
        row.append(cell);
      }
      return row;
    }),
  );
  $("#empty").hidden = sites.length > 0;
}

function showError(error: unknown): void {
  const box = $("#error");
  box.textContent = error instanceof Error ? error.message : String(error);
  box.hidden = false;
}

async function render(): Promise<void> {
  $("#error").hidden = true;
  const loggedIn = sessionStorage.getItem(KEY_STORAGE) !== null;
  $("#login").hidden = loggedIn;
  $("#sites").hidden = !loggedIn;
  if (loggedIn) await showSites().catch(showError);
}

$("#login").addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem(KEY_STORAGE, $<HTMLInputElement>("#key").value.trim());
  void render();
});
$("#logout").addEventListener("click", () => {
  sessionStorage.removeItem(KEY_STORAGE);
  void render();
});

void showHealth();
void render();
