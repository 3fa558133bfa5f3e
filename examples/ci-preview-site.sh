#!/usr/bin/env bash
# Pattern 1: register one preview site per pull request, from CI.
#
#   WREN_URL=https://stats.example.com WREN_KEY=wren_… PR=42 \
#   PREVIEW_DOMAIN=pr-42.preview.example.com ./ci-preview-site.sh
#
# WREN_KEY is a CI key: `wren keys create --scopes write:sites,write:events`. It acts only on
# the sites it creates, and gets a site's s2s token because it holds write:events (a key with
# write:sites alone registers sites but gets no token).
# Re-running for the same PR returns the same site (HTTP 200 instead of 201), so retries are safe;
# a domain some other key registered is a 409.
# Prints SITE_ID, SNIPPET and S2S_TOKEN lines; in GitHub Actions they also go to $GITHUB_OUTPUT.
set -euo pipefail
: "${WREN_URL:?set WREN_URL}" "${WREN_KEY:?set WREN_KEY}" "${PR:?set PR}" "${PREVIEW_DOMAIN:?set PREVIEW_DOMAIN}"

if ! response=$(curl --silent --show-error --fail-with-body \
  -X POST "$WREN_URL/api/v1/sites" \
  -H "Authorization: Bearer $WREN_KEY" \
  -H "Content-Type: application/json" \
  -d "$(jq -n --arg name "PR $PR preview" --arg domain "$PREVIEW_DOMAIN" '{name: $name, domain: $domain}')"); then
  echo "Wren refused the site: $response" >&2
  exit 1
fi

site_id=$(jq -r .id <<<"$response")
snippet=$(jq -r .snippet <<<"$response")
token=$(jq -r '.s2s_token // empty' <<<"$response")
echo "SITE_ID=$site_id"
echo "SNIPPET=$snippet"
echo "S2S_TOKEN=$token"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  { echo "site_id=$site_id"; echo "snippet=$snippet"; echo "s2s_token=$token"; } >>"$GITHUB_OUTPUT"
fi
