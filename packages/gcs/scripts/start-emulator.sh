#!/usr/bin/env bash
# Starts fake-gcs-server for the @artifact-kit/gcs tests and prints how to reach it.
#
#   eval "$(bash packages/gcs/scripts/start-emulator.sh)"   # exports STORAGE_EMULATOR_HOST, FAKE_GCS_PID
#   bash packages/gcs/scripts/start-emulator.sh --install   # only build the pinned binary
#   bash packages/gcs/scripts/start-emulator.sh --stop      # stop the emulator this script started
#
# Idempotent: the binary is built once per version with `go install` into a cache folder
# (FAKE_GCS_CACHE, default ~/.cache/artifact-kit), and an emulator it already started that
# still answers is reused (FAKE_GCS_STATE_DIR gives a caller its own). The emulator listens on
# a free 127.0.0.1 port, keeps objects in memory, speaks plain HTTP, and logs to its state
# folder. The life cycle is scripts/lib/test-server.sh's.
set -euo pipefail

# v1.56.1: create-only uploads (ifGenerationMatch=0) answer 412 for multipart and resumable.
readonly VERSION="v1.56.1"
readonly MODULE="github.com/fsouza/fake-gcs-server"
readonly CACHE="${FAKE_GCS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/artifact-kit}"
readonly BIN_DIR="$CACHE/fake-gcs-server/$VERSION"
readonly BIN="$BIN_DIR/fake-gcs-server"
readonly SERVER_NAME="fake-gcs-server $VERSION"
readonly STATE="${FAKE_GCS_STATE_DIR:-$CACHE/fake-gcs-server/run}/emulator.env"
readonly ENDPOINT_VAR=STORAGE_EMULATOR_HOST PID_VAR=FAKE_GCS_PID WAIT_TENTHS=600

install_server() {
  if [[ -x "$BIN" ]]; then return; fi
  require_command go "build it"
  mkdir -p "$BIN_DIR"
  echo "start-emulator: building fake-gcs-server $VERSION (once)" >&2
  GOBIN="$BIN_DIR" GOFLAGS="${GOFLAGS:-} -buildvcs=false" go install "$MODULE@$VERSION" >&2
}

answers() {
  node -e 'fetch(`${process.argv[1]}/storage/v1/b?project=artifact-kit`, { signal: AbortSignal.timeout(2000) })
    .then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$1"
}

launch() {
  exec nohup "$BIN" -scheme http -backend memory -host 127.0.0.1 -port "$1" \
    -public-host "127.0.0.1:$1" -external-url "$2" -log-level warn
}

# shellcheck source=../../../scripts/lib/test-server.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib/test-server.sh"
run_server_script "$@"
