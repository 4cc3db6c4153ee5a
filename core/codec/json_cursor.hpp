#pragma once
// A forward-only reader over JSON text, for hot paths that need a few fields of a large
// document: the values not asked for are skipped without building anything.
//
// Contract: the calls follow the document's shape. begin_object() then next_key() until it
// returns nullopt; after each key exactly one value call (skip(), raw(), string(), scalar(),
// or begin_object()/begin_array() and their members). Arrays alike with next_element().
// Any malformed input makes the call fail (false / nullopt) and failed() true; the caller
// then falls back to a full parser. Values read are checked as a JSON parser would (strings
// for escapes and raw control characters, not for UTF-8 validity); skipped ones only for
// structure (brackets, strings, literals), which is all skipping needs.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kw::codec {

class JsonCursor {
 public:
  explicit JsonCursor(std::string_view text) : m_text(text) {}

  // The next non-space character, or '\0' at the end of the text.
  char peek();
  bool begin_object();  // consumes '{'
  bool begin_array();   // consumes '['
  // The next member's key (as written, escapes not decoded); nullopt once the object's '}'
  // was consumed, or on an error (then failed()).
  std::optional<std::string_view> next_key();
  // Whether another element follows (then read it); false once ']' was consumed or on an
  // error (then failed()).
  bool next_element();

  bool skip();                                   // one value of any kind
  std::optional<std::string_view> raw();         // one value of any kind, as its text
  bool string(std::string& out);                 // a string value, unescaped
  // A string, number, true, false or null as a JSON value; objects and arrays are parsed
  // with nlohmann (rare in the places this is used).
  bool scalar(nlohmann::json& out);
  bool null();                                   // consumes `null` if that comes next
  // Only whitespace left.
  bool at_end();
  bool failed() const { return m_failed; }

 private:
  bool fail();
  void skip_space();
  bool literal(std::string_view word);
  // Past the closing quote of the string starting at m_pos; `escaped` tells whether it
  // holds backslashes. Returns the text between the quotes.
  std::optional<std::string_view> string_span(bool& escaped);
  bool number_span(std::string_view& out);

  std::string_view m_text;
  std::size_t m_pos = 0;
  bool m_first = false;  // right after '{' or '[': no ',' expected before the next member
  bool m_failed = false;
};

// Decodes the escapes of a JSON string body (without its quotes). False on a bad escape.
bool json_unescape(std::string_view body, std::string& out);

}  // namespace kw::codec
