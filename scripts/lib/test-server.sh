# shellcheck shell=bash
# The life cycle shared by the start scripts of the test servers (packages/*/scripts/start-*.sh):
# install once, reuse a server the script started that still answers, else start one on a
# free 127.0.0.1 port, record how to reach it in a state file, print it as `export` lines.
#
# Sourced by a start script after it has set:
#   SERVER_NAME   the server, in messages
#   STATE         the state file (KEY=value lines), in the caller's own state folder
#   ENDPOINT_VAR  the name of the variable in STATE holding the server's URL
#   PID_VAR       the name of the variable in STATE holding the server's process id
#   WAIT_TENTHS   how many tries, a tenth of a second apart, a new server gets to answer
#                 (each try starts node, a second or more on a loaded machine: be generous)
# and defined:
#   install_server          installs the pinned server once (a no-op when present); the
#                           library calls it under a lock (install_locked)
#   answers URL             succeeds when the server at URL answers
#   launch PORT URL         execs the server in the foreground (the library backgrounds it)
# and may define:
#   state_extras URL        prints more KEY=value lines for STATE (quoted for the shell where
#                           a value needs it), e.g. a connection string built from URL
# A script whose server is not one process of its own (postgres) defines its own
# start_server and stop_running after sourcing this, and uses the rest.

# Exits with a message unless COMMAND is on the PATH; PURPOSE says what it is needed for.
require_command() {
  if ! command -v "$1" >/dev/null 2>&1; then
    echo "$SERVER_NAME: $1 is needed to $2" >&2
    exit 1
  fi
}

free_port() {
  node -e 'const s = require("node:net").createServer();
    s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

print_state() {
  sed 's/^/export /' "$STATE"
}

stop_running() {
  if [[ -f "$STATE" ]]; then
    # shellcheck source=/dev/null
    source "$STATE"
    kill "${!PID_VAR}" 2>/dev/null || true
    rm -f "$STATE"
  fi
}

reuse_running() {
  [[ -f "$STATE" ]] || return 1
  # shellcheck source=/dev/null
  source "$STATE"
  kill -0 "${!PID_VAR}" 2>/dev/null && answers "${!ENDPOINT_VAR}"
}

# install_server under a lock shared by every start script of every checkout: two test runs
# installing the same server at once removed each other's half-installed files (a failed CI
# run); now one installs and the other waits, then finds it installed.
install_locked() {
  local dir="${XDG_CACHE_HOME:-$HOME/.cache}/artifact-kit"
  mkdir -p "$dir"
  (
    flock 9
    install_server
  ) 9>"$dir/install.lock"
}

start_server() {
  install_locked
  if reuse_running; then
    print_state
    return
  fi
  local state_dir log port endpoint pid
  state_dir="$(dirname "$STATE")"
  log="${STATE%.env}.log"
  mkdir -p "$state_dir"
  port="$(free_port)"
  endpoint="http://127.0.0.1:$port"
  (launch "$port" "$endpoint") >"$log" 2>&1 </dev/null &
  pid=$!
  for _ in $(seq 1 "$WAIT_TENTHS"); do
    if answers "$endpoint"; then
      printf '%s=%s\n%s=%s\n' "$ENDPOINT_VAR" "$endpoint" "$PID_VAR" "$pid" >"$STATE"
      if declare -F state_extras >/dev/null; then state_extras "$endpoint" >>"$STATE"; fi
      print_state
      return
    fi
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  echo "$SERVER_NAME did not answer on $endpoint; log:" >&2
  cat "$log" >&2
  exit 1
}

# The scripts' one interface: no argument starts (or reuses), --install, --stop.
run_server_script() {
  case "${1:-}" in
    --install) install_locked ;;
    --stop) stop_running ;;
    "") start_server ;;
    *)
      echo "usage: $(basename "$0") [--install | --stop]" >&2
      exit 2
      ;;
  esac
}
