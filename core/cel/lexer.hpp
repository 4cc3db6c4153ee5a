#pragma once
// CEL tokens: numbers, strings and bytes with every escape form, identifiers, punctuation.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/cel/ast.hpp"

namespace kw::cel {

struct Token {
  enum class Kind : std::uint8_t { end, ident, integer, uinteger, floating, string, bytes, punct };
  Kind kind = Kind::end;
  std::uint32_t offset = 0;
  std::string_view text = {};  // as written
  std::string value = {};      // strings and bytes: the decoded content
};

class Lexer {
 public:
  explicit Lexer(std::string_view source) : m_source(source) {}
  // The next token, or a diagnostic ("token recognition error at: '#'").
  Result<Token> next();
  std::string_view source() const { return m_source; }
  // Where the last error was found.
  std::uint32_t error_offset() const { return m_error_offset; }

 private:
  void skip_space_and_comments();
  Result<Token> number();
  Result<Token> quoted(std::size_t prefix_length, bool raw, bool bytes);
  // Decodes one escape after '\\' at m_pos into `out`; false when it is malformed.
  bool escape(std::string& out, bool bytes);
  kw::Result<Token> error_at(std::size_t offset, std::string message);

  std::string_view m_source;
  std::size_t m_pos = 0;
  std::uint32_t m_error_offset = 0;
};

// Encodes a code point as UTF-8.
void append_utf8(std::string& out, std::uint32_t code_point);

}  // namespace kw::cel
