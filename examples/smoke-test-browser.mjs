#!/usr/bin/env node
/**
 * Pattern 2, with a real browser: after each deployment, open the deployed page in Chromium and
 * prove the whole chain — snippet loads → tracker sends beacons → collector accepts → goal counts —
 * on the session that visit got.
 *
 *   WREN_URL=https://stats.example.com WREN_KEY=wren_… SITE_ID=site_… GOAL_ID=goal_… \
 *   PAGE_URL=https://shop.example.com/ DEPLOY_ID=3f9c2ab node smoke-test-browser.mjs
 *
 * Needs Node ≥ 20, `npm install playwright-core` and a Chromium on the machine (Debian:
 * `apt-get install chromium`; nothing is downloaded). Inputs (environment) are those of
 * smoke-test-conversion.sh, less SESSION (the visit makes one) and CURL_OPTS, plus:
 *
 *   HOST_RESOLVER_RULES  optional: passed to Chromium as --host-resolver-rules, e.g.
 *                        "MAP shop.example.com 10.0.0.5" to test a host before DNS points at it
 *   CHROMIUM_PATH        optional: the browser to drive (default /usr/bin/chromium)
 *
 * Steps, each failing with its message on stderr and its own exit code (the same codes as
 * smoke-test-conversion.sh, plus 5):
 *   2 inputs      a variable is missing or malformed, or Chromium does not start
 *   3 snippet     PAGE_URL does not load, or does not embed the Wren snippet for SITE_ID
 *   4 tracker     the tracker script is not a JavaScript 200, or does not start
 *   5 beacon      the collector does not accept the tracker's pageview beacon (202) within TIMEOUT
 *   6 conversion  Wren refused the smoke-test conversion (POST /api/v1/events)
 *   7 attach      the conversion did not attach to the visit's session
 *   8 marker      no deployment marker lists the conversion within TIMEOUT
 *
 * The visit presents itself as desktop Chrome: the collector drops beacons from headless
 * browsers. It is a real pageview, counted in the reports like any visit (one per run).
 */
import { chromium } from "playwright-core";

/** A failed step: its exit code and message. */
class StepFailure extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}
const fail = (code, message) => {
  throw new StepFailure(code, message);
};

// ---- inputs ----------------------------------------------------------------------------
const env = process.env;
const WREN_URL = (env.WREN_URL ?? "").replace(/\/+$/, "");
const { WREN_KEY, SITE_ID, GOAL_ID, PAGE_URL, DEPLOY_ID } = env;
const TIMEOUT_MS = Number(env.TIMEOUT || "30") * 1000;

