# Sourced by the scenario scripts: one `kw serve` on the embedded store, plain HTTP on a
# free 127.0.0.1 port. Needs $KW_SERVE (the binary) and $work (the scenario's temp dir),
# takes more flags from $KW_SERVE_ARGS;
# sets port, url and server_pid. The server is bounded by `timeout` so a scenario that dies
# early cannot leave it behind for long.

server_pid=""
port=""
url=""

free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# The server runs under `timeout` (server_pid is timeout's): SIGKILL goes to the server
# itself first, then to timeout, which could not pass a SIGKILL on.
kill_server() {
  [[ -n "$server_pid" ]] || return 0
  pkill -KILL -P "$server_pid" 2>/dev/null || true
  kill -KILL "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

# Starts the server (again on the same port after a kill_server) and returns once this
# server, not another test's on a reused port, printed its banner and /readyz answers.
start_server() {
  [[ -n "$port" ]] || { port=$(free_port); url="http://127.0.0.1:$port"; }
  local banner="serving HTTP/1.1 and h2c on $url" before
  before=$(grep -c "$banner" "$work/server.log" 2>/dev/null || true)
  # shellcheck disable=SC2086  # KW_SERVE_ARGS: extra flags, split on spaces
  timeout "${KW_SERVE_TIMEOUT:-110}" "$KW_SERVE" serve --data-dir "$work/data" --insecure-port "$port" \
    --secure-port 0 ${KW_SERVE_ARGS:-} >>"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 150); do
    kill -0 "$server_pid" 2>/dev/null || break
    if [[ $(grep -c "$banner" "$work/server.log" 2>/dev/null || true) -gt ${before:-0} ]] &&
       curl -sf "$url/readyz" >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.1
  done
  echo "kw serve did not start; its log:"
  cat "$work/server.log"
  exit 1
}

# `cmd | contains PATTERN` tests cmd's output like `grep -q`, but reads all of it first.
# Under `set -o pipefail`, `grep -q` exits at the first match and a writer still printing
# dies of SIGPIPE, which fails the pipeline at random.
contains() {
  local text
  text=$(cat)
  grep -q "$@" <<<"$text"
}
