#!/usr/bin/env bash
# Installs dependencies, builds kw (normal and ASan+UBSan) and runs the whole test suite.
# Exits non-zero when a build fails, when any test fails, or when no test ran.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=${KW_JOBS:-$(nproc)}

bash scripts/install-deps.sh
echo "== dependencies installed at ${SECONDS}s"
export CCACHE_DIR=${CCACHE_DIR:-$root/.cache/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}

run_suite() {  # run_suite BUILD_DIR TARGET CMAKE_ARGS... -- CTEST_ARGS...
  local dir=$1 target=$2; shift 2
  local cmake_args=() ctest_args=()
  while (($#)) && [[ $1 != -- ]]; do cmake_args+=("$1"); shift; done
  (($#)) && shift
  ctest_args=("$@")
  cmake -S . -B "$dir" -G Ninja "${cmake_args[@]}" >/dev/null
  cmake --build "$dir" -j "$jobs" --target "$target"
  echo "== $dir built at ${SECONDS}s; ctest in $dir"
  ctest --test-dir "$dir" -j "$jobs" --output-on-failure --no-tests=error --timeout 300 "${ctest_args[@]}"
  echo "== $dir tested at ${SECONDS}s"
}

# Line tables only (-g1): backtraces and sanitizer reports keep file:line, and the builds take
# about a third less time than with full debug information.
line_tables=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" -DKW_WERROR=ON)

# 1. The release-like build: kw itself, which the integration tests drive through the real
#    peers. The unit tests run once, in the sanitizer build below (or here without it).
if [[ ${KW_SKIP_SANITIZE:-0} == 1 ]]; then
  run_suite build all -DCMAKE_BUILD_TYPE=RelWithDebInfo "${line_tables[@]}"
else
  # (The unit test executables are not built here: their placeholders are left out as well.)
  run_suite build kw -DCMAKE_BUILD_TYPE=RelWithDebInfo "${line_tables[@]}" -- -LE unit -E _NOT_BUILT
fi
# 2. The sanitizer build: unit tests (integration tests drive the same code through the real
#    peers and are slower under ASan; KW_SANITIZE_ALL=1 runs them too). It is built with the
#    clang fuzz.sh uses, where there is one: clang builds it in about half of GCC's time. Its
#    unoptimized sanitized frames are also several times larger than GCC's, so the tests that
#    nest thousands of levels deep get a 64 MiB stack.
if [[ ${KW_SKIP_SANITIZE:-0} != 1 ]]; then
  source scripts/clang.sh
  pick_clang
  sanitizer_compiler=()
  if [[ -n $cxx ]]; then
    echo "== sanitizer build with $clang_note"
    sanitizer_compiler=(-DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx")
    # clang's sanitizers name a report's files and lines through llvm-symbolizer.
    if symbolizer=$(command -v llvm-symbolizer); then
      export ASAN_SYMBOLIZER_PATH=$(readlink -f "$symbolizer")
    fi
  fi
  sanitizer=(-DCMAKE_BUILD_TYPE=Debug -DKW_SANITIZE=ON "${sanitizer_compiler[@]}" "${line_tables[@]}")
  (
    ulimit -s 65536
    if [[ ${KW_SANITIZE_ALL:-0} == 1 ]]; then
      run_suite build-asan all "${sanitizer[@]}"
    else
      run_suite build-asan unit_tests "${sanitizer[@]}" -- -L unit
    fi
  )
fi
# 3. The fuzz targets, a few seconds each (needs clang).
if [[ ${KW_SKIP_FUZZ:-0} != 1 ]]; then
  bash scripts/fuzz.sh "${KW_FUZZ_SECONDS:-3}"
fi
echo "test.sh: all suites passed in ${SECONDS}s"
