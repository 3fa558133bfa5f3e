#!/usr/bin/env bash
# Pattern 2: record a smoke-test conversion after each deployment, so the chain
# (collector accepts → goal counts) is proven end to end on every release.
#
#   WREN_URL=https://stats.example.com WREN_KEY=wren_… SITE_ID=site_… \
#   GOAL_ID=goal_… DEPLOY_ID=$GIT_SHA ./smoke-test-conversion.sh
#
# WREN_KEY needs write:events on the site. The goal is one made for the purpose
# (`wren goals create --site S --kind event --match smoke-test --purpose smoke-test`).
# DEPLOY_ID makes the event idempotent: re-running the same deployment counts it once.
set -euo pipefail
: "${WREN_URL:?set WREN_URL}" "${WREN_KEY:?set WREN_KEY}" "${SITE_ID:?set SITE_ID}" "${GOAL_ID:?set GOAL_ID}" "${DEPLOY_ID:?set DEPLOY_ID}"

# The body and, on the last line, the status: a refusal's problem details are printed.
response=$(curl --silent --show-error --write-out '\n%{http_code}' \
  -X POST "$WREN_URL/api/v1/events" \
  -H "Authorization: Bearer $WREN_KEY" \
  -H "Content-Type: application/json" \
  -d "$(jq -n --arg site "$SITE_ID" --arg goal "$GOAL_ID" --arg id "smoke-$DEPLOY_ID" '{site: $site, goal_id: $goal, id: $id}')")
status=${response##*$'\n'}
body=${response%$'\n'*}
if [ "$status" != "202" ]; then
  echo "smoke-test conversion refused: HTTP $status $body" >&2
  exit 1
fi
echo "smoke-test conversion recorded for deployment $DEPLOY_ID: $body"
