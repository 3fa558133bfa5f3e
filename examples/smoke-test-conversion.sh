#!/usr/bin/env bash
# Pattern 2: after each deployment, prove the whole chain on the deployed site:
#
#   snippet loads → tracker sends beacons → collector accepts → goal counts
#
#   WREN_URL=https://stats.example.com WREN_KEY=wren_… SITE_ID=site_… GOAL_ID=goal_… \
#   PAGE_URL=https://shop.example.com/ DEPLOY_ID=3f9c2ab ./smoke-test-conversion.sh
#
# Inputs (environment):
#   WREN_URL    where the API is reached (https://stats.example.com)
#   WREN_KEY    a key with write:events and read:reports on the site
#               (`wren keys create --scopes write:events,read:reports --sites SITE_ID`)
#   SITE_ID     the site (site_…)
#   GOAL_ID     an event goal made for the purpose
#               (`wren goals create --site SITE_ID --kind event --match smoke-test --purpose smoke-test`)
#   PAGE_URL    a page of the deployment that carries the snippet
#   DEPLOY_ID   the deployment: its marker's id (dep_…), version or external_id. It is the
#               conversion's `id`, so the conversion is listed beside that marker, and counted
#               once per deployment: a re-run finds the one already recorded.
#   SESSION     optional: the session id a real browser's visit to PAGE_URL got (`wren.session()`
#               in the page; examples/smoke-test-browser.mjs does that visit). The conversion
#               must then attach to it, which proves the tracker's beacons reached the collector.
#   TIMEOUT     optional: seconds to wait for the conversion beside its marker (default 30)
#   CURL_OPTS   optional: extra curl options for every request, separated by spaces
#               (e.g. "--resolve shop.example.com:443:10.0.0.5" to test a host before DNS points at it)
#
# Each step that fails says why on stderr and exits with its own code:
#   2 inputs   a variable is missing or malformed, or curl or jq is not installed
#   3 snippet  PAGE_URL cannot be fetched, or does not embed the Wren snippet for SITE_ID
#   4 tracker  the tracker script the snippet loads is not a JavaScript 200
#   6 conversion   Wren refused the smoke-test conversion (bad key, scope, site, goal, …)
#   7 attach   SESSION was given but the conversion did not attach to it
#   8 marker   no deployment marker lists the conversion within TIMEOUT, or the list is refused
# (5 is the browser example's beacon step.) On success it prints each step and the marker.
set -euo pipefail

fail() { # fail CODE MESSAGE: the step's message on stderr, its exit code
  echo "$2" >&2
  exit "$1"
}

# ---- inputs ----------------------------------------------------------------------------
for tool in curl jq; do
  command -v "$tool" >/dev/null 2>&1 || fail 2 "inputs: $tool is not installed"
done
for name in WREN_URL WREN_KEY SITE_ID GOAL_ID PAGE_URL DEPLOY_ID; do
  [ -n "${!name:-}" ] || fail 2 "inputs: set $name"
