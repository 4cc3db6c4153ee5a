#!/usr/bin/env bash
# Installs dependencies, builds kw and runs `kw serve` on the embedded store.
# Extra arguments go to `kw serve` (e.g. --etcd=http://127.0.0.1:2379).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export CCACHE_DIR=${CCACHE_DIR:-$(pwd)/.cache/ccache}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target kw -j "$(nproc)"
exec ./build/cli/kw serve --insecure-port "${KW_INSECURE_PORT:-8080}" "$@"
