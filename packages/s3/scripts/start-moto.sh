#!/usr/bin/env bash
# Starts moto's standalone S3 server for the @artifact-kit/s3 tests and prints how to reach it.
#
#   eval "$(bash packages/s3/scripts/start-moto.sh)"   # exports S3_ENDPOINT, MOTO_PID
#   bash packages/s3/scripts/start-moto.sh --install   # only install the pinned server
#   bash packages/s3/scripts/start-moto.sh --stop      # stop the server this script started
#
# Idempotent: moto is installed once per version into a Python virtual environment in a
# cache folder (MOTO_CACHE, default ~/.cache/artifact-kit), and a server it already started
# that still answers is reused (MOTO_STATE_DIR gives a caller its own). The server listens on
# a free 127.0.0.1 port, keeps objects in memory, speaks plain HTTP, and logs to its state
# folder.
set -euo pipefail
# shellcheck source=../../../scripts/test-server.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/test-server.sh"

# 5.2.5: PutObject and CompleteMultipartUpload with If-None-Match: * answer 412 on an
# existing key (checked by packages/s3/test/server.test.ts).
readonly VERSION="5.2.5"
readonly CACHE="${MOTO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/artifact-kit}"
readonly VENV="$CACHE/moto-$VERSION"
readonly BIN="$VENV/bin/moto_server"
readonly STATE_DIR="${MOTO_STATE_DIR:-$CACHE/moto/run}"
readonly STATE="$STATE_DIR/moto.env"

install_server() {
  if [[ -x "$BIN" ]]; then return; fi
  if ! command -v python3 >/dev/null 2>&1; then
    echo "start-moto: python3 is needed to install moto $VERSION" >&2
    exit 1
  fi
  echo "start-moto: installing moto[server]==$VERSION into $VENV (once)" >&2
  # A failed install leaves no moto_server behind, so the next run starts over.
  rm -rf "$VENV"
  python3 -m venv "$VENV" >&2
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$VERSION" >&2 || {
    rm -rf "$VENV"
    exit 1
  }
}

answers() {
  node -e 'fetch(`${process.argv[1]}/moto-api/`, { signal: AbortSignal.timeout(2000) })
    .then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$1"
}

start() {
  install_server
  if reuse_recorded MOTO_PID S3_ENDPOINT; then
    print_state
    return
  fi
  mkdir -p "$STATE_DIR"
  local port endpoint pid
  port="$(free_port)"
  endpoint="http://127.0.0.1:$port"
  nohup "$BIN" -H 127.0.0.1 -p "$port" >"$STATE_DIR/moto.log" 2>&1 </dev/null &
  pid=$!
  await_server 200 "$pid" "$endpoint" \
    "$(printf 'S3_ENDPOINT=%s\nMOTO_PID=%s\n' "$endpoint" "$pid")" \
    "start-moto: moto_server did not answer on $endpoint" "$STATE_DIR/moto.log"
}

case "${1:-}" in
  --install) install_server ;;
  --stop) stop_recorded MOTO_PID ;;
  "") start ;;
  *)
    echo "usage: start-moto.sh [--install | --stop]" >&2
    exit 2
    ;;
esac
