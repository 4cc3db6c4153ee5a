#!/usr/bin/env bash
# Builds the libFuzzer targets in build-fuzz with clang and runs each for N seconds
# (default 5) on its seed corpus in tests/fuzz/corpus/<target>/.
#   scripts/fuzz.sh [seconds] [target...]   (fuzz_request, the whole request path, only when named)

set -euo pipefail

seconds=${1:-5}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(fuzz_json_frame fuzz_length_prefixed_frame fuzz_yaml_frame fuzz_yaml_to_json fuzz_selector fuzz_media_type
    fuzz_json_cursor fuzz_protobuf_wire fuzz_protobuf fuzz_jsonpath fuzz_kubeconfig fuzz_patch
    fuzz_http_connection)
fi

# A clang whose C++23 mode has std::expected, natively or with the macro raised (which
# CMakeLists.txt then does itself).
source "$root/scripts/clang.sh"
pick_clang
if [[ -z $cxx ]]; then
  echo "fuzz.sh: no clang++ can compile std::expected with libstdc++ (clang++-14 cannot);" >&2
  echo "fuzz.sh: install clang-16 and libfuzzer-16-dev (scripts/install-deps.sh lists them)" >&2
  exit 1
fi
echo "fuzz.sh: using $clang_note"

CC=$cc CXX=$cxx cmake -S "$root" -B "$build" -G Ninja -DKW_FUZZ=ON -DKW_PCH=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" > "$build.configure.log" 2>&1 || {
  cat "$build.configure.log" >&2
  exit 1
}
cmake --build "$build" --target "${targets[@]}" -j2

status=0
for target in "${targets[@]}"; do
  seeds=$root/tests/fuzz/corpus/$target
  work=$build/corpus/$target
  mkdir -p "$work" "$build/artifacts"
  echo "fuzz.sh: $target for ${seconds}s"
  if ! "$build/tests/fuzz/$target" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 \
      -timeout=10 -artifact_prefix="$build/artifacts/$target-" -print_final_stats=0 \
      "$work" "$seeds" > "$build/$target.log" 2>&1; then
    echo "fuzz.sh: $target FAILED; see $build/$target.log" >&2
    tail -40 "$build/$target.log" >&2
    status=1
  else
    grep -E "^#[0-9]+[[:space:]]*DONE" "$build/$target.log" || tail -1 "$build/$target.log"
  fi
done
exit $status
