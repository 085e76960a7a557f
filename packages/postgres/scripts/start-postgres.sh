#!/usr/bin/env bash
# Starts a throwaway PostgreSQL 15 server for the @artifact-kit/postgres tests and prints how
# to reach it.
#
#   eval "$(bash packages/postgres/scripts/start-postgres.sh)"   # exports DATABASE_URL, PG_STATE_DIR
#   bash packages/postgres/scripts/start-postgres.sh --install   # only install PostgreSQL 15
#   bash packages/postgres/scripts/start-postgres.sh --stop      # stop it and remove its files
#
# Idempotent: a server this script already started under the same state folder that still
# answers is reused. PG_STATE_DIR (default /tmp/artifact-kit-postgres) gives a caller its own.
# The cluster is created with `initdb` (trust authentication, UTF8, locale C) in that folder,
# listens only on 127.0.0.1 on a free port (its socket in the folder too), and a fresh
# database is created for the run. initdb and pg_ctl refuse to run as root, so as root they
# run as the `postgres` user. The server is for tests: fsync is off.
set -euo pipefail

readonly PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
readonly STATE_DIR="${PG_STATE_DIR:-/tmp/artifact-kit-postgres}"
readonly DATA="$STATE_DIR/data"
readonly STATE="$STATE_DIR/postgres.env"
readonly DATABASE="${PG_DATABASE:-artifact_kit}"

# free_port, print_state and run_server_script; start_server, stop_running and reuse_running
# are this script's own (below): pg_ctl, not a process of the script's, runs the server.
# shellcheck source=../../../scripts/lib/test-server.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../../scripts/lib/test-server.sh"

install_server() {
  if [[ -x "$PG_BIN/initdb" && -x "$PG_BIN/pg_ctl" ]]; then return; fi
  if [[ "$(id -u)" != 0 ]]; then
    echo "start-postgres: PostgreSQL 15 is missing ($PG_BIN); install postgresql-15 as root" >&2
    exit 1
  fi
  echo "start-postgres: installing postgresql-15 (once)" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >&2
}

# Runs a server binary as the user that owns the cluster.
as_owner() {
  if [[ "$(id -u)" == 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

answers() {
  as_owner "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$1" -d "$DATABASE" -U postgres
}

stop_running() {
  if [[ -d "$DATA" ]]; then
    as_owner "$PG_BIN/pg_ctl" stop -D "$DATA" -m immediate -s >/dev/null 2>&1 || true
  fi
  rm -rf "$DATA" "$STATE" "$STATE_DIR/postgres.log"
}

reuse_running() {
  [[ -f "$STATE" ]] || return 1
  # shellcheck source=/dev/null
  source "$STATE"
  answers "$PG_PORT"
}

start_server() {
  install_locked
  if reuse_running; then
    print_state
    return
  fi
  stop_running
  mkdir -p "$STATE_DIR"
  if [[ "$(id -u)" == 0 ]]; then chown postgres: "$STATE_DIR"; fi
  as_owner "$PG_BIN/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 --locale=C >/dev/null
  local port
  port="$(free_port)"
  if ! as_owner "$PG_BIN/pg_ctl" start -D "$DATA" -w -t 60 -s -l "$STATE_DIR/postgres.log" \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories='$STATE_DIR' -c fsync=off -c max_connections=200" \
    >/dev/null; then
    echo "start-postgres: the server did not start; log:" >&2
    cat "$STATE_DIR/postgres.log" >&2
    exit 1
  fi
  as_owner "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres "$DATABASE"
  printf 'DATABASE_URL=postgres://postgres@127.0.0.1:%s/%s\nPG_PORT=%s\nPG_STATE_DIR=%s\n' \
    "$port" "$DATABASE" "$port" "$STATE_DIR" >"$STATE"
  print_state
}

run_server_script "$@"
