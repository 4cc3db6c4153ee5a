#!/usr/bin/env bash
# Chaos soak: a steady write load and resumable watchers (kw get -w and the Python client)
# against kw serve on its embedded store, killed with SIGKILL and restarted, and against two
# kw serve on a 3-member etcd cluster (kw and etcd members killed, a compaction mid-run).
# Checks that no acknowledged write is lost, that every watcher sees each change once and in
# order (resumed, or relisted after 410 Gone), and that the servers' RSS comes back.
#
# usage: scripts/soak.sh [SECONDS] [embedded|etcd ...]
#   SECONDS   load time per scenario (default $KW_SOAK_SECONDS, else 600)
#   KW_BIN    the kw binary (default build/cli/kw)
#   KW_SOAK_ARGS  extra driver options, e.g. "--writers 6 --keep --json out.json"
# Exit status 1 on any violation. Details: tests/soak/soak.py.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-${KW_SOAK_SECONDS:-600}}
[[ $# -gt 0 ]] && shift
export KW_BIN=${KW_BIN:-$root/build/cli/kw}
[[ -x $KW_BIN ]] || { echo "soak: $KW_BIN not built (ninja -C build kw)" >&2; exit 1; }
# shellcheck disable=SC2086
exec /usr/bin/python3 "$root/tests/soak/soak.py" --seconds "$seconds" ${KW_SOAK_ARGS:-} "$@"
