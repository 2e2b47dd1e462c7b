#!/usr/bin/env bash
# Installs what the test suites drive, before tap starts (so no install ever runs inside a test
# with a per-test timeout): the three browser engines and a shared cache, all Debian packages.
# Missing and not root: fails with the exact command. Never skips.
set -euo pipefail

# package -> the file the suites run (test/helpers/*.ts and test/browser/engines.ts name the same paths)
declare -A NEEDS=(
  [chromium]=/usr/lib/chromium/chromium
  [firefox-esr]=/usr/lib/firefox-esr/firefox-esr
  [webkit2gtk-driver]=/usr/bin/WebKitWebDriver
  [xvfb]=/usr/bin/Xvfb
  [varnish]=/usr/sbin/varnishd
)

missing=()
for package in chromium firefox-esr webkit2gtk-driver xvfb varnish; do
  [ -x "${NEEDS[$package]}" ] || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

# --no-install-recommends: without it apt pulls dozens of codec packages and upgrades mesa.
command="apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${missing[*]}"
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "The test suites need Debian packages that are missing: ${missing[*]}" >&2
  echo "Install them with: sudo sh -c '$command'" >&2
  exit 1
fi
echo "Installing for the test suites: ${missing[*]} (about a minute, once)"
sh -c "$command" >/dev/null
for package in "${missing[@]}"; do
  if [ ! -x "${NEEDS[$package]}" ]; then
    echo "apt-get installed $package, but ${NEEDS[$package]} is still missing" >&2
    exit 1
  fi
done
