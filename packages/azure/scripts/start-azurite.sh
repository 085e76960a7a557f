#!/usr/bin/env bash
# Starts Azurite's Blob service for the @artifact-kit/azure tests and prints how to reach it.
#
#   eval "$(bash packages/azure/scripts/start-azurite.sh)"   # exports AZURITE_BLOB_ENDPOINT,
#                                                            # AZURITE_PID, AZURE_STORAGE_CONNECTION_STRING
#   bash packages/azure/scripts/start-azurite.sh --install   # only install the pinned server
#   bash packages/azure/scripts/start-azurite.sh --stop      # stop the server this script started
#
# Idempotent: Azurite is installed once per version with npm into a cache folder
# (AZURITE_CACHE, default ~/.cache/artifact-kit), and a server it already started that still
# answers is reused (AZURITE_STATE_DIR gives a caller its own). The server listens on a free
# 127.0.0.1 port, keeps blobs in memory, speaks plain HTTP, and logs to its state folder. The
# connection string names Azurite's well-known development account (devstoreaccount1), whose
# key is published with the emulator. The life cycle is scripts/lib/test-server.sh's.
set -euo pipefail

# 3.37.0: Put Blob and Put Block List with If-None-Match: * answer 409 BlobAlreadyExists on an
# existing blob, and If-Match on Delete Blob answers 412 (checked by open()'s probe in every run).
readonly VERSION="3.37.0"
readonly CACHE="${AZURITE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/artifact-kit}"
readonly PREFIX="$CACHE/azurite-$VERSION"
readonly BIN="$PREFIX/node_modules/.bin/azurite-blob"
# The blob service with its extent garbage collector off (why: in the launcher).
LAUNCHER="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/azurite-blob.cjs"
readonly LAUNCHER
readonly SERVER_NAME="azurite $VERSION"
readonly STATE="${AZURITE_STATE_DIR:-$CACHE/azurite/run}/azurite.env"
readonly ENDPOINT_VAR=AZURITE_BLOB_ENDPOINT PID_VAR=AZURITE_PID WAIT_TENTHS=600
# Azurite's development account and its published key (the emulator accepts no other).
readonly ACCOUNT=devstoreaccount1
readonly ACCOUNT_KEY="Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

install_server() {
  if [[ -x "$BIN" ]]; then return; fi
  require_command npm "install it"
  echo "start-azurite: installing azurite@$VERSION into $PREFIX (once)" >&2
  # A failed install leaves no azurite-blob behind, so the next run starts over.
  rm -rf "$PREFIX"
  mkdir -p "$PREFIX"
  npm install --prefix "$PREFIX" --no-audit --no-fund --loglevel=error "azurite@$VERSION" >&2 || {
    rm -rf "$PREFIX"
    exit 1
  }
}

# Any answer from Azurite's blob service (an unsigned request is refused, but answered).
answers() {
  node -e 'fetch(`${process.argv[1]}/${process.argv[2]}?comp=list`, { signal: AbortSignal.timeout(2000) })
    .then((r) => process.exit(r.headers.get("server")?.startsWith("Azurite-Blob") ? 0 : 1), () => process.exit(1))' \
    "$1" "$ACCOUNT"
}

launch() {
  local workspace
  workspace="$(dirname "$STATE")/workspace"
  mkdir -p "$workspace"
  # Azurite refuses --location with --inMemoryPersistence; its working folder is the state's.
  cd "$workspace"
  # --skipApiVersionCheck: a newer @azure/storage-blob than the pinned emulator may ask for a
  # newer service version; the requests the adapter makes are the same.
  exec nohup node "$LAUNCHER" "$PREFIX/node_modules/azurite" --blobHost 127.0.0.1 --blobPort "$1" --inMemoryPersistence \
    --skipApiVersionCheck --disableTelemetry --silent
}

state_extras() {
  printf "AZURE_STORAGE_CONNECTION_STRING='DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=%s/%s;'\n" \
    "$ACCOUNT" "$ACCOUNT_KEY" "$1" "$ACCOUNT"
}

# shellcheck source=../../../scripts/lib/test-server.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib/test-server.sh"
run_server_script "$@"
