#!/usr/bin/env bash
# Validates .github/workflows with actionlint, built from the Go module proxy on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
ACTIONLINT_VERSION=v1.7.12
bin_dir="$PWD/.tools/bin"
if [ ! -x "$bin_dir/actionlint" ] || ! "$bin_dir/actionlint" -version | grep -q "${ACTIONLINT_VERSION#v}"; then
  echo "installing actionlint $ACTIONLINT_VERSION"
  GOBIN="$bin_dir" go install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION"
fi
"$bin_dir/actionlint" -color=false .github/workflows/*.yml
echo "workflows: actionlint found nothing"
