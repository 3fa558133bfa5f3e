#!/usr/bin/env bash
# Installs what the test suite needs from Debian's packages: Chromium for the browser tests
# (driven by playwright-core; no browser is ever downloaded). Safe to run again.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo present)"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null
echo "chromium: $(/usr/bin/chromium --version)"
