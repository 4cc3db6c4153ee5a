#!/usr/bin/env bash
# Builds the libFuzzer targets in build-fuzz with clang and runs each for N seconds
# (default 5) on its seed corpus in tests/fuzz/corpus/<target>/.
#   scripts/fuzz.sh [seconds] [target...]   (fuzz_request, the whole request path, only when named)
#
# libstdc++ 12's <expected> is only enabled when __cpp_concepts >= 202002L. clang 14-16
# report 201907L, so std::expected (kw::Result) does not exist there. clang 16 does
# implement what <expected> needs (P0848, conditionally trivial special members), so with
# clang 16 the macro is raised (CMakeLists.txt does it for any clang before 17); clang 14
# cannot compile it at all.
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

# Pick a clang whose C++23 mode has std::expected, natively or with the macro raised (which
# CMakeLists.txt then does itself).
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <expected>\nint main() { std::expected<int, int> e{1}; return *e - 1; }\n' > "$probe/p.cpp"
chosen=""
for version in 19 18 17 16 15 14 ""; do
  cxx=clang++${version:+-$version}
  cc=clang${version:+-$version}
  command -v "$cxx" > /dev/null || continue
  if "$cxx" -std=c++2b "$probe/p.cpp" -o "$probe/p" 2> /dev/null; then
    chosen=$cxx; break
  fi
  if "$cxx" -std=c++2b -D__cpp_concepts=202002L -Wno-macro-redefined "$probe/p.cpp" -o "$probe/p" 2> /dev/null; then
    chosen="$cxx (__cpp_concepts raised)"; break
  fi
done
if [[ -z $chosen ]]; then
  echo "fuzz.sh: no clang++ can compile std::expected with libstdc++ (clang++-14 cannot);" >&2
  echo "fuzz.sh: install clang-16 and libfuzzer-16-dev (scripts/install-deps.sh lists them)" >&2
  exit 1
fi
echo "fuzz.sh: using $chosen"

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
