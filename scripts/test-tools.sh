#!/usr/bin/env bash
# Installs what the test suites drive, before tap starts (so no install ever runs inside a test
# with a per-test timeout): the three browser engines, a shared cache, and curl (the examples'
# printed commands run as printed), and the stores of the origin-store suites (redis-server,
# PostgreSQL: each test file starts its own on loopback), all Debian packages.
# Missing and not root: fails with the exact command. Never skips. Then checks that chromium
# and firefox-esr are at least the versions the browser suites are run with (MINIMUM below, the
# same as MINIMUM_MAJOR in test/browser/engines.ts): an older one fails here, in one line.
# TEST_TOOLS_ROOT (default: none) is put before every path, for the script's own test.
set -euo pipefail

root="${TEST_TOOLS_ROOT:-}"

# package -> the file the suites run (test/helpers/*.ts and test/browser/engines.ts name the same paths)
declare -A NEEDS=(
  [chromium]=$root/usr/lib/chromium/chromium
  [firefox-esr]=$root/usr/lib/firefox-esr/firefox-esr
  [webkit2gtk-driver]=$root/usr/bin/WebKitWebDriver
  [xvfb]=$root/usr/bin/Xvfb
  [varnish]=$root/usr/sbin/varnishd
  [curl]=$root/usr/bin/curl
  [redis-server]=$root/usr/bin/redis-server
  [postgresql]=$root/usr/lib/postgresql/15/bin/postgres
)

# The oldest major version of each browser the suites are run with in full: Debian 12's own
# (chromium 150.0.7871.100, firefox-esr 140.12.0esr); its security updates bring 156 and 153.
declare -A MINIMUM=(
  [chromium]=150
  [firefox-esr]=140
)

missing=()
for package in chromium firefox-esr webkit2gtk-driver xvfb varnish curl redis-server postgresql; do
  [ -x "${NEEDS[$package]}" ] || missing+=("$package")
done

if [ ${#missing[@]} -gt 0 ]; then
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
fi

# `chromium --version` prints "Chromium 156.0.8078.108", `firefox-esr --version` "Mozilla Firefox 153.7.0esr".
old=()
found=()
for package in chromium firefox-esr; do
  version=$("${NEEDS[$package]}" --version 2>/dev/null | grep -oE '[0-9]+\.[0-9][0-9a-z.]*' | head -n 1 || true)
  if [ -z "$version" ]; then
    old+=("$package")
    found+=("$package: no version from ${NEEDS[$package]} --version, minimum ${MINIMUM[$package]}")
  elif [ "${version%%.*}" -lt "${MINIMUM[$package]}" ]; then
    old+=("$package")
    found+=("$package $version, minimum ${MINIMUM[$package]}")
  fi
done
if [ ${#old[@]} -gt 0 ]; then
  list=$(printf '%s; ' "${found[@]}")
  echo "Too old for the browser suites: ${list%; }. Upgrade with: sudo sh -c 'apt-get update -qq && apt-get install -y -qq --only-upgrade ${old[*]}'" >&2
  exit 1
fi