function checkInputs() {
  for (const name of ["WREN_URL", "WREN_KEY", "SITE_ID", "GOAL_ID", "PAGE_URL", "DEPLOY_ID"]) {
    if (!env[name]) fail(2, `inputs: set ${name}`);
  }
  if (!/^site_[A-Za-z0-9_-]+$/.test(SITE_ID)) fail(2, "inputs: SITE_ID is not a site id (site_…)");
  if (!/^https?:\/\/[^/?#]+/.test(PAGE_URL)) fail(2, "inputs: PAGE_URL is not an http:// or https:// URL");
  if (!/^\d+$/.test(env.TIMEOUT || "30")) fail(2, "inputs: TIMEOUT is not a whole number of seconds");
}

/** Chromium's flags: no sandbox (root in CI), no GPU, and no background traffic to Google. */
const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
const JAVASCRIPT = /^(text|application)\/(x-)?(java|ecma)script/i;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The first of `responses` (which grows as the page loads) that `match`es, within `ms`; else null. */
async function responseWhere(responses, match, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = responses.find(match);
    if (found || Date.now() > deadline) return found ?? null;
    await sleep(100);
  }
}

/** An API call: status and parsed body (null when not JSON). */
async function api(method, path, body) {
  let response;
  try {
    response = await fetch(`${WREN_URL}${path}`, {
      method,
      headers: { authorization: `Bearer ${WREN_KEY}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(15_000),
    });
  } catch (error) {
    return { status: 0, text: String(error.cause ?? error), json: null };
  }
  const text = await response.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: the text is shown
  }
  return { status: response.status, text, json };
}

// ---- a.–c. the visit: snippet, tracker, beacon, and the session it got -------------------------
async function visit() {
  let browser;
  try {
    browser = await chromium.launch({
      executablePath: env.CHROMIUM_PATH || "/usr/bin/chromium",
      args: [...CHROMIUM_FLAGS, ...(env.HOST_RESOLVER_RULES ? [`--host-resolver-rules=${env.HOST_RESOLVER_RULES}`] : [])],
    });
  } catch (error) {
    fail(2, `inputs: Chromium did not start: ${error.message.split("\n")[0]}`);
  }
  try {
    // Desktop Chrome of the same version: "HeadlessChrome" beacons are dropped as automation.
    const major = browser.version().split(".")[0];
    const userAgent = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
    const page = await (await browser.newContext({ userAgent })).newPage();
    const responses = [];
    const failures = [];
    page.on("response", (response) => responses.push(response));
    page.on("requestfailed", (request) => failures.push(request));

    // a. snippet: the page loads and has <script src="…/t.js" data-site="SITE_ID">.
    let loaded;
    try {
      loaded = await page.goto(PAGE_URL, { waitUntil: "domcontentloaded", timeout: TIMEOUT_MS });
    } catch (error) {
      fail(3, `snippet step: could not load ${PAGE_URL}: ${error.message.split("\n")[0]}`);
    }
    if (!loaded || loaded.status() !== 200) fail(3, `snippet step: ${PAGE_URL} answered HTTP ${loaded?.status()}`);
    const src = await page.evaluate(
      (site) =>
        [...document.querySelectorAll("script[data-site]")].find((s) => s.getAttribute("data-site") === site && s.src)?.src ??
        null,
      SITE_ID,
    );
    if (!src) fail(3, `snippet step: ${PAGE_URL} does not embed the Wren snippet for ${SITE_ID}`);
    console.log(`snippet: ${PAGE_URL} embeds the Wren snippet for ${SITE_ID} (tracker ${src})`);

    // b. tracker: the script answers a JavaScript 200, and runs (window.wren).
    const script = await responseWhere(responses, (r) => r.url() === src, TIMEOUT_MS);
    const type = script?.headers()["content-type"] ?? "";
    if (!script || script.status() !== 200 || !JAVASCRIPT.test(type)) {
      fail(
        4,
        `tracker step: ${src} answered ${script ? `HTTP ${script.status()} (${type})` : "nothing"}, not the tracker script`,
      );
    }
    const started = await page
      .waitForFunction(() => typeof window.wren?.v === "number" && typeof window.wren.session === "function", null, {
        timeout: TIMEOUT_MS,
      })
      .then(
        () => true,
        () => false,
      );
    if (!started) fail(4, `tracker step: ${src} loaded but the tracker did not start`);
    console.log(`tracker: ${src} answers 200 ${type} and runs`);

    // c. beacon: the collector (POST …/e beside t.js, as the tracker sends) accepts the pageview.
    const endpoint = src.split(/[?#]/)[0].replace(/[^/]*$/, "e");
    const isPageview = (request) =>
      request.method() === "POST" && request.url() === endpoint && (request.postData() ?? "").includes('"pageview"');
    const deadline = Date.now() + TIMEOUT_MS;
    let beacon = null;
    while (!beacon && Date.now() < deadline) {
      beacon = responses.find((r) => isPageview(r.request())) ?? null;
      const lost = failures.find(isPageview);
      if (!beacon && lost) fail(5, `beacon step: the pageview beacon to ${endpoint} failed: ${lost.failure()?.errorText}`);
      if (!beacon) await sleep(100);
    }
    if (!beacon) fail(5, `beacon step: no pageview beacon reached ${endpoint} in ${TIMEOUT_MS / 1000}s`);
    if (beacon.status() !== 202) {
      // A beacon's answer has no readable body: the collector refuses (403) a page whose host is
      // not the site's domain, and browsers that say they are automated.
      const why = beacon.status() === 403 ? " (is PAGE_URL on the site's own domain?)" : "";
      fail(5, `beacon step: the collector refused the pageview beacon: HTTP ${beacon.status()}${why}`);
    }
    const session = await page.evaluate(() => window.wren.session());
    console.log(`beacon: ${endpoint} accepted the pageview (202) on session ${session}`);
    return session;
  } finally {
    await browser.close();
  }
}

// ---- d. conversion: POST /api/v1/events on the visit's session, named by DEPLOY_ID -----------
const NOT_ATTACHED = "the conversion did not attach to the browser session: the tracker's beacons did not reach the collector";

async function convert(session) {
  const posted = await api("POST", "/api/v1/events", { site: SITE_ID, goal_id: GOAL_ID, id: DEPLOY_ID, session });
  if (posted.status !== 202)
    fail(6, `conversion step: Wren refused the smoke-test conversion: HTTP ${posted.status} ${posted.text}`);
  const result = posted.json.events[0];
  if (result.status === "duplicate") {
    // The id counts once: this deployment's conversion was posted before; its attachment is read beside the marker.
    console.log(`conversion: already recorded for ${DEPLOY_ID} (a re-run counts once)`);
    return false;
  }
  if (result.session !== "attached") fail(7, `conversion step: ${NOT_ATTACHED}`);
  console.log(`conversion: recorded for ${DEPLOY_ID}, attached to the browser session`);
  return true;
}

// ---- e. marker: the conversion is listed beside the deployment's marker ----------------------
async function marker(attached) {
  const deadline = Date.now() + TIMEOUT_MS;
  const ours = (s) => s.id === DEPLOY_ID && s.goal === GOAL_ID;
  for (;;) {
    const list = await api("GET", `/api/v1/deployments?site=${encodeURIComponent(SITE_ID)}`);
    if (list.status !== 200) fail(8, `marker step: Wren refused the deployments list: HTTP ${list.status} ${list.text}`);
    const found = list.json.deployments.find((m) => m.smoke.some(ours));
    if (found) {
      if (!attached && !found.smoke.find(ours).attached) {
        fail(7, `conversion step: ${NOT_ATTACHED} (this deployment's conversion, recorded earlier, is not attached)`);
      }
      if (![found.id, found.version, found.external_id].includes(DEPLOY_ID)) {
        console.error(`note: no marker is named ${DEPLOY_ID}; the conversion is listed beside the latest one before it`);
      }
      console.log(`marker: ${found.id} (version ${found.version}, ${found.environment}) lists the conversion`);
      console.log(JSON.stringify(found, null, 2));
      return;
    }
    if (Date.now() > deadline) {
      fail(
        8,
        `marker step: no deployment marker of ${SITE_ID} lists the conversion ${DEPLOY_ID} (goal ${GOAL_ID}) after ${TIMEOUT_MS / 1000}s`,
      );
    }
    await sleep(1000);
  }
}

try {
  checkInputs();
  await marker(await convert(await visit()));
} catch (error) {
  if (!(error instanceof StepFailure)) throw error;
  console.error(error.message);
  process.exitCode = error.code;
}
