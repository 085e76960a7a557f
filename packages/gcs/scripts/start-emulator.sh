#!/usr/bin/env bash
# Starts fake-gcs-server for the @artifact-kit/gcs tests and prints how to reach it.
#
#   eval "$(bash packages/gcs/scripts/start-emulator.sh)"   # exports STORAGE_EMULATOR_HOST, FAKE_GCS_PID
#   bash packages/gcs/scripts/start-emulator.sh --install   # only build the pinned binary
#   bash packages/gcs/scripts/start-emulator.sh --stop      # stop the emulator this script started
#
# Idempotent: the binary is built once per version with `go install` into a cache folder
# (FAKE_GCS_CACHE, default ~/.cache/artifact-kit), and an emulator it already started that
# still answers is reused (FAKE_GCS_STATE_DIR gives a caller its own). The emulator listens on a free 127.0.0.1 port, keeps objects in
# memory, speaks plain HTTP, and logs to its state folder.
set -euo pipefail
# shellcheck source=../../../scripts/test-server.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/test-server.sh"

# v1.56.1: create-only uploads (ifGenerationMatch=0) answer 412 for multipart and resumable.
readonly VERSION="v1.56.1"
readonly MODULE="github.com/fsouza/fake-gcs-server"
readonly CACHE="${FAKE_GCS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/artifact-kit}"
readonly BIN_DIR="$CACHE/fake-gcs-server/$VERSION"
readonly BIN="$BIN_DIR/fake-gcs-server"
readonly STATE_DIR="${FAKE_GCS_STATE_DIR:-$CACHE/fake-gcs-server/run}"
readonly STATE="$STATE_DIR/emulator.env"

install_binary() {
  if [[ -x "$BIN" ]]; then return; fi
  if ! command -v go >/dev/null 2>&1; then
    echo "start-emulator: Go is needed to build fake-gcs-server $VERSION" >&2
    exit 1
  fi
  mkdir -p "$BIN_DIR"
  echo "start-emulator: building fake-gcs-server $VERSION (once)" >&2
  GOBIN="$BIN_DIR" GOFLAGS="${GOFLAGS:-} -buildvcs=false" go install "$MODULE@$VERSION" >&2
}

answers() {
  node -e 'fetch(`${process.argv[1]}/storage/v1/b?project=artifact-kit`, { signal: AbortSignal.timeout(2000) })
    .then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$1"
}

start() {
  install_binary
  if reuse_recorded FAKE_GCS_PID STORAGE_EMULATOR_HOST; then
    print_state
    return
  fi
  mkdir -p "$STATE_DIR"
  local port endpoint pid
  port="$(free_port)"
  endpoint="http://127.0.0.1:$port"
  nohup "$BIN" -scheme http -backend memory -host 127.0.0.1 -port "$port" \
    -public-host "127.0.0.1:$port" -external-url "$endpoint" -log-level warn \
    >"$STATE_DIR/emulator.log" 2>&1 </dev/null &
  pid=$!
  await_server 100 "$pid" "$endpoint" \
    "$(printf 'STORAGE_EMULATOR_HOST=%s\nFAKE_GCS_PID=%s\n' "$endpoint" "$pid")" \
    "start-emulator: fake-gcs-server did not answer on $endpoint" "$STATE_DIR/emulator.log"
}

case "${1:-}" in
  --install) install_binary ;;
  --stop) stop_recorded FAKE_GCS_PID ;;
  "") start ;;
  *)
    echo "usage: start-emulator.sh [--install | --stop]" >&2
    exit 2
    ;;
esac
