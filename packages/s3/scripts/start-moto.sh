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
# folder. The life cycle is scripts/lib/test-server.sh's.
set -euo pipefail

# 5.2.5: PutObject and CompleteMultipartUpload with If-None-Match: * answer 412 on an
# existing key (checked by open()'s probe in every test run).
readonly VERSION="5.2.5"
readonly CACHE="${MOTO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/artifact-kit}"
readonly VENV="$CACHE/moto-$VERSION"
readonly BIN="$VENV/bin/moto_server"
LAUNCHER="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/moto-server.py"
readonly LAUNCHER
readonly SERVER_NAME="moto_server $VERSION"
readonly STATE="${MOTO_STATE_DIR:-$CACHE/moto/run}/moto.env"
readonly ENDPOINT_VAR=S3_ENDPOINT PID_VAR=MOTO_PID WAIT_TENTHS=1200

install_server() {
  if [[ -x "$BIN" ]]; then return; fi
  require_command python3 "install it"
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

# moto's own server, through a launcher that makes each object write atomic (see it).
launch() {
  exec nohup "$VENV/bin/python" "$LAUNCHER" -H 127.0.0.1 -p "$1"
}

# shellcheck source=../../../scripts/lib/test-server.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib/test-server.sh"
run_server_script "$@"
