#!/usr/bin/env bash
# Pattern 3: pull the last whole day's aggregates nightly into a data warehouse, with a read-only key.
#
#   WREN_URL=https://stats.example.com WREN_KEY=wren_… SITE_ID=site_… OUT_DIR=/var/lib/warehouse/wren \
#   ./nightly-pull.sh
#
# WREN_KEY needs only read:reports, limited to the sites it pulls
# (`wren keys create --scopes read:reports --sites SITE_ID`). Two calls a night: pages and vitals,
# as newline-delimited JSON, one file each, named by the day. Figures keep their qualifier
# (exact, estimated, suppressed): load them as they are.
#
# The day is "yesterday" in the SITE's time zone, not the machine's or UTC's: the first call asks
# for `period=day`, which the API resolves to the last day that has ended (and been published)
# in the site's zone, and names in its Wren-Published-Through header; the second asks for that
# same day. Run it any time of day, but not within a minute after midnight in the site's zone
# (a day is published 15–25 s after it ends there; until then the day before is the last).
# DAY=YYYY-MM-DD pulls a given day instead (a missed night); a day that has not ended is refused.
set -euo pipefail
: "${WREN_URL:?set WREN_URL}" "${WREN_KEY:?set WREN_KEY}" "${SITE_ID:?set SITE_ID}" "${OUT_DIR:?set OUT_DIR}"
mkdir -p "$OUT_DIR"
work=$(mktemp -d "$OUT_DIR/.nightly-pull.XXXXXX")
trap 'rm -rf "$work"' EXIT

# pull REPORT QUERY: the report as NDJSON into $work/REPORT.ndjson, its headers into $work/REPORT.headers.
pull() {
  if ! curl --silent --show-error --fail-with-body \
    "$WREN_URL/api/v1/$1?site=$SITE_ID&$2" \
    -H "Authorization: Bearer $WREN_KEY" \
    -H "Accept: application/x-ndjson" \
    -D "$work/$1.headers" \
    -o "$work/$1.ndjson"; then
    echo "Wren refused the $1 pull: $(cat "$work/$1.ndjson" 2>/dev/null)" >&2
    exit 1
  fi
}

if [[ -n "${DAY:-}" ]]; then
  day=$DAY
  pull pages "period=day&date=$day"
else
  pull pages "period=day"
  day=$(awk 'tolower($1) == "wren-published-through:" { print $2 }' "$work/pages.headers" | tr -d '\r' | tail -n 1)
  if [[ ! "$day" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]]; then
    echo "Wren's pages reply named no day (no Wren-Published-Through header)" >&2
    exit 1
  fi
fi
pull vitals "from=$day&to=$day"
for report in pages vitals; do
  file="$OUT_DIR/$report-$day.ndjson"
  mv "$work/$report.ndjson" "$file"
  echo "$report: $(wc -l <"$file") rows → $file"
done
