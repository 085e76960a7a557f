#!/usr/bin/env bash
# Fails when a published package changed since the last release without a changeset.
# The last release is the last "Version Packages" commit (changesets' release pull
# request), or the first commit while nothing has been released.
set -euo pipefail
cd "$(dirname "$0")/.."
base=$(git log --format=%H --grep='^Version Packages' -n 1)
[ -n "$base" ] || base=$(git rev-list --max-parents=0 HEAD | tail -n 1)
node scripts/pnpm.mjs exec changeset status --since="$base"
