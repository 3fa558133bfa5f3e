#!/usr/bin/env bash
# Pattern 3: pull yesterday's aggregates nightly into a data warehouse, with a read-only key.
#
#   WREN_URL=https://stats.example.com WREN_KEY=wren_… SITE_ID=site_… OUT_DIR=/var/lib/warehouse/wren \
#   ./nightly-pull.sh
#
# WREN_KEY needs only read:reports, limited to the sites it pulls
# (`wren keys create --scopes read:reports --sites SITE_ID`). Two calls a night: pages and vitals,
# as newline-delimited JSON, one file each. Figures keep their qualifier (exact, estimated,
# suppressed): load them as they are.
set -euo pipefail
: "${WREN_URL:?set WREN_URL}" "${WREN_KEY:?set WREN_KEY}" "${SITE_ID:?set SITE_ID}" "${OUT_DIR:?set OUT_DIR}"
day=$(date -u -d yesterday +%F 2>/dev/null || date -u -v-1d +%F)
mkdir -p "$OUT_DIR"
for report in pages vitals; do
  file="$OUT_DIR/$report-$day.ndjson"
  if ! curl --silent --show-error --fail-with-body \
    "$WREN_URL/api/v1/$report?site=$SITE_ID&from=$day&to=$day" \
    -H "Authorization: Bearer $WREN_KEY" \
    -H "Accept: application/x-ndjson" \
    -o "$file"; then
    echo "Wren refused the $report pull: $(cat "$file")" >&2
    rm -f "$file"
    exit 1
  fi
  echo "$report: $(wc -l <"$file") rows → $file"
done
