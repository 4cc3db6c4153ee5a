# Sourced by the scripts that build with clang (the sanitizer build in test.sh, fuzz.sh): sets
# `cxx` and `cc` to the newest clang whose C++23 mode has std::expected, and `clang_note` to how
# it was chosen; leaves `cxx` empty when there is none.
#
# libstdc++ 12's <expected> is only enabled when __cpp_concepts >= 202002L. clang 14-16 report
# 201907L, so std::expected (kw::Result) does not exist there. clang 16 does implement what
# <expected> needs (P0848, conditionally trivial special members), so with clang 16 the macro is
# raised (CMakeLists.txt does it for any clang before 17); clang 14 cannot compile it at all.
pick_clang() {
  local probe version
  probe=$(mktemp -d)
  printf '#include <expected>\nint main() { std::expected<int, int> e{1}; return *e - 1; }\n' >"$probe/p.cpp"
  cxx="" cc="" clang_note=""
  for version in 19 18 17 16 15 14 ""; do
    command -v "clang++${version:+-$version}" >/dev/null || continue
    if "clang++${version:+-$version}" -std=c++2b "$probe/p.cpp" -o "$probe/p" 2>/dev/null; then
      clang_note="clang++${version:+-$version}"
    elif "clang++${version:+-$version}" -std=c++2b -D__cpp_concepts=202002L -Wno-macro-redefined "$probe/p.cpp" \
        -o "$probe/p" 2>/dev/null; then
      clang_note="clang++${version:+-$version} (__cpp_concepts raised)"
    else
      continue
    fi
    cxx=clang++${version:+-$version} cc=clang${version:+-$version}
    break
  done
  rm -rf "$probe"
}
