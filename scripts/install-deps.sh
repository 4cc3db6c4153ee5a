#!/usr/bin/env bash
# Installs every build and test dependency of kw on Debian bookworm (run as root).
# Idempotent: when every package is already present it only checks and exits.
set -euo pipefail

packages=(
  build-essential cmake pkg-config ccache git
  libcli11-dev nlohmann-json3-dev libyaml-cpp-dev doctest-dev libbenchmark-dev
  libboost-dev libssl-dev libnghttp2-dev libcpp-httplib-dev
  libprotobuf-dev protobuf-compiler libgrpc++-dev protobuf-compiler-grpc
  libsqlite3-dev libjemalloc-dev libre2-dev zlib1g-dev
  etcd-server etcd-client
  python3 python3-kubernetes python3-websocket python3-yaml
  curl nghttp2-client openssl
  clang libfuzzer-14-dev libclang-rt-14-dev clang-16 libfuzzer-16-dev libclang-rt-16-dev
  zsh bash-completion man-db groff-base
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  SUDO=sudo
else
  SUDO=
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