done
[[ $SITE_ID =~ ^site_[A-Za-z0-9_-]+$ ]] || fail 2 "inputs: SITE_ID is not a site id (site_…)"
[[ $PAGE_URL =~ ^(https?:)//[^/?#]+ ]] || fail 2 "inputs: PAGE_URL is not an http:// or https:// URL"
page_origin=${BASH_REMATCH[0]} page_scheme=${BASH_REMATCH[1]}
TIMEOUT=${TIMEOUT:-30}
[[ $TIMEOUT =~ ^[0-9]+$ ]] || fail 2 "inputs: TIMEOUT is not a whole number of seconds"
SESSION=${SESSION:-}
WREN_URL=${WREN_URL%/}
read -r -a curl_opts <<<"${CURL_OPTS:-}"
# Every request: quiet but with curl's own errors, bounded in time, plus the caller's options.
# (${a[@]+"${a[@]}"}: an empty array under set -u, in the bash 3 of macOS too.)
http() { curl --silent --show-error --max-time 15 ${curl_opts[@]+"${curl_opts[@]}"} "$@"; }

# ---- a. snippet: PAGE_URL embeds <script … src="…/t.js" data-site="SITE_ID"> --------------
page=$(mktemp)
trap 'rm -f "$page"' EXIT
status=$(http --location --output "$page" --write-out '%{http_code}' "$PAGE_URL") ||
  fail 3 "snippet step: could not fetch $PAGE_URL"
[ "$status" = 200 ] || fail 3 "snippet step: $PAGE_URL answered HTTP $status"
# The first script tag naming the site (tags may span lines), then its src.
tag=$(tr '\r\n' '  ' <"$page" | grep -o -i -E "<script[^>]*data-site=[\"']$SITE_ID[\"'][^>]*>" | head -n 1 || true)
src=$(grep -o -i -E "[[:space:]]src=[\"'][^\"']+" <<<"$tag" | head -n 1 | sed -E "s/^[[:space:]]src=[\"']//" || true)
[ -n "$src" ] || fail 3 "snippet step: $PAGE_URL does not embed the Wren snippet for $SITE_ID"
# The snippet's src is absolute; a proxied one may be relative to the page.
case "$src" in
  http://* | https://*) tracker=$src ;;
  //*) tracker=$page_scheme$src ;;
  /*) tracker=$page_origin$src ;;
  *) tracker=${PAGE_URL%/*}/$src ;;
esac
echo "snippet: $PAGE_URL embeds the Wren snippet for $SITE_ID (tracker $tracker)"

# ---- b. tracker: the script the snippet loads is a JavaScript 200 -------------------------
meta=$(http --location --output /dev/null --write-out '%{http_code}|%{size_download}|%{content_type}' "$tracker") ||
  fail 4 "tracker step: could not fetch $tracker"
IFS='|' read -r status size type <<<"$meta"
if [ "$status" != 200 ] || ! grep -q -i -E '^(text|application)/(x-)?(java|ecma)script' <<<"$type"; then
  fail 4 "tracker step: $tracker answered HTTP $status ($type), not the tracker script"
fi
echo "tracker: $tracker answers 200 $type ($size bytes)"

# ---- c. conversion: POST /api/v1/events, the conversion's id naming the deployment --------
body=$(jq -n --arg site "$SITE_ID" --arg goal "$GOAL_ID" --arg id "$DEPLOY_ID" --arg session "$SESSION" \
  '{site: $site, goal_id: $goal, id: $id} + (if $session == "" then {} else {session: $session} end)')
# The body and, on the last line, the status: a refusal's problem details are printed.
response=$(http --write-out '\n%{http_code}' -X POST "$WREN_URL/api/v1/events" \
  -H "Authorization: Bearer $WREN_KEY" -H "Content-Type: application/json" -d "$body") ||
  fail 6 "conversion step: could not reach $WREN_URL"
status=${response##*$'\n'}
response=${response%$'\n'*}
[ "$status" = 202 ] || fail 6 "conversion step: Wren refused the smoke-test conversion: HTTP $status $response"
# {"events": [{"status": "stored"|"duplicate", "session": "attached"|"unattached"|null}]}
stored=$(jq -r '.events[0].status' <<<"$response")
attached=$(jq -r '.events[0].session' <<<"$response")
not_attached="the conversion did not attach to the browser session: the tracker's beacons did not reach the collector"
if [ "$stored" = duplicate ]; then
  # The id counts once: this deployment's conversion was posted before. Whether that one
  # attached is read beside the marker, below.
  echo "conversion: already recorded for $DEPLOY_ID (a re-run counts once)"
elif [ -n "$SESSION" ]; then
  [ "$attached" = attached ] || fail 7 "conversion step: $not_attached"
  echo "conversion: recorded for $DEPLOY_ID, attached to the browser session"
else
  echo "conversion: recorded for $DEPLOY_ID (no SESSION given: not attached to a visit)"
fi

# ---- d. marker: the conversion is listed beside the deployment's marker -------------------
# GET /api/v1/deployments lists markers newest first, each with its `smoke` conversions.
deadline=$((SECONDS + TIMEOUT))
while :; do
  response=$(http --write-out '\n%{http_code}' "$WREN_URL/api/v1/deployments?site=$SITE_ID" \
    -H "Authorization: Bearer $WREN_KEY") || fail 8 "marker step: could not reach $WREN_URL"
  status=${response##*$'\n'}
  response=${response%$'\n'*}
  [ "$status" = 200 ] || fail 8 "marker step: Wren refused the deployments list: HTTP $status $response"
  marker=$(jq -c --arg id "$DEPLOY_ID" --arg goal "$GOAL_ID" \
    'first(.deployments[] | select(any(.smoke[]; .id == $id and .goal == $goal))) // empty' <<<"$response")
  [ -n "$marker" ] && break
  [ "$SECONDS" -lt "$deadline" ] ||
    fail 8 "marker step: no deployment marker of $SITE_ID lists the conversion $DEPLOY_ID (goal $GOAL_ID) after ${TIMEOUT}s"
  sleep 1
done
if [ "$stored" = duplicate ] && [ -n "$SESSION" ]; then
  was=$(jq -r --arg id "$DEPLOY_ID" --arg goal "$GOAL_ID" 'first(.smoke[] | select(.id == $id and .goal == $goal)) | .attached' <<<"$marker")
  [ "$was" = true ] || fail 7 "conversion step: $not_attached (this deployment's conversion, recorded earlier, is not attached)"
fi
# A conversion whose id names no marker sits beside the latest one deployed before it.
if ! jq -e --arg id "$DEPLOY_ID" '.id == $id or .version == $id or .external_id == $id' <<<"$marker" >/dev/null; then
  echo "note: no marker is named $DEPLOY_ID; the conversion is listed beside the latest one before it" >&2
fi
echo "marker: $(jq -r '"\(.id) (version \(.version), \(.environment)) lists the conversion"' <<<"$marker")"
jq . <<<"$marker"
