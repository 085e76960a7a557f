#!/usr/bin/env bash
# Prints the path of a Chromium for the console's browser tests, installing Debian's
# `chromium` package when none is there (as root, which CI and the developers' machines are).
# Fails, never skips, when no browser can be had: the browser suite must run in CI.
set -euo pipefail
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "ensure-chromium: chromium is missing and installing it needs root" >&2
    exit 1
  fi
  {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
  } >&2
fi
command -v chromium
