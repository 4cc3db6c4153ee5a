# cmake -DIN=file -DOUT=file.cpp -DSYMBOL=name [-DNAMESPACE=kw::proto] -P embed_bytes.cmake
#
# Writes a C++ source defining `extern const unsigned char <NAMESPACE>::<SYMBOL>[]` and
# `<NAMESPACE>::<SYMBOL>_size` with the bytes of IN (NAMESPACE defaults to kw::proto).
if(NOT NAMESPACE)
  set(NAMESPACE kw::proto)
endif()
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
# Line breaks every 32 bytes keep the generated file readable by editors and compilers alike.
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){32})" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT}.tmp "// Generated from ${IN} by embed_bytes.cmake.\n#include <cstddef>\n\nnamespace ${NAMESPACE} {\n\n"
     "extern const unsigned char ${SYMBOL}[] = {\n${bytes}\n};\n"
     "extern const std::size_t ${SYMBOL}_size = ${size};\n\n}  // namespace ${NAMESPACE}\n")
file(RENAME ${OUT}.tmp ${OUT})
