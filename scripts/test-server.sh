# Sourced by the packages' scripts/start-*.sh (fake-gcs-server, moto, PostgreSQL): what every
# test server's script does the same way. The sourcing script sets STATE (its state file, of
# VAR=value lines) and defines `answers URL`, which succeeds when the server serves.

# A free port on 127.0.0.1 for the server to listen on.
free_port() {
  node -e 'const s = require("node:net").createServer();
    s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

# The state as export lines, for the caller's eval.
print_state() {
  sed 's/^/export /' "$STATE"
}

# Stops the server whose pid the state records in the variable named $1, and forgets it.
stop_recorded() {
  if [[ -f "$STATE" ]]; then
    # shellcheck source=/dev/null
    source "$STATE"
    kill "${!1}" 2>/dev/null || true
    rm -f "$STATE"
  fi
}

# Succeeds when the recorded server (pid in the variable named $1, URL in the one named $2)
# still runs and answers, so that a second start reuses it.
reuse_recorded() {
  [[ -f "$STATE" ]] || return 1
  # shellcheck source=/dev/null
  source "$STATE"
  kill -0 "${!1}" 2>/dev/null && answers "${!2}"
}

# Waits up to $1 tenths of a second for the server started as pid $2 to answer on $3, then
# records the state lines $4 and prints them. A server that dies or never answers is
# stopped, and the script fails with the message $5 and the server's log $6.
await_server() {
  local tries=$1 pid=$2 endpoint=$3 state_lines=$4 failure=$5 log=$6
  for _ in $(seq 1 "$tries"); do
    if answers "$endpoint"; then
      printf '%s\n' "$state_lines" >"$STATE"
      print_state
      return
    fi
    if ! kill -0 "$pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  echo "$failure; log:" >&2
  cat "$log" >&2
  exit 1
}
