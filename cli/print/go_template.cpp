// Go's text/template, as kubectl runs it for -o go-template. The code follows Go's own layout
// (src/text/template/parse/lex.go, parse.go, node.go, exec.go, funcs.go and fmt's verbs) so a
// difference in behaviour can be found by reading the two side by side: one lexer producing
// items, one recursive-descent parser producing a node tree, one evaluator walking it. Like Go,
// both parser and evaluator unwind with an internal error (Go panics) that the two public
// functions turn into a Result. Where Go versions differ, the newest Go's behaviour is followed
// (range over an integer, {{else with}}, "incompatible types for comparison: T1 and T2").
//
// Not implemented: complex constants (1i), printf's %[n] argument indexes and * widths, sprig's
// functions (kubectl links them in too), and Unicode's tables: non-ASCII printability and
// letters are approximated. `slice` stops at len (Go's encoding/json leaves spare capacity
// that Go would let it reach), and nesting is capped lower than Go caps it (see below).
#include "cli/print/go_template.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <expected>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace kw::cli {
namespace {
namespace gotmpl {

using nlohmann::json;

constexpr std::string_view k_name = "output";  // kubectl's template name, in every message
// Go allows 10000 nested (parens) and 100000 nested templates. Here a nesting level costs about
// 1 KiB of stack (2 KiB in an ASan debug build, a (paren) up to 6), so the limits are lower.
constexpr int k_max_parse_depth = 250;  // nested (parens), blocks and control structures
constexpr int k_max_exec_depth = 1000;  // nested templates and control structures at run time

struct Failure {  // unwinds parse and execution, as Go's text/template panics
  std::string message;
};

// ---- UTF-8 and Go's quoting ------------------------------------------------------------------

struct Rune {
  char32_t r;
  int width;
};

Rune decode_rune(std::string_view s, size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return {c, 1};
  int n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
  if (n == 0 || c > 0xF4 || i + n > s.size()) return {0xFFFD, 1};
  char32_t r = c & (0x7F >> n);
  for (int k = 1; k < n; ++k) {
    auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return {0xFFFD, 1};
    r = r << 6 | (cc & 0x3F);
  }
  static constexpr char32_t k_min[] = {0, 0, 0x80, 0x800, 0x10000};
  if (r < k_min[n] || r > 0x10FFFF || (r >= 0xD800 && r < 0xE000)) return {0xFFFD, 1};
  return {r, n};
}

void append_rune(std::string& out, char32_t r) {
  if (r > 0x10FFFF || (r >= 0xD800 && r < 0xE000)) r = 0xFFFD;
  if (r < 0x80) {
    out += static_cast<char>(r);
  } else if (r < 0x800) {
    out += static_cast<char>(0xC0 | r >> 6), out += static_cast<char>(0x80 | (r & 0x3F));
  } else if (r < 0x10000) {
    out += static_cast<char>(0xE0 | r >> 12), out += static_cast<char>(0x80 | (r >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | r >> 18), out += static_cast<char>(0x80 | (r >> 12 & 0x3F));
    out += static_cast<char>(0x80 | (r >> 6 & 0x3F)), out += static_cast<char>(0x80 | (r & 0x3F));
  }
}

int rune_count(std::string_view s) {
  int n = 0;
  for (size_t i = 0; i < s.size(); i += decode_rune(s, i).width) ++n;
  return n;
}

// strconv.IsPrint without Unicode's tables: ASCII exactly; above it, everything but controls,
// spaces other than ' ', format characters, private use and non-characters.
bool is_print(char32_t r) {
  if (r < 0x80) return r >= 0x20 && r != 0x7F;
  if (r < 0xA1 || r == 0xAD || r == 0x1680 || (r >= 0x2000 && r <= 0x200F) || (r >= 0x2028 && r <= 0x202F) ||
      (r >= 0x205F && r <= 0x206F) || r == 0x3000 || r == 0xFEFF || (r >= 0xFFF9 && r <= 0xFFFB))
    return false;
  return !(r >= 0xD800 && r < 0xF900) && (r & 0xFFFE) != 0xFFFE && r <= 0x10FFFF;
}

// unicode.IsLetter || IsDigit || '_', approximated above ASCII by excluding symbol blocks.
bool is_alnum(int32_t r) {
  if (r < 0) return false;
  if (r < 0x80) return r == '_' || std::isalnum(r);
  auto c = static_cast<char32_t>(r);
  return is_print(c) && !(c < 0xC0) && c != 0xD7 && c != 0xF7 && !(c >= 0x2000 && c < 0x2C00) &&
         !(c >= 0x3000 && c < 0x3040) && !(c >= 0xFF00 && c < 0xFF10);
}

constexpr char k_lower_hex[] = "0123456789abcdef";
constexpr char k_upper_hex[] = "0123456789ABCDEF";

void append_escaped_rune(std::string& out, char32_t r, char quote, bool ascii_only) {
  if (r == static_cast<char32_t>(quote) || r == '\\') {
    out += '\\', out += static_cast<char>(r);
  } else if (ascii_only ? (r < 0x80 && is_print(r)) : is_print(r)) {
    append_rune(out, r);
  } else if (r < 0x80 && std::strchr("\a\b\f\n\r\t\v", static_cast<int>(r)) && r != 0) {
    out += '\\', out += "abfnrtv"[std::strchr("\a\b\f\n\r\t\v", static_cast<int>(r)) - "\a\b\f\n\r\t\v"];
  } else if (r < ' ' || r == 0x7F) {
    out += "\\x", out += k_lower_hex[r >> 4], out += k_lower_hex[r & 0xF];
  } else {
    if (r > 0x10FFFF || (r >= 0xD800 && r < 0xE000)) r = 0xFFFD;
    int digits = r < 0x10000 ? 4 : 8;
    out += r < 0x10000 ? "\\u" : "\\U";
    for (int s = (digits - 1) * 4; s >= 0; s -= 4) out += k_lower_hex[r >> s & 0xF];
  }
}

// strconv.Quote / QuoteToASCII.
std::string go_quote(std::string_view s, bool ascii_only = false) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    auto [r, width] = decode_rune(s, i);
    if (width == 1 && r == 0xFFFD) {
      auto c = static_cast<unsigned char>(s[i]);
      out += "\\x", out += k_lower_hex[c >> 4], out += k_lower_hex[c & 0xF];
    } else {
      append_escaped_rune(out, r, '"', ascii_only);
    }
    i += width;
  }
  return out + '"';
}

// fmt's %#U, as the lexer names a bad character: U+0021 '!'.
std::string format_unicode(int32_t r) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(r));
  std::string out = buf;
  if (r >= 0 && is_print(static_cast<char32_t>(r))) out += " '", append_rune(out, static_cast<char32_t>(r)), out += '\'';
  return out;
}

// ---- Lexer (parse/lex.go) ----------------------------------------------------------------------

enum class Tok {
  Error, Bool, Char, CharConstant, Complex, Assign, Declare, Eof, Field, Identifier, LeftDelim, LeftParen, Number,
  Pipe, RawString, RightDelim, RightParen, Space, String, Text, Variable,
  Keyword,  // keywords follow
  Block, Break, Continue, Dot, Define, Else, End, If, Nil, Range, Template, With
};

struct Item {
  Tok type;
  int pos;
  int line;
  std::string val;
};

// Go's item.String(), as parse errors quote a token.
std::string describe(const Item& item) {
  if (item.type == Tok::Eof) return "EOF";
  if (item.type == Tok::Error) return item.val;
  if (item.type > Tok::Keyword) return "<" + item.val + ">";
  if (item.val.size() <= 10) return go_quote(item.val);
  size_t end = 0;
  for (int n = 0; n < 10 && end < item.val.size(); ++n) end += decode_rune(item.val, end).width;
  return go_quote(std::string_view(item.val).substr(0, end)) + "...";
}

bool is_space(int32_t r) { return r == ' ' || r == '\t' || r == '\r' || r == '\n'; }

class Lexer {
 public:
  explicit Lexer(std::string_view input) : m_in(input) {}

  std::vector<Item> run() {
    for (State s = State::Text; s != State::Done;) s = step(s);
    return std::move(m_items);
  }

 private:
  enum class State { Text, LeftDelim, Comment, RightDelim, Inside, Space, Identifier, Field, Variable, Char, Number,
                     Quote, RawQuote, Done };
  static constexpr int32_t k_eof = -1;

  std::string_view m_in;
  size_t m_pos = 0, m_start = 0;
  int m_line = 1, m_start_line = 1, m_paren_depth = 0;
  bool m_at_eof = false;
  std::vector<Item> m_items;

  std::string_view rest(size_t from) const { return from <= m_in.size() ? m_in.substr(from) : std::string_view(); }
  int32_t next() {
    if (m_pos >= m_in.size()) return m_at_eof = true, k_eof;
    auto [r, width] = decode_rune(m_in, m_pos);
    m_pos += width;
    if (r == '\n') ++m_line;
    return static_cast<int32_t>(r);
  }
  void backup() {
    if (m_at_eof || m_pos == 0) return;
    size_t start = m_pos - 1;
    while (start > 0 && m_pos - start < 4 && (static_cast<unsigned char>(m_in[start]) & 0xC0) == 0x80) --start;
    if (decode_rune(m_in, start).width != static_cast<int>(m_pos - start)) start = m_pos - 1;
    if (m_in[start] == '\n') --m_line;
    m_pos = start;
  }
  int32_t peek() {
    int32_t r = next();
    backup();
    return r;
  }
  bool accept(std::string_view valid) {
    int32_t r = next();
    if (r > 0 && r < 0x80 && valid.find(static_cast<char>(r)) != std::string_view::npos) return true;
    backup();
    return false;
  }
  void accept_run(std::string_view valid) { while (accept(valid)) {} }
  int count_lines(size_t from, size_t to) const {
    return static_cast<int>(std::count(m_in.begin() + from, m_in.begin() + to, '\n'));
  }
  void emit(Tok type) {
    m_items.push_back({type, static_cast<int>(m_start), m_start_line, std::string(m_in.substr(m_start, m_pos - m_start))});
    m_start = m_pos, m_start_line = m_line;
  }
  void ignore() {
    m_line += count_lines(m_start, m_pos);
    m_start = m_pos, m_start_line = m_line;
  }
  State errorf(std::string message) {
    m_items.push_back({Tok::Error, static_cast<int>(m_start), m_start_line, std::move(message)});
    return State::Done;
  }
  static bool left_trim_marker(std::string_view s) { return s.size() >= 2 && s[0] == '-' && is_space(s[1]); }
  static bool right_trim_marker(std::string_view s) { return s.size() >= 2 && is_space(s[0]) && s[1] == '-'; }
  std::pair<bool, bool> at_right_delim() const {  // {at the delimiter, with a trim marker}
    if (right_trim_marker(rest(m_pos)) && rest(m_pos + 2).starts_with("}}")) return {true, true};
    return {rest(m_pos).starts_with("}}"), false};
  }
  bool at_terminator() {
    int32_t r = peek();
    if (is_space(r) || r == k_eof || (r < 0x80 && std::strchr(".,|:)(", static_cast<int>(r)) && r != 0)) return true;
    return rest(m_pos).starts_with("}}");
  }
  size_t space_run(std::string_view s, bool from_end) const {
    size_t n = 0;
    while (n < s.size() && is_space(from_end ? s[s.size() - 1 - n] : s[n])) ++n;
    return n;
  }

  State step(State s) {
    switch (s) {
      case State::Text: return lex_text();
      case State::LeftDelim: return lex_left_delim();
      case State::Comment: return lex_comment();
      case State::RightDelim: return lex_right_delim();
      case State::Inside: return lex_inside_action();
      case State::Space: return lex_space();
      case State::Identifier: return lex_identifier();
      case State::Field: return lex_field_or_variable(Tok::Field);
      case State::Variable: return at_terminator() ? (emit(Tok::Variable), State::Inside)
                                                   : lex_field_or_variable(Tok::Variable);
      case State::Char: return lex_quoted('\'', "unterminated character constant", Tok::CharConstant);
      case State::Number: return lex_number();
      case State::Quote: return lex_quoted('"', "unterminated quoted string", Tok::String);
      case State::RawQuote: return lex_raw_quote();
      case State::Done: break;
    }
    return State::Done;
  }

  State lex_text() {
    if (size_t x = m_in.find("{{", m_pos); x != std::string_view::npos) {
      m_pos = x;
      size_t trim = left_trim_marker(rest(m_pos + 2)) ? space_run(m_in.substr(m_start, m_pos - m_start), true) : 0;
      m_pos -= trim;
      if (m_pos > m_start) m_line += count_lines(m_start, m_pos), emit(Tok::Text);
      m_pos += trim;
      ignore();
      return State::LeftDelim;
    }
    m_pos = m_in.size();
    if (m_pos > m_start) m_line += count_lines(m_start, m_pos), emit(Tok::Text);
    emit(Tok::Eof);
    return State::Done;
  }
  State lex_left_delim() {
    m_pos += 2;
    size_t after_marker = left_trim_marker(rest(m_pos)) ? 2 : 0;
    if (rest(m_pos + after_marker).starts_with("/*")) {
      m_pos += after_marker;
      ignore();
      return State::Comment;
    }
    emit(Tok::LeftDelim);
    m_pos += after_marker;
    ignore();
    m_paren_depth = 0;
    return State::Inside;
  }
  State lex_comment() {
    m_pos += 2;
    size_t end = m_in.find("*/", m_pos);
    if (end == std::string_view::npos) return errorf("unclosed comment");
    m_pos = end + 2;
    auto [delim, trim] = at_right_delim();
    if (!delim) return errorf("comment ends before closing delimiter");
    m_pos += trim ? 4 : 2;
    if (trim) m_pos += space_run(rest(m_pos), false);
    ignore();
    return State::Text;
  }
  State lex_right_delim() {
    bool trim = right_trim_marker(rest(m_pos));
    if (trim) m_pos += 2, ignore();
    m_pos += 2;
    emit(Tok::RightDelim);
    if (trim) m_pos += space_run(rest(m_pos), false), ignore();
    return State::Text;
  }
  State lex_inside_action() {
    if (at_right_delim().first) return m_paren_depth == 0 ? State::RightDelim : errorf("unclosed left paren");
    int32_t r = next();
    switch (r) {
      case k_eof: return errorf("unclosed action");
      case ' ': case '\t': case '\r': case '\n': backup(); return State::Space;
      case '=': emit(Tok::Assign); return State::Inside;
      case ':':
        if (next() != '=') return errorf("expected :=");
        emit(Tok::Declare);
        return State::Inside;
      case '|': emit(Tok::Pipe); return State::Inside;
      case '"': return State::Quote;
      case '`': return State::RawQuote;
      case '$': return State::Variable;
      case '\'': return State::Char;
      case '(': emit(Tok::LeftParen), ++m_paren_depth; return State::Inside;
      case ')':
        if (--m_paren_depth < 0) return errorf("unexpected right paren");
        emit(Tok::RightParen);
        return State::Inside;
      case '.':
        if (m_pos < m_in.size() && (m_in[m_pos] < '0' || m_in[m_pos] > '9')) return State::Field;
        [[fallthrough]];
      case '+': case '-': case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8':
      case '9': backup(); return State::Number;
      default: break;
    }
    if (is_alnum(r)) return backup(), State::Identifier;
    if (r < 0x80 && is_print(static_cast<char32_t>(r))) return emit(Tok::Char), State::Inside;
    return errorf("unrecognized character in action: " + format_unicode(r));
  }
  State lex_space() {
    int spaces = 0;
    while (is_space(peek())) next(), ++spaces;
    if (right_trim_marker(rest(m_pos - 1)) && rest(m_pos + 1).starts_with("}}")) {
      backup();
      if (spaces == 1) return State::RightDelim;
    }
    emit(Tok::Space);
    return State::Inside;
  }
  State lex_identifier() {
    static const std::map<std::string_view, Tok> k_keywords = {
        {"block", Tok::Block}, {"break", Tok::Break}, {"continue", Tok::Continue}, {"define", Tok::Define},
        {"else", Tok::Else},   {"end", Tok::End},     {"if", Tok::If},             {"range", Tok::Range},
        {"nil", Tok::Nil},     {"template", Tok::Template}, {"with", Tok::With}};
    int32_t r;
    while (is_alnum(r = next())) {}
    backup();
    if (!at_terminator()) return errorf("bad character " + format_unicode(r));
    std::string_view word = m_in.substr(m_start, m_pos - m_start);
    auto keyword = k_keywords.find(word);
    emit(keyword != k_keywords.end() ? keyword->second : word == "true" || word == "false" ? Tok::Bool : Tok::Identifier);
    return State::Inside;
  }
  State lex_field_or_variable(Tok type) {
    if (at_terminator()) return emit(type == Tok::Variable ? Tok::Variable : Tok::Dot), State::Inside;
    int32_t r;
    while (is_alnum(r = next())) {}
    backup();
    if (!at_terminator()) return errorf("bad character " + format_unicode(r));
    emit(type);
    return State::Inside;
  }
  State lex_quoted(char quote, const char* unterminated, Tok type) {
    for (int32_t r; (r = next()) != quote;) {
      if (r == '\\') r = next();
      if (r == k_eof || r == '\n') return errorf(unterminated);
    }
    emit(type);
    return State::Inside;
  }
  State lex_raw_quote() {
    for (int32_t r; (r = next()) != '`';)
      if (r == k_eof) return errorf("unterminated raw quoted string");
    emit(Tok::RawString);
    return State::Inside;
  }
  bool scan_number() {
    accept("+-");
    std::string_view digits = "0123456789_";
    if (accept("0")) {
      if (accept("xX")) digits = "0123456789abcdefABCDEF_";
      else if (accept("oO")) digits = "01234567_";
      else if (accept("bB")) digits = "01_";
    }
    accept_run(digits);
    if (accept(".")) accept_run(digits);
    if (digits.size() == 11 && accept("eE")) accept("+-"), accept_run("0123456789_");
    if (digits.size() == 23 && accept("pP")) accept("+-"), accept_run("0123456789_");
    accept("i");
    if (is_alnum(peek())) return next(), false;
    return true;
  }
  State lex_number() {
    auto bad = [&] { return errorf("bad number syntax: " + go_quote(m_in.substr(m_start, m_pos - m_start))); };
    if (!scan_number()) return bad();
    if (int32_t sign = peek(); sign == '+' || sign == '-') {
      if (!scan_number() || m_in[m_pos - 1] != 'i') return bad();
      emit(Tok::Complex);
    } else {
      emit(Tok::Number);
    }
    return State::Inside;
  }
};

// ---- Literals (strconv.Unquote, strconv.ParseInt/ParseFloat as parse.newNumber uses them) -----

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(c | 0x20);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : 99;
}

// strconv.UnquoteChar: one character of a quoted literal; `multibyte` says whether to encode it.
std::optional<std::pair<char32_t, bool>> unquote_char(std::string_view& s, char quote) {
  if (s.empty() || s[0] == quote) return std::nullopt;
  if (static_cast<unsigned char>(s[0]) >= 0x80) {
    auto [r, width] = decode_rune(s, 0);
    s.remove_prefix(width);
    return std::pair{r, true};
  }
  if (s[0] != '\\') {
    auto c = static_cast<char32_t>(static_cast<unsigned char>(s[0]));
    s.remove_prefix(1);
    return std::pair{c, false};
  }
  if (s.size() < 2) return std::nullopt;
  char c = s[1];
  s.remove_prefix(2);
  if (const char* simple = std::strchr("abfnrtv\\", c); simple && c) {
    return std::pair{static_cast<char32_t>("\a\b\f\n\r\t\v\\"[simple - "abfnrtv\\"]), false};
  }
  if (c == 'x' || c == 'u' || c == 'U' || (c >= '0' && c <= '7')) {
    size_t n = c == 'x' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 2;
    int base = c >= '0' && c <= '7' ? 8 : 16;
    if (s.size() < n) return std::nullopt;
    char32_t v = base == 8 ? static_cast<char32_t>(c - '0') : 0;
    for (size_t j = 0; j < n; ++j) {
      int d = hex_value(s[j]);
      if (d >= base) return std::nullopt;
      v = v * base + d;
    }
    s.remove_prefix(n);
    if (base == 8) return v > 255 ? std::nullopt : std::optional(std::pair{v, false});
    if (c == 'x') return std::pair{v, false};
    if (v > 0x10FFFF || (v >= 0xD800 && v < 0xE000)) return std::nullopt;
    return std::pair{v, true};
  }
  if ((c == '\'' || c == '"') && c == quote) return std::pair{static_cast<char32_t>(c), false};
  return std::nullopt;
}

// strconv.Unquote for "..." and `...` literals.
std::optional<std::string> unquote(std::string_view s) {
  if (s.size() < 2 || s.front() != s.back()) return std::nullopt;
  char quote = s.front();
  s = s.substr(1, s.size() - 2);
  std::string out;
  if (quote == '`') {
    if (s.find('`') != std::string_view::npos) return std::nullopt;
    for (char c : s)
      if (c != '\r') out += c;
    return out;
  }
  if (quote != '"' || s.find('\n') != std::string_view::npos) return std::nullopt;
  while (!s.empty()) {
    auto c = unquote_char(s, '"');
    if (!c) return std::nullopt;
    if (c->first < 0x80 || !c->second) out += static_cast<char>(c->first);
    else append_rune(out, c->first);
  }
  return out;
}

// What Go's idealConstant makes of a literal: an int, a float64 (written with . e or p), or an
// unsigned value too big for int, which is an error only when evaluated.
struct Number {
  enum class Type { Int, Float, TooBig } type = Type::Int;
  int64_t i = 0;
  double f = 0;
};

bool underscore_ok(std::string_view s) {  // strconv.underscoreOK
  char saw = '^';
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  bool hex = false;
  size_t i = 0;
  if (s.size() >= 2 && s[0] == '0' && std::strchr("bBoOxX", s[1]) && s[1]) i = 2, saw = '0', hex = (s[1] | 0x20) == 'x';
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (std::isdigit(static_cast<unsigned char>(c)) || (hex && std::isxdigit(static_cast<unsigned char>(c)))) {
      saw = '0';
    } else if (c == '_') {
      if (saw != '0') return false;
      saw = '_';
    } else {
      if (saw == '_') return false;
      saw = '!';
    }
  }
  return saw != '_';
}

std::optional<uint64_t> parse_uint(std::string_view s) {  // strconv.ParseUint(s, 0, 64)
  std::string_view all = s;
  if (s.empty()) return std::nullopt;
  unsigned base = 10;
  if (s[0] == '0') {
    char p = s.size() >= 3 ? static_cast<char>(s[1] | 0x20) : 0;
    base = p == 'b' ? 2 : p == 'o' ? 8 : p == 'x' ? 16 : 8;
    s.remove_prefix(p == 'b' || p == 'o' || p == 'x' ? 2 : 1);
  }
  uint64_t n = 0;
  bool underscores = false;
  for (char c : s) {
    if (c == '_') {
      underscores = true;
      continue;
    }
    unsigned d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                 : std::isalpha(static_cast<unsigned char>(c)) ? (c | 0x20) - 'a' + 10 : 99;
    if (d >= base || n > (UINT64_MAX - d) / base) return std::nullopt;
    n = n * base + d;
  }
  if (underscores && !underscore_ok(all)) return std::nullopt;
  return n;
}

std::optional<int64_t> parse_int(std::string_view s) {  // strconv.ParseInt(s, 0, 64)
  bool negative = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  auto u = parse_uint(s);
  if (!u || *u > (negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1)) return std::nullopt;
  return negative ? static_cast<int64_t>(0 - *u) : static_cast<int64_t>(*u);
}

// strconv.ParseFloat(s, 64) on what the lexer accepts as a number.
std::optional<double> parse_float(std::string_view s) {
  if (s.find('_') != std::string_view::npos && !underscore_ok(s)) return std::nullopt;
  std::string clean;
  for (char c : s)
    if (c != '_') clean += c;
  size_t sign = clean[0] == '+' || clean[0] == '-';
  bool hex = clean.size() > sign + 1 && clean[sign] == '0' && (clean[sign + 1] | 0x20) == 'x';
  if (hex && clean.find_first_of("pP") == std::string::npos) return std::nullopt;  // strtod would take 0x1.8
  errno = 0;
  char* end = nullptr;
  double f = std::strtod(clean.c_str(), &end);
  if (end != clean.c_str() + clean.size() || (errno == ERANGE && std::isinf(f))) return std::nullopt;
  return f;
}

// parse.newNumber and exec's idealConstant; the error is what Go's parser reports.
std::expected<Number, std::string> parse_number(const std::string& text, Tok type) {
  if (type == Tok::CharConstant) {
    std::string_view body = std::string_view(text).substr(1);
    auto c = unquote_char(body, '\'');
    if (!c) return std::unexpected("invalid syntax");
    if (body != "'") return std::unexpected("malformed character constant: " + text);
    return Number{.i = c->first};
  }
  if (type == Tok::Complex || text.back() == 'i') return std::unexpected("complex constants are not supported: " + text);
  if (auto i = parse_int(text)) return Number{.i = *i};  // 0x1E is an int, although it has an E
  if (parse_uint(text)) return Number{.type = Number::Type::TooBig};
  auto f = parse_float(text);
  if (!f) return std::unexpected("illegal number syntax: " + go_quote(text));
  if (text.find_first_of(".eEpP") == std::string::npos) return std::unexpected("integer overflow: " + go_quote(text));
  return Number{.type = Number::Type::Float, .f = *f};
}

// ---- Nodes (parse/node.go) ---------------------------------------------------------------------

enum class Kind { List, Text, Action, If, Range, With, Template, Break, Continue, Pipe, Command, Field, Variable,
                  Chain, Identifier, Dot, Nil, Bool, Number, String, End, Else };

struct Node {
  Kind kind;
  int pos = 0;                     // byte offset in the template text, for error locations
  std::string text;                // Text, Identifier, Number and String (as written), Template (its name)
  std::string value;               // String: the unquoted value
  std::vector<std::string> names;  // Field, Variable ("$x" first), Chain: the fields; Pipe: declared variables
  std::vector<const Node*> nodes;  // List: items; Pipe: commands; Command: arguments
  const Node* pipe = nullptr;      // If, Range, With, Template: the pipeline; Chain: the term
  const Node* list = nullptr;      // If, Range, With
  const Node* else_list = nullptr;
  bool flag = false;               // Bool: its value; Pipe: `=` rather than `:=`
  Number number;
};

// Node.String(): what an execution error quotes as its context, `at <...>`.
void write_node(const Node& n, std::string& out) {
  auto write_list = [&](const Node* list) {
    for (const Node* item : list->nodes) write_node(*item, out);
  };
  switch (n.kind) {
    case Kind::List: write_list(&n); break;
    case Kind::Text: case Kind::Identifier: case Kind::Number: case Kind::String: out += n.text; break;
    case Kind::Action: out += "{{", write_node(*n.pipe, out), out += "}}"; break;
    case Kind::If: case Kind::Range: case Kind::With:
      out += n.kind == Kind::If ? "{{if " : n.kind == Kind::Range ? "{{range " : "{{with ";
      write_node(*n.pipe, out), out += "}}", write_list(n.list);
      if (n.else_list) out += "{{else}}", write_list(n.else_list);
      out += "{{end}}";
      break;
    case Kind::Template:
      out += "{{template " + go_quote(n.text);
      if (n.pipe) out += ' ', write_node(*n.pipe, out);
      out += "}}";
      break;
    case Kind::Break: out += "{{break}}"; break;
    case Kind::Continue: out += "{{continue}}"; break;
    case Kind::End: out += "{{end}}"; break;
    case Kind::Else: out += "{{else}}"; break;
    case Kind::Pipe:
      for (size_t i = 0; i < n.names.size(); ++i) out += (i ? ", " : "") + n.names[i];
      if (!n.names.empty()) out += n.flag ? " = " : " := ";
      for (size_t i = 0; i < n.nodes.size(); ++i) out += i ? " | " : "", write_node(*n.nodes[i], out);
      break;
    case Kind::Command:
      for (size_t i = 0; i < n.nodes.size(); ++i) {
        if (i) out += ' ';
        bool paren = n.nodes[i]->kind == Kind::Pipe;
        out += paren ? "(" : "", write_node(*n.nodes[i], out), out += paren ? ")" : "";
      }
      break;
    case Kind::Field: for (const auto& name : n.names) out += '.' + name; break;
    case Kind::Variable:
      for (size_t i = 0; i < n.names.size(); ++i) out += (i ? "." : "") + n.names[i];
      break;
    case Kind::Chain: {
      bool paren = n.pipe->kind == Kind::Pipe;
      out += paren ? "(" : "", write_node(*n.pipe, out), out += paren ? ")" : "";
      for (const auto& name : n.names) out += '.' + name;
      break;
    }
    case Kind::Dot: out += '.'; break;
    case Kind::Nil: out += "nil"; break;
    case Kind::Bool: out += n.flag ? "true" : "false"; break;
  }
}

std::string node_string(const Node& n) {
  std::string out;
  write_node(n, out);
  return out;
}

std::vector<std::string> split_dots(std::string_view s) {
  std::vector<std::string> parts;
  for (size_t dot; (dot = s.find('.')) != std::string_view::npos; s.remove_prefix(dot + 1))
    parts.emplace_back(s.substr(0, dot));
  parts.emplace_back(s);
  return parts;
}

constexpr std::array<std::string_view, 21> k_functions = {
    "and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf", "println", "urlquery",
    "eq", "ge", "gt", "le", "lt", "ne", "exists", "base64decode"};  // Go's builtins, then kubectl's

}  // namespace gotmpl
}  // namespace

struct GoTemplate::Tree {
  std::string text;
  std::deque<gotmpl::Node> nodes;                          // every node; stable addresses
  std::map<std::string, const gotmpl::Node*, std::less<>> templates;  // "output" and each {{define}}
};

namespace {
namespace gotmpl {

// ---- Parser (parse/parse.go) -------------------------------------------------------------------

class Parser {
 public:
  explicit Parser(GoTemplate::Tree& tree) : m_tree(tree), m_items(Lexer(tree.text).run()) {}

  // Tree.parse: the top level, where {{define}} may appear.
  void parse() {
    Node& root = make(Kind::List, peek().pos);
    while (peek().type != Tok::Eof) {
      if (peek().type == Tok::LeftDelim) {
        size_t delim = m_i;
        next();
        if (next_non_space().type == Tok::Define) {
          parse_definition();
          continue;
        }
        m_i = delim;
      }
      const Node* n = text_or_action();
      if (n->kind == Kind::End || n->kind == Kind::Else) errorf("unexpected " + node_string(*n));
      root.nodes.push_back(n);
    }
    add(std::string(k_name), &root);
  }

 private:
  struct Scope {  // what Go keeps per parse.Tree
    std::vector<std::string> vars{"$"};
    int range_depth = 0;
    int action_line = 0;
  };

  GoTemplate::Tree& m_tree;
  std::vector<Item> m_items;
  size_t m_i = 0, m_last = 0;  // next item; the furthest item read, whose line errors report
  Scope m_scope;
  int m_depth = 0;

  [[noreturn]] void errorf(const std::string& message) const {
    throw Failure{"template: " + std::string(k_name) + ":" + std::to_string(m_items[m_last].line) + ": " + message};
  }
  const Item& next() {
    size_t i = std::min(m_i++, m_items.size() - 1);
    m_last = std::max(m_last, i);
    return m_items[i];
  }
  void backup() { --m_i; }
  const Item& peek() {
    const Item& item = next();
    backup();
    return item;
  }
  const Item& next_non_space() {
    const Item* item;
    while ((item = &next())->type == Tok::Space) {}
    return *item;
  }
  const Item& peek_non_space() {
    const Item& item = next_non_space();
    backup();
    return item;
  }
  const Item& expect(Tok type, const char* context) {
    const Item& item = next_non_space();
    if (item.type != type) unexpected(item, context);
    return item;
  }
  [[noreturn]] void unexpected(const Item& item, const std::string& context) const {
    if (item.type != Tok::Error) errorf("unexpected " + describe(item) + " in " + context);
    std::string extra;
    if (m_scope.action_line != 0 && m_scope.action_line != item.line) {
      extra = " in action started at " + std::string(k_name) + ":" + std::to_string(m_scope.action_line);
      if (item.val.ends_with(" action")) extra = extra.substr(std::string_view(" in action").size());
    }
    errorf(item.val + extra);
  }
  Node& make(Kind kind, int pos) {
    Node& n = m_tree.nodes.emplace_back();
    n.kind = kind, n.pos = pos;
    return n;
  }
  void nest() {
    if (++m_depth > k_max_parse_depth) errorf("max expression depth exceeded");
  }

  // Tree.add, with IsEmptyTree: a blank body never replaces a definition; two real ones clash.
  void add(const std::string& name, const Node* root) {
    auto blank = [](const Node* list) {
      return std::all_of(list->nodes.begin(), list->nodes.end(), [](const Node* n) {
        return n->kind == Kind::Text && n->text.find_first_not_of(" \t\r\n\v\f") == std::string::npos;
      });
    };
    auto it = m_tree.templates.find(name);
    if (it == m_tree.templates.end() || blank(it->second)) {
      m_tree.templates[name] = root;
    } else if (!blank(root)) {
      errorf("template: multiple definition of template " + go_quote(name));
    }
  }

  std::string template_name(const Item& item, const char* context) {
    if (item.type != Tok::String && item.type != Tok::RawString) unexpected(item, context);
    auto name = unquote(item.val);
    if (!name) errorf("invalid syntax");
    return *name;
  }

  void parse_definition() {
    Scope outer = std::exchange(m_scope, Scope{});
    std::string name = template_name(next_non_space(), "define clause");
    expect(Tok::RightDelim, "define clause");
    auto [list, end] = item_list();
    if (end->kind != Kind::End) errorf("unexpected " + node_string(*end) + " in define clause");
    add(name, list);
    m_scope = std::move(outer);
  }

  // itemList: nodes up to {{end}} or {{else}}, which is returned apart.
  std::pair<const Node*, const Node*> item_list() {
    Node& list = make(Kind::List, peek_non_space().pos);
    while (peek_non_space().type != Tok::Eof) {
      const Node* n = text_or_action();
      if (n->kind == Kind::End || n->kind == Kind::Else) return {&list, n};
      list.nodes.push_back(n);
    }
    errorf("unexpected EOF");
  }

  const Node* text_or_action() {
    const Item& item = next_non_space();
    if (item.type == Tok::Text) {
      Node& text = make(Kind::Text, item.pos);
      text.text = item.val;
      return &text;
    }
    if (item.type != Tok::LeftDelim) unexpected(item, "input");
    m_scope.action_line = item.line;
    const Node* n = action();
    m_scope.action_line = 0;
    return n;
  }

  const Node* action() {
    const Item& item = next_non_space();
    switch (item.type) {
      case Tok::Block: return block_control();
      case Tok::Break: case Tok::Continue: {
        bool is_break = item.type == Tok::Break;
        int pos = item.pos;
        if (const Item& close = next_non_space(); close.type != Tok::RightDelim)
          unexpected(close, is_break ? "{{break}}" : "{{continue}}");
        if (m_scope.range_depth == 0) errorf(is_break ? "{{break}} outside {{range}}" : "{{continue}} outside {{range}}");
        return &make(is_break ? Kind::Break : Kind::Continue, pos);
      }
      case Tok::Else: {
        const Item& peeked = peek_non_space();  // {{else if ...}} and {{else with ...}} leave the keyword
        if (peeked.type == Tok::If || peeked.type == Tok::With) return &make(Kind::Else, peeked.pos);
        return &make(Kind::Else, expect(Tok::RightDelim, "else").pos);
      }
      case Tok::End: return &make(Kind::End, expect(Tok::RightDelim, "end").pos);
      case Tok::If: return control(Kind::If, "if");
      case Tok::Range: return control(Kind::Range, "range");
      case Tok::Template: return template_control();
      case Tok::With: return control(Kind::With, "with");
      default: break;
    }
    backup();
    Node& act = make(Kind::Action, peek().pos);
    act.pipe = pipeline("command", Tok::RightDelim);  // variables persist until the enclosing {{end}}
    return &act;
  }

  // parseControl: if, range and with, with their else branches.
  const Node* control(Kind kind, const std::string& context) {
    nest();
    size_t vars = m_scope.vars.size();
    const Node* pipe = pipeline(context, Tok::RightDelim);
    Node& n = make(kind, pipe->pos);
    n.pipe = pipe;
    m_scope.range_depth += kind == Kind::Range;
    auto [list, next_node] = item_list();
    m_scope.range_depth -= kind == Kind::Range;
    n.list = list;
    if (next_node->kind == Kind::Else) {
      Tok chained = kind == Kind::If ? Tok::If : kind == Kind::With ? Tok::With : Tok::Eof;
      if (peek().type == chained) {  // {{else if}} is {{else}}{{if}} sharing one {{end}}
        next();
        Node& else_list = make(Kind::List, next_node->pos);
        else_list.nodes.push_back(control(kind, context));
        n.else_list = &else_list;
      } else {
        auto [else_list, end] = item_list();
        if (end->kind != Kind::End) errorf("expected end; found " + node_string(*end));
        n.else_list = else_list;
      }
    }
    m_scope.vars.resize(vars);
    --m_depth;
    return &n;
  }

  const Node* block_control() {
    const Item& item = next_non_space();
    int pos = item.pos;
    std::string name = template_name(item, "block clause");
    const Node* pipe = pipeline("block clause", Tok::RightDelim);
    nest();
    Scope outer = std::exchange(m_scope, Scope{});
    auto [list, end] = item_list();
    if (end->kind != Kind::End) errorf("unexpected " + node_string(*end) + " in block clause");
    add(name, list);
    m_scope = std::move(outer);
    --m_depth;
    Node& n = make(Kind::Template, pos);
    n.text = name, n.pipe = pipe;
    return &n;
  }

  const Node* template_control() {
    const Item& item = next_non_space();
    int pos = item.pos;
    std::string name = template_name(item, "template clause");
    const Node* pipe = nullptr;
    if (next_non_space().type != Tok::RightDelim) backup(), pipe = pipeline("template clause", Tok::RightDelim);
    Node& n = make(Kind::Template, pos);
    n.text = name, n.pipe = pipe;
    return &n;
  }

  // Pipeline: declarations? command ('|' command)*
  const Node* pipeline(const std::string& context, Tok end) {
    Node& pipe = make(Kind::Pipe, peek_non_space().pos);
    for (bool more = true; more;) {
      more = false;
      if (peek_non_space().type != Tok::Variable) break;
      size_t variable = m_i;
      const Item& v = next();
      const Item& after = peek_non_space();
      if (after.type == Tok::Assign || after.type == Tok::Declare) {
        pipe.flag = after.type == Tok::Assign;
        next_non_space();
        pipe.names.push_back(v.val), m_scope.vars.push_back(v.val);
      } else if (after.type == Tok::Char && after.val == ",") {
        next_non_space();
        pipe.names.push_back(v.val), m_scope.vars.push_back(v.val);
        if (context == "range" && pipe.names.size() < 2) {
          Tok t = peek_non_space().type;
          if (t != Tok::Variable && t != Tok::RightDelim && t != Tok::RightParen)
            errorf("range can only initialize variables");
          more = true;
          continue;
        }
        errorf("too many declarations in " + context);
      } else {
        m_i = variable;
      }
    }
    while (true) {
      const Item& item = next_non_space();
      if (item.type == end) break;
      switch (item.type) {
        case Tok::Bool: case Tok::CharConstant: case Tok::Complex: case Tok::Dot: case Tok::Field:
        case Tok::Identifier: case Tok::Number: case Tok::Nil: case Tok::RawString: case Tok::String:
        case Tok::Variable: case Tok::LeftParen:
          backup();
          pipe.nodes.push_back(command());
          break;
        default: unexpected(item, context);
      }
    }
    if (pipe.nodes.empty()) errorf("missing value for " + context);
    for (size_t i = 1; i < pipe.nodes.size(); ++i) {
      Kind first = pipe.nodes[i]->nodes[0]->kind;
      if (first == Kind::Bool || first == Kind::Dot || first == Kind::Nil || first == Kind::Number ||
          first == Kind::String)
        errorf("non executable command in pipeline stage " + std::to_string(i + 1));
    }
    return &pipe;
  }

  const Node* command() {
    Node& cmd = make(Kind::Command, peek_non_space().pos);
    while (true) {
      peek_non_space();
      if (const Node* operand = this->operand()) cmd.nodes.push_back(operand);
      const Item& item = next();
      if (item.type == Tok::Space) continue;
      if (item.type == Tok::RightDelim || item.type == Tok::RightParen) backup();
      else if (item.type != Tok::Pipe) unexpected(item, "operand");
      break;
    }
    if (cmd.nodes.empty()) errorf("empty command");
    return &cmd;
  }

  // operand: term .Field*; .a.b and $x.a.b stay fields and variables, anything else is a chain.
  const Node* operand() {
    const Node* term = this->term();
    if (!term || peek().type != Tok::Field) return term;
    int pos = peek().pos;
    std::vector<std::string> fields;
    while (peek().type == Tok::Field) fields.push_back(next().val.substr(1));
    switch (term->kind) {
      case Kind::Field: case Kind::Variable: {
        Node& n = make(term->kind, pos);
        n.names = term->names;
        n.names.insert(n.names.end(), fields.begin(), fields.end());
        return &n;
      }
      case Kind::Bool: case Kind::String: case Kind::Number: case Kind::Nil: case Kind::Dot:
        errorf("unexpected . after term " + go_quote(node_string(*term)));
      default: {
        Node& chain = make(Kind::Chain, pos);
        chain.pipe = term, chain.names = std::move(fields);
        return &chain;
      }
    }
  }

  const Node* term() {
    const Item& item = next_non_space();
    switch (item.type) {
      case Tok::Identifier: {
        if (std::find(k_functions.begin(), k_functions.end(), item.val) == k_functions.end())
          errorf("function " + go_quote(item.val) + " not defined");
        Node& n = make(Kind::Identifier, item.pos);
        n.text = item.val;
        return &n;
      }
      case Tok::Dot: return &make(Kind::Dot, item.pos);
      case Tok::Nil: return &make(Kind::Nil, item.pos);
      case Tok::Variable: {
        if (std::find(m_scope.vars.begin(), m_scope.vars.end(), item.val) == m_scope.vars.end())
          errorf("undefined variable " + go_quote(item.val));
        Node& n = make(Kind::Variable, item.pos);
        n.names = {item.val};
        return &n;
      }
      case Tok::Field: {
        Node& n = make(Kind::Field, item.pos);
        n.names = split_dots(std::string_view(item.val).substr(1));
        return &n;
      }
      case Tok::Bool: {
        Node& n = make(Kind::Bool, item.pos);
        n.flag = item.val == "true";
        return &n;
      }
      case Tok::CharConstant: case Tok::Complex: case Tok::Number: {
        auto number = parse_number(item.val, item.type);
        if (!number) errorf(number.error());
        Node& n = make(Kind::Number, item.pos);
        n.text = item.val, n.number = *number;
        return &n;
      }
      case Tok::LeftParen: {
        nest();
        const Node* pipe = pipeline("parenthesized pipeline", Tok::RightParen);
        --m_depth;
        return pipe;
      }
      case Tok::String: case Tok::RawString: {
        auto value = unquote(item.val);
        if (!value) errorf("invalid syntax");
        Node& n = make(Kind::String, item.pos);
        n.text = item.val, n.value = std::move(*value);
        return &n;
      }
      default: backup(); return nullptr;
    }
  }
};

// ---- Values: what encoding/json gives Go, and what builtins return ------------------------------

enum class Type { Invalid, Nil, Bool, Int, Uint8, Float, String, Map, Slice };

// A Go reflect.Value. `boxed` marks a value still inside an interface{} (a map or slice element):
// Go names its type "interface {}" until a pipeline unwraps it, and a boxed Nil differs from an
// Invalid value (a missing key) in len and field access.
struct Value {
  Type type = Type::Invalid;
  bool boxed = false;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  std::string s = {};
  const json* j = nullptr;                 // Map, Slice
  std::shared_ptr<const json> owner = {};  // keeps a computed Slice (and its elements) alive
};

Value make_bool(bool b) { return Value{.type = Type::Bool, .b = b}; }
Value make_int(int64_t i) { return Value{.type = Type::Int, .i = i}; }
Value make_string(std::string s) { return Value{.type = Type::String, .s = std::move(s)}; }

Value from_json(const json& j, bool boxed, const std::shared_ptr<const json>& owner) {
  Value v{.boxed = boxed, .owner = owner};
  switch (j.type()) {
    case json::value_t::null: v.type = boxed ? Type::Nil : Type::Invalid; break;
    case json::value_t::boolean: v.type = Type::Bool, v.b = j.get<bool>(); break;
    case json::value_t::string: v.type = Type::String, v.s = j.get<std::string>(); break;
    case json::value_t::object: v.type = Type::Map, v.j = &j; break;
    case json::value_t::array: v.type = Type::Slice, v.j = &j; break;
    default: v.type = Type::Float, v.f = j.get<double>(); break;  // every JSON number is a float64
  }
  return v;
}

// indirectInterface: the value an interface{} holds; a nil interface becomes Invalid.
Value unbox(Value v) {
  if (v.boxed) v.boxed = false, v.type = v.type == Type::Nil ? Type::Invalid : v.type;
  return v;
}

std::string type_name(const Value& v) {
  if (v.boxed) return "interface {}";
  switch (v.type) {
    case Type::Invalid: return "<nil>";
    case Type::Nil: return "interface {}";
    case Type::Bool: return "bool";
    case Type::Int: return "int";
    case Type::Uint8: return "uint8";
    case Type::Float: return "float64";
    case Type::String: return "string";
    case Type::Map: return "map[string]interface {}";
    case Type::Slice: return "[]interface {}";
  }
  return "";
}

size_t length(const Value& v) { return v.type == Type::String ? v.s.size() : v.j->size(); }

bool is_true(const Value& v) {  // Go's isTrue, on an unboxed value
  switch (v.type) {
    case Type::Bool: return v.b;
    case Type::Int: case Type::Uint8: return v.i != 0;
    case Type::Float: return v.f != 0;
    case Type::String: case Type::Map: case Type::Slice: return length(v) > 0;
    default: return false;
  }
}

// ---- Go's fmt, for printing values and for print/printf/println -----------------------------------

// strconv.FormatFloat(v, fmt, prec, 64): prec < 0 means the shortest representation.
std::string format_float(double v, char fmt, int prec) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  std::vector<char> buf(64);
  auto print = [&](const char* spec, auto... args) {
    int n = std::snprintf(buf.data(), buf.size(), spec, args...);
    if (n >= static_cast<int>(buf.size())) buf.resize(n + 1), std::snprintf(buf.data(), buf.size(), spec, args...);
    return std::string(buf.data(), n);
  };
  if (fmt == 'b') {  // mantissa p exponent, from the bits
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    int exp = static_cast<int>(bits >> 52 & 0x7FF);
    uint64_t mant = bits & ((uint64_t{1} << 52) - 1);
    exp = exp == 0 ? -1074 : (mant |= uint64_t{1} << 52, exp - 1075);
    return std::string(bits >> 63 ? "-" : "") + std::to_string(mant) + "p" + (exp >= 0 ? "+" : "") + std::to_string(exp);
  }
  if (fmt == 'x' || fmt == 'X') {  // C's %a, renormalized when rounding made 0x2, with Go's 2-digit exponent
    std::string out = prec < 0 ? print(fmt == 'x' ? "%a" : "%A", v) : print(fmt == 'x' ? "%.*a" : "%.*A", prec, v);
    size_t p = out.find_last_of("pP"), lead = out.find_first_of("xX") + 1;
    int exp = std::atoi(out.c_str() + p + 1);
    if (out[lead] == '2') out[lead] = '1', ++exp;
    return out.substr(0, p + 1) + print("%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
  }
  if (prec >= 0) return print((std::string("%.*") + fmt).c_str(), prec, v);
  // Shortest: the digits and exponent std::to_chars picks, laid out as strconv lays them out.
  char sci[64];
  auto res = std::to_chars(sci, sci + sizeof sci, std::abs(v), std::chars_format::scientific);
  std::string_view text(sci, res.ptr - sci);
  size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e))
    if (c != '.') digits += c;
  int dp = 0, nd = static_cast<int>(digits.size());
  std::from_chars(text.data() + e + (text[e + 1] == '+' ? 2 : 1), text.data() + text.size(), dp);
  ++dp;
  char lower = static_cast<char>(fmt | 0x20);
  bool exponent = lower == 'e' || (lower == 'g' && (dp - 1 < -4 || dp - 1 >= 6));
  std::string out = std::signbit(v) ? "-" : "";
  if (exponent) {
    out += digits[0];
    if (nd > 1) out += '.' + digits.substr(1);
    int x = digits == "0" ? 0 : dp - 1;
    out += (fmt == 'E' || fmt == 'G') ? 'E' : 'e';
    out += x < 0 ? '-' : '+';
    out += (std::abs(x) < 10 ? "0" : "") + std::to_string(std::abs(x));
    return out;
  }
  out += dp > 0 ? (digits.substr(0, std::min(dp, nd)) + std::string(std::max(dp - nd, 0), '0')) : "0";
  if (int frac = std::max(nd - dp, 0); frac > 0) {
    out += '.';
    for (int k = 0; k < frac; ++k) out += dp + k >= 0 && dp + k < nd ? digits[dp + k] : '0';
  }
  return out;
}

class GoFmt {
 public:
  explicit GoFmt(std::string& out) : m_out(out) {}

  void print_v(const Value& v) { m_f = {}, print_arg(v, 'v'); }
  void print_verb(const Value& v, char32_t verb) { m_f = {}, print_arg(v, verb); }

  void sprint(std::span<const Value> args) {  // fmt.Sprint: spaces between operands when neither is a string
    for (size_t k = 0; k < args.size(); ++k) {
      bool is_string = args[k].type == Type::String;
      if (k > 0 && !is_string && args[k - 1].type != Type::String) m_out += ' ';
      print_v(args[k]);
    }
  }
  void sprintln(std::span<const Value> args) {
    for (size_t k = 0; k < args.size(); ++k) m_out += k ? " " : "", print_v(args[k]);
    m_out += '\n';
  }

  // fmt.Sprintf (doPrintf), without argument indexes ([n]) and * widths.
  void sprintf(std::string_view format, std::span<const Value> args) {
    size_t arg = 0, end = format.size();
    for (size_t k = 0; k < end;) {
      size_t text = k;
      while (k < end && format[k] != '%') ++k;
      m_out += format.substr(text, k - text);
      if (k >= end) break;
      ++k;
      m_f = {};
      for (; k < end; ++k) {
        char c = format[k];
        if (c == '#') m_f.sharp = true;
        else if (c == '0') m_f.zero = !m_f.minus;
        else if (c == '+') m_f.plus = true;
        else if (c == '-') m_f.minus = true, m_f.zero = false;
        else if (c == ' ') m_f.space = true;
        else break;
      }
      if (!parse_num(format, k, m_f.wid, m_f.wid_present)) k = end;
      if (k + 1 < end && format[k] == '.') {
        ++k;
        if (!parse_num(format, k, m_f.prec, m_f.prec_present)) k = end;
        if (!m_f.prec_present) m_f.prec = 0, m_f.prec_present = true;
      }
      if (k >= end) {
        m_out += "%!(NOVERB)";
        break;
      }
      auto [verb, width] = decode_rune(format, k);
      k += width;
      if (verb == '%') {
        m_out += '%';
      } else if (arg >= args.size()) {
        m_out += "%!", append_rune(m_out, verb), m_out += "(MISSING)";
      } else {
        if (verb == 'v') m_f.sharp_v = m_f.sharp, m_f.sharp = false, m_f.plus = false;
        print_arg(args[arg++], verb);
      }
    }
    if (arg < args.size()) {
      m_f = {};
      m_out += "%!(EXTRA ";
      for (size_t k = arg; k < args.size(); ++k) {
        m_out += k > arg ? ", " : "";
        if (args[k].type == Type::Invalid) m_out += "<nil>";
        else m_out += type_name(args[k]) + "=", print_arg(args[k], 'v');
      }
      m_out += ')';
    }
  }

 private:
  struct Flags {
    bool wid_present = false, prec_present = false, minus = false, plus = false, sharp = false, space = false,
         zero = false, sharp_v = false;
    int wid = 0, prec = 0;
  };
  std::string& m_out;
  Flags m_f;

  static bool parse_num(std::string_view s, size_t& k, int& num, bool& present) {  // parsenum; false on overflow
    num = 0, present = false;
    for (; k < s.size() && s[k] >= '0' && s[k] <= '9'; ++k) {
      if (num > 1000000) return false;
      num = num * 10 + (s[k] - '0'), present = true;
    }
    return true;
  }
  void write_padding(int n) {
    if (n > 0) m_out.append(n, m_f.zero ? '0' : ' ');
  }
  void pad(std::string_view s) {
    int width = m_f.wid_present ? m_f.wid - rune_count(s) : 0;
    if (!m_f.minus) write_padding(width);
    m_out += s;
    if (m_f.minus) write_padding(width);
  }
  std::string_view truncate(std::string_view s) const {
    if (!m_f.prec_present) return s;
    size_t end = 0;
    for (int n = 0; n < m_f.prec && end < s.size(); ++n) end += decode_rune(s, end).width;
    return s.substr(0, end);
  }

  // printArg at the top level: nil, %T, then by type.
  void print_arg(const Value& v, char32_t verb) {
    if (v.type == Type::Invalid) {
      if (verb == 'T' || verb == 'v') pad("<nil>");
      else bad_verb(verb, v);
    } else if (verb == 'T') {
      pad(truncate(type_name(v)));
    } else if (verb == 'p' && (v.type == Type::Map || v.type == Type::Slice)) {  // the address, as Go's
      bool sharp = std::exchange(m_f.sharp, !m_f.sharp);
      integer(reinterpret_cast<uintptr_t>(v.j), 16, false, 'v', k_lower_hex);
      m_f.sharp = sharp;
    } else {
      print_value(v, verb);
    }
  }

  void print_value(const Value& v, char32_t verb) {
    switch (v.type) {
      case Type::Bool:
        if (verb == 't' || verb == 'v') pad(v.b ? "true" : "false");
        else bad_verb(verb, v);
        break;
      case Type::Int: case Type::Uint8: fmt_integer(v, verb); break;
      case Type::Float: fmt_float(v, verb); break;
      case Type::String: fmt_string(v, verb); break;
      case Type::Map: case Type::Slice: {
        bool is_map = v.type == Type::Map;
        m_out += m_f.sharp_v ? (is_map ? "map[string]interface {}{" : "[]interface {}{") : (is_map ? "map[" : "[");
        bool first = true;
        for (auto it = v.j->begin(); it != v.j->end(); ++it, first = false) {
          if (!first) m_out += m_f.sharp_v ? ", " : " ";
          if (is_map) print_value(make_string(it.key()), verb), m_out += ':';
          Value elem = from_json(*it, true, v.owner);
          if (elem.type == Type::Nil) m_out += m_f.sharp_v ? "interface {}(nil)" : "<nil>";
          else print_value(unbox(elem), verb);
        }
        m_out += m_f.sharp_v ? '}' : ']';
        break;
      }
      default: break;
    }
  }

  void bad_verb(char32_t verb, const Value& v) {
    m_out += "%!", append_rune(m_out, verb), m_out += '(';
    if (v.type == Type::Invalid) m_out += "<nil>";
    else m_out += type_name(v) + '=', print_arg(v, 'v');
    m_out += ')';
  }

  void fmt_integer(const Value& v, char32_t verb) {
    auto u = static_cast<uint64_t>(v.i);
    bool is_signed = v.type == Type::Int;
    switch (verb) {
      case 'v':
        if (m_f.sharp_v && !is_signed) {
          bool sharp = std::exchange(m_f.sharp, true);
          integer(u, 16, false, verb, k_lower_hex);
          m_f.sharp = sharp;
        } else {
          integer(u, 10, is_signed, verb, k_lower_hex);
        }
        break;
      case 'd': integer(u, 10, is_signed, verb, k_lower_hex); break;
      case 'b': integer(u, 2, is_signed, verb, k_lower_hex); break;
      case 'o': case 'O': integer(u, 8, is_signed, verb, k_lower_hex); break;
      case 'x': integer(u, 16, is_signed, verb, k_lower_hex); break;
      case 'X': integer(u, 16, is_signed, verb, k_upper_hex); break;
      case 'c': {
        std::string s;
        append_rune(s, u > 0x10FFFF ? 0xFFFD : static_cast<char32_t>(u));
        pad(s);
        break;
      }
      case 'q': {
        std::string s = "'";
        auto r = static_cast<char32_t>(u);
        append_escaped_rune(s, u > 0x10FFFF || (r >= 0xD800 && r < 0xE000) ? 0xFFFD : r, '\'', m_f.plus);
        pad(s + '\'');
        break;
      }
      case 'U': {
        char buf[32];
        int prec = m_f.prec_present && m_f.prec > 4 ? std::min(m_f.prec, 20) : 4;
        std::snprintf(buf, sizeof buf, "U+%0*llX", prec, static_cast<unsigned long long>(u));
        std::string s = buf;
        if (m_f.sharp && u <= 0x10FFFF && is_print(static_cast<char32_t>(u)))
          s += " '", append_rune(s, static_cast<char32_t>(u)), s += '\'';
        bool zero = std::exchange(m_f.zero, false);
        pad(s);
        m_f.zero = zero;
        break;
      }
      default: bad_verb(verb, v);
    }
  }

  // fmt.fmtInteger.
  void integer(uint64_t u, unsigned base, bool is_signed, char32_t verb, const char* digits) {
    bool negative = is_signed && static_cast<int64_t>(u) < 0;
    if (negative) u = 0 - u;
    int prec = 0;
    if (m_f.prec_present) {
      prec = m_f.prec;
      if (prec == 0 && u == 0) {
        bool zero = std::exchange(m_f.zero, false);
        write_padding(m_f.wid);
        m_f.zero = zero;
        return;
      }
    } else if (m_f.zero && m_f.wid_present) {
      prec = m_f.wid - (negative || m_f.plus || m_f.space ? 1 : 0);
    }
    std::string s;
    do s += digits[u % base], u /= base;
    while (u > 0);
    while (static_cast<int>(s.size()) < prec) s += '0';
    if (m_f.sharp && base == 2) s += "b0";
    if (m_f.sharp && base == 8 && s.back() != '0') s += '0';
    if (m_f.sharp && base == 16) s += digits == k_upper_hex ? "X0" : "x0";
    if (verb == 'O') s += "o0";
    if (negative) s += '-';
    else if (m_f.plus) s += '+';
    else if (m_f.space) s += ' ';
    std::reverse(s.begin(), s.end());
    bool zero = std::exchange(m_f.zero, false);
    pad(s);
    m_f.zero = zero;
  }

  // pp.fmtFloat and fmt.fmtFloat.
  void fmt_float(const Value& v, char32_t verb) {
    char fmt;
    int prec = -1;
    switch (verb) {
      case 'v': fmt = 'g'; break;
      case 'b': case 'g': case 'G': case 'x': case 'X': fmt = static_cast<char>(verb); break;
      case 'f': case 'e': case 'E': fmt = static_cast<char>(verb), prec = 6; break;
      case 'F': fmt = 'f', prec = 6; break;
      default: return bad_verb(verb, v);
    }
    if (m_f.prec_present) prec = m_f.prec;
    std::string num = format_float(v.f, fmt, prec);
    if (num[0] != '-' && num[0] != '+') num.insert(0, "+");
    if (m_f.space && num[0] == '+' && !m_f.plus) num[0] = ' ';
    if (num[1] == 'I' || num[1] == 'N') {
      bool zero = std::exchange(m_f.zero, false);
      pad(num[1] == 'N' && !m_f.space && !m_f.plus ? num.substr(1) : num);
      m_f.zero = zero;
      return;
    }
    if (m_f.sharp && fmt != 'b') sharp_float(num, fmt, prec);
    if (m_f.plus || num[0] != '+') {
      if (m_f.zero && m_f.wid_present && m_f.wid > static_cast<int>(num.size())) {
        m_out += num[0];
        write_padding(m_f.wid - static_cast<int>(num.size()));
        m_out += num.substr(1);
      } else {
        pad(num);
      }
    } else {
      pad(std::string_view(num).substr(1));
    }
  }

  static bool can_backquote(std::string_view s) {  // strconv.CanBackquote
    for (size_t k = 0; k < s.size();) {
      auto [r, width] = decode_rune(s, k);
      k += width;
      if (width == 1 ? r == 0xFFFD || (r < ' ' && r != '\t') || r == '`' || r == 0x7F : r == 0xFEFF) return false;
    }
    return true;
  }

  // The '#' flag: always a decimal point, and %g keeps its trailing zeros (Go counts them as it does).
  static void sharp_float(std::string& num, char fmt, int prec) {
    int digits = fmt == 'g' || fmt == 'G' || fmt == 'x' ? (prec == -1 ? 6 : prec) : 0;
    std::string tail;
    bool point = false, nonzero = false;
    for (size_t k = 1; k < num.size(); ++k) {
      char c = num[k];
      if (c == '.') point = true;
      else if (c == 'p' || c == 'P' || ((c == 'e' || c == 'E') && fmt != 'x' && fmt != 'X')) tail = num.substr(k), num.resize(k);
      else nonzero = nonzero || c != '0', digits -= nonzero;
    }
    if (!point) digits -= num.size() == 2 && num[1] == '0', num += '.';
    if (digits > 0) num.append(digits, '0');
    num += tail;
  }

  void fmt_string(const Value& v, char32_t verb) {
    std::string_view s = v.s;
    switch (verb) {
      case 'v':
        if (!m_f.sharp_v) return pad(truncate(s));
        [[fallthrough]];
      case 'q': {
        s = truncate(s);
        return pad(m_f.sharp && can_backquote(s) ? "`" + std::string(s) + "`" : go_quote(s, m_f.plus));
      }
      case 's': return pad(truncate(s));
      case 'x': case 'X': {  // fmtSbx
        const char* digits = verb == 'x' ? k_lower_hex : k_upper_hex;
        size_t n = m_f.prec_present ? std::min<size_t>(m_f.prec, s.size()) : s.size();
        int width = static_cast<int>(2 * n);
        if (n == 0) return m_f.wid_present ? write_padding(m_f.wid) : void();
        if (m_f.space) width = (m_f.sharp ? 2 * width : width) + static_cast<int>(n) - 1;
        else if (m_f.sharp) width += 2;
        if (m_f.wid_present && m_f.wid > width && !m_f.minus) write_padding(m_f.wid - width);
        for (size_t k = 0; k < n; ++k) {
          if (k == 0 ? m_f.sharp : m_f.space) {
            if (k > 0) m_out += ' ';
            if (m_f.sharp) m_out += '0', m_out += verb == 'x' ? 'x' : 'X';
          }
          auto c = static_cast<unsigned char>(s[k]);
          m_out += digits[c >> 4], m_out += digits[c & 0xF];
        }
        if (m_f.wid_present && m_f.wid > width && m_f.minus) write_padding(m_f.wid - width);
        return;
      }
      default: bad_verb(verb, v);
    }
  }
};

std::string sprint_value(const Value& v, char32_t verb = 'v') {
  std::string out;
  GoFmt(out).print_verb(v, verb);
  return out;
}

// ---- Builtins (funcs.go) and kubectl's functions (cli-runtime printers/template.go) ------------

enum class Param { Value, Any, String };  // reflect.Value, interface{}, string
enum class Fn { And, Or, Call, Html, Index, Slice, Js, Len, Not, Print, Printf, Println, Urlquery, Eq, Ge, Gt, Le,
                Lt, Ne, Exists, Base64decode };

struct FnSpec {
  Fn fn;
  std::array<Param, 2> fixed;
  int nfixed;
  bool variadic;  // a trailing ...Param of `fixed`'s last type when nfixed == 0, else of `rest`
  Param rest;
};

const FnSpec& spec_of(std::string_view name) {
  using P = Param;
  static const std::map<std::string_view, FnSpec> k_specs = {
      {"and", {Fn::And, {P::Value}, 1, true, P::Value}},     {"or", {Fn::Or, {P::Value}, 1, true, P::Value}},
      {"call", {Fn::Call, {P::Value}, 1, true, P::Value}},   {"html", {Fn::Html, {}, 0, true, P::Any}},
      {"index", {Fn::Index, {P::Value}, 1, true, P::Value}}, {"slice", {Fn::Slice, {P::Value}, 1, true, P::Value}},
      {"js", {Fn::Js, {}, 0, true, P::Any}},                 {"len", {Fn::Len, {P::Value}, 1, false, P::Value}},
      {"not", {Fn::Not, {P::Value}, 1, false, P::Value}},    {"print", {Fn::Print, {}, 0, true, P::Any}},
      {"printf", {Fn::Printf, {P::String}, 1, true, P::Any}}, {"println", {Fn::Println, {}, 0, true, P::Any}},
      {"urlquery", {Fn::Urlquery, {}, 0, true, P::Any}},     {"eq", {Fn::Eq, {P::Value}, 1, true, P::Value}},
      {"ge", {Fn::Ge, {P::Value, P::Value}, 2, false, P::Value}}, {"gt", {Fn::Gt, {P::Value, P::Value}, 2, false, P::Value}},
      {"le", {Fn::Le, {P::Value, P::Value}, 2, false, P::Value}}, {"lt", {Fn::Lt, {P::Value, P::Value}, 2, false, P::Value}},
      {"ne", {Fn::Ne, {P::Value, P::Value}, 2, false, P::Value}}, {"exists", {Fn::Exists, {P::Any}, 1, true, P::Any}},
      {"base64decode", {Fn::Base64decode, {P::String}, 1, false, P::Value}}};
  return k_specs.at(name);
}

using FnResult = std::expected<Value, std::string>;

// indexArg: an int index within [0, cap]; `v` keeps its box, as slice's indexes do.
std::expected<int64_t, std::string> index_arg(const Value& v, size_t cap) {
  if (v.boxed || (v.type != Type::Int && v.type != Type::Uint8)) {
    if (v.type == Type::Invalid) return std::unexpected("cannot index slice/array with nil");
    return std::unexpected("cannot index slice/array with type " + type_name(v));
  }
  if (v.i < 0 || static_cast<uint64_t>(v.i) > cap) return std::unexpected("index out of range: " + std::to_string(v.i));
  return v.i;
}

FnResult fn_index(std::span<Value> argv) {
  Value item = unbox(argv[0]);
  if (item.type == Type::Invalid) return std::unexpected("index of untyped nil");
  for (const Value& raw : argv.subspan(1)) {
    Value index = unbox(raw);
    if (item.type == Type::Nil) return std::unexpected("index of nil pointer");
    item = unbox(item);
    if (item.type == Type::Slice || item.type == Type::String) {
      auto x = index_arg(index, length(item));
      if (!x) return std::unexpected(x.error());
      if (static_cast<size_t>(*x) == length(item))
        return std::unexpected(item.type == Type::Slice ? "reflect: slice index out of range"
                                                        : "reflect: string index out of range");
      if (item.type == Type::String) item = Value{.type = Type::Uint8, .i = static_cast<unsigned char>(item.s[*x])};
      else item = from_json((*item.j)[*x], true, item.owner);
    } else if (item.type == Type::Map) {
      if (index.type == Type::Invalid) return std::unexpected("value is nil; should be of type string");
      if (index.type != Type::String) return std::unexpected("value has type " + type_name(index) + "; should be string");
      auto it = item.j->find(index.s);
      item = it != item.j->end() ? from_json(*it, true, item.owner) : Value{.type = Type::Nil, .boxed = true};
    } else {
      return std::unexpected("can't index item of type " + type_name(item));
    }
  }
  return item;
}

FnResult fn_slice(std::span<Value> argv) {
  Value item = unbox(argv[0]);
  if (item.type == Type::Invalid) return std::unexpected("slice of untyped nil");
  auto indexes = argv.subspan(1);
  if (indexes.size() > 3) return std::unexpected("too many slice indexes: " + std::to_string(indexes.size()));
  if (item.type == Type::String && indexes.size() == 3) return std::unexpected("cannot 3-index slice a string");
  if (item.type != Type::String && item.type != Type::Slice)
    return std::unexpected("can't slice item of type " + type_name(item));
  std::array<int64_t, 3> idx = {0, static_cast<int64_t>(length(item)), 0};
  for (size_t k = 0; k < indexes.size(); ++k) {
    auto x = index_arg(indexes[k], length(item));
    if (!x) return std::unexpected(x.error());
    idx[k] = *x;
  }
  for (size_t k = 0; k + 1 < std::max<size_t>(indexes.size(), 2); ++k)
    if (idx[k] > idx[k + 1])
      return std::unexpected("invalid slice index: " + std::to_string(idx[k]) + " > " + std::to_string(idx[k + 1]));
  if (item.type == Type::String) return make_string(item.s.substr(idx[0], idx[1] - idx[0]));
  auto copy = std::make_shared<json>(json::array());
  for (int64_t k = idx[0]; k < idx[1]; ++k) copy->push_back((*item.j)[k]);
  return Value{.type = Type::Slice, .j = copy.get(), .owner = copy};
}

FnResult fn_len(const Value& arg) {
  if (arg.type == Type::Nil) return std::unexpected("len of nil pointer");
  if (arg.type == Type::Invalid) return std::unexpected("reflect: call of reflect.Value.Type on zero Value");
  Value item = unbox(arg);
  if (item.type == Type::String || item.type == Type::Map || item.type == Type::Slice)
    return make_int(static_cast<int64_t>(length(item)));
  return std::unexpected("len of type " + type_name(item));
}

enum class Basic { Invalid, Bool, Int, Uint, Float, String };

Basic basic_kind(const Value& v) {
  switch (v.type) {
    case Type::Bool: return Basic::Bool;
    case Type::Int: return Basic::Int;
    case Type::Uint8: return Basic::Uint;
    case Type::Float: return Basic::Float;
    case Type::String: return Basic::String;
    default: return Basic::Invalid;
  }
}

std::string incompatible(const Value& a, const Value& b) {
  return "incompatible types for comparison: " + type_name(a) + " and " + type_name(b);
}

FnResult fn_eq(std::span<Value> argv) {
  Value a = unbox(argv[0]);
  if (argv.size() < 2) return std::unexpected("missing argument for comparison");
  Basic k1 = basic_kind(a);
  for (const Value& raw : argv.subspan(1)) {
    Value b = unbox(raw);
    Basic k2 = basic_kind(b);
    bool truth = false;
    if (k1 != k2) {
      if ((k1 == Basic::Int || k1 == Basic::Uint) && (k2 == Basic::Int || k2 == Basic::Uint)) truth = a.i == b.i;
      else if (a.type != Type::Invalid && b.type != Type::Invalid) return std::unexpected(incompatible(a, b));
    } else if (k1 == Basic::Float) {
      truth = a.f == b.f;
    } else if (k1 != Basic::Invalid) {
      truth = a.b == b.b && a.i == b.i && a.s == b.s;  // bool, int or string: the other fields are equal
    } else if (a.type != b.type && a.type != Type::Invalid && b.type != Type::Invalid) {
      return std::unexpected("non-comparable types " + sprint_value(a, 's') + ": " + type_name(a) + ", " +
                             type_name(b) + ": " + sprint_value(b));
    } else if (a.type == Type::Invalid || b.type == Type::Invalid) {
      truth = a.type == b.type;
    } else {
      return std::unexpected("non-comparable type " + sprint_value(b, 's') + ": " + type_name(b));
    }
    if (truth) return make_bool(true);
  }
  return make_bool(false);
}

std::expected<bool, std::string> less_than(const Value& raw_a, const Value& raw_b) {
  Value a = unbox(raw_a), b = unbox(raw_b);
  Basic k1 = basic_kind(a), k2 = basic_kind(b);
  if (k1 == Basic::Invalid || k2 == Basic::Invalid) return std::unexpected("invalid type for comparison");
  bool ints = (k1 == Basic::Int || k1 == Basic::Uint) && (k2 == Basic::Int || k2 == Basic::Uint);
  if (k1 != k2 && !ints) return std::unexpected(incompatible(a, b));
  switch (k1) {
    case Basic::Float: return a.f < b.f;
    case Basic::Int: case Basic::Uint: return a.i < b.i;
    case Basic::String: return a.s < b.s;
    default: return std::unexpected("invalid type for comparison");
  }
}

FnResult fn_compare(Fn fn, std::span<Value> argv) {
  if (fn == Fn::Ne) {
    auto equal = fn_eq(argv);
    return equal ? make_bool(!equal->b) : equal;
  }
  auto less = less_than(argv[0], argv[1]);
  if (!less) return std::unexpected(less.error());
  if (fn == Fn::Lt || fn == Fn::Ge) return make_bool(*less != (fn == Fn::Ge));
  bool less_or_equal = *less;
  if (!less_or_equal) {
    auto equal = fn_eq(argv);
    if (!equal) return equal;
    less_or_equal = equal->b;
  }
  return make_bool(less_or_equal != (fn == Fn::Gt));
}

// cli-runtime's exists: whether `index` could be called with these arguments.
bool fn_exists(std::span<Value> argv) {
  Value v = argv[0];
  for (const Value& index : argv.subspan(1)) {
    if (v.type == Type::Nil) return false;
    v = unbox(v);
    if (v.type == Type::Slice || v.type == Type::String) {
      if (index.type != Type::Int && index.type != Type::Uint8) return false;
      if (index.i < 0 || static_cast<size_t>(index.i) >= length(v)) return false;
      v = v.type == Type::String ? Value{.type = Type::Uint8, .i = static_cast<unsigned char>(v.s[index.i])}
                                 : from_json((*v.j)[index.i], true, v.owner);
    } else if (v.type == Type::Map) {
      if (index.type != Type::String && index.type != Type::Invalid) return false;
      auto it = v.j->find(index.s);
      v = it != v.j->end() ? from_json(*it, true, v.owner) : Value{.type = Type::Nil, .boxed = true};
    } else {
      return false;
    }
  }
  return v.type != Type::Nil;
}

// base64.StdEncoding.DecodeString, reporting the offset Go reports.
FnResult fn_base64decode(const std::string& in) {
  auto decode = [](unsigned char c) -> int {
    const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char* p = c ? std::strchr(k, c) : nullptr;
    return p ? static_cast<int>(p - k) : -1;
  };
  auto corrupt = [](size_t at) {
    return std::unexpected("base64 decode failed: illegal base64 data at input byte " + std::to_string(at));
  };
  std::string out;
  auto newline = [&](size_t k) { return in[k] == '\n' || in[k] == '\r'; };
  for (size_t si = 0; si < in.size();) {
    std::array<int, 4> d{};
    int n = 0;
    for (; n < 4; ++n) {
      if (si == in.size()) {
        if (n == 0) return make_string(out);
        return corrupt(si - n);
      }
      unsigned char c = in[si++];
      if ((d[n] = decode(c)) >= 0) continue;
      if (newline(si - 1)) {
        --n;
        continue;
      }
      if (c != '=' || n < 2) return corrupt(si - 1);
      if (n == 2) {  // "==" expected
        while (si < in.size() && newline(si)) ++si;
        if (si == in.size()) return corrupt(in.size());
        if (in[si] != '=') return corrupt(si - 1);
        ++si;
      }
      while (si < in.size() && newline(si)) ++si;
      if (si < in.size()) return corrupt(si);
      break;
    }
    uint32_t val = static_cast<uint32_t>(d[0]) << 18 | d[1] << 12 | std::max(d[2], 0) << 6 | std::max(d[3], 0);
    for (int k = 0; k < n - 1; ++k) out += static_cast<char>(val >> (16 - 8 * k));
  }
  return make_string(out);
}

// evalArgs for html, js and urlquery: fmt.Sprint, with nil printed as "<no value>".
std::string eval_args(std::span<const Value> argv) {
  if (argv.size() == 1 && argv[0].type == Type::String) return argv[0].s;
  std::vector<Value> printable(argv.begin(), argv.end());
  for (Value& v : printable)
    if (v.type == Type::Invalid) v = make_string("<no value>");
  std::string out;
  GoFmt(out).sprint(printable);
  return out;
}

std::string escape(Fn fn, std::string_view s) {
  std::string out;
  for (size_t k = 0; k < s.size();) {
    auto c = static_cast<unsigned char>(s[k]);
    if (fn == Fn::Urlquery) {
      if (std::isalnum(c) || std::strchr("-_.~", c)) out += static_cast<char>(c);
      else if (c == ' ') out += '+';
      else out += '%', out += k_upper_hex[c >> 4], out += k_upper_hex[c & 0xF];
    } else if (fn == Fn::Html) {
      static const std::map<char, std::string_view> k_html = {
          {'\0', "\uFFFD"}, {'"', "&#34;"}, {'\'', "&#39;"}, {'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}};
      auto it = k_html.find(static_cast<char>(c));
      out += it != k_html.end() ? it->second : std::string_view(s.substr(k, 1));
    } else if (c >= 0x80) {  // js: printable runes stay, others become \uXXXX
      auto [r, width] = decode_rune(s, k);
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(r));
      out += is_print(r) ? std::string(s.substr(k, width)) : std::string(buf);
      k += width;
      continue;
    } else if (std::strchr("\\'\"", c) && c) {
      out += '\\', out += static_cast<char>(c);
    } else if (c < ' ' || std::strchr("<>&=", c)) {
      out += "\\u00", out += k_upper_hex[c >> 4], out += k_upper_hex[c & 0xF];
    } else {
      out += static_cast<char>(c);
    }
    ++k;
  }
  return out;
}

FnResult call_builtin(Fn fn, std::span<Value> argv) {
  std::string out;
  switch (fn) {
    case Fn::Index: return fn_index(argv);
    case Fn::Slice: return fn_slice(argv);
    case Fn::Len: return fn_len(argv[0]);
    case Fn::Not: return make_bool(!is_true(unbox(argv[0])));
    case Fn::Eq: return fn_eq(argv);
    case Fn::Ne: case Fn::Lt: case Fn::Le: case Fn::Gt: case Fn::Ge: return fn_compare(fn, argv);
    case Fn::Exists: return make_bool(fn_exists(argv));
    case Fn::Base64decode: return fn_base64decode(argv[0].s);
    case Fn::Print: GoFmt(out).sprint(argv); return make_string(out);
    case Fn::Println: GoFmt(out).sprintln(argv); return make_string(out);
    case Fn::Printf: GoFmt(out).sprintf(argv[0].s, argv.subspan(1)); return make_string(out);
    case Fn::Html: case Fn::Js: case Fn::Urlquery: return make_string(escape(fn, eval_args(argv)));
    default: return std::unexpected("unreachable");
  }
}

// ---- Execution (exec.go) -------------------------------------------------------------------------

class Exec {
 public:
  Exec(const GoTemplate::Tree& tree, std::string& out, bool missing_ok)
      : m_tree(tree), m_out(out), m_missing_ok(missing_ok) {}

  void run(const json& data) {
    static const json k_empty_map = json::object();  // kubectl decodes into a map: null leaves it empty
    Value dot = from_json(data.is_null() ? k_empty_map : data, false, nullptr);
    m_vars.push_back({"$", dot});
    walk(dot, *m_tree.templates.at(std::string(k_name)));
  }

 private:
  enum class Flow { Normal, Break, Continue };
  struct Var {
    std::string name;
    Value value;
  };

  const GoTemplate::Tree& m_tree;
  std::string& m_out;
  bool m_missing_ok;
  std::vector<Var> m_vars;
  const Node* m_at = nullptr;  // the node being evaluated, which errors name
  std::string m_name = std::string(k_name);
  int m_depth = 0;

  void at(const Node& n) { m_at = &n; }

  // state.errorf: template: output:LINE:COL: executing "NAME" at <NODE>: message
  [[noreturn]] void errorf(const std::string& message) const {
    std::string_view before = std::string_view(m_tree.text).substr(0, m_at->pos);
    size_t newline = before.rfind('\n');
    size_t col = newline == std::string_view::npos ? before.size() : before.size() - newline - 1;
    auto line = std::count(before.begin(), before.end(), '\n') + 1;
    throw Failure{"template: " + std::string(k_name) + ":" + std::to_string(line) + ":" + std::to_string(col) +
                  ": executing " + go_quote(m_name) + " at <" + node_string(*m_at) + ">: " + message};
  }

  struct Nested {  // bounds the C++ stack: templates and control structures nest at most k_max_exec_depth deep
    explicit Nested(Exec& e) : exec(e) {
      if (++exec.m_depth > k_max_exec_depth)
        exec.errorf("exceeded maximum template depth (" + std::to_string(k_max_exec_depth) + ")");
    }
    ~Nested() { --exec.m_depth; }
    Exec& exec;
  };

  Value& var(const std::string& name) {
    for (auto it = m_vars.rbegin(); it != m_vars.rend(); ++it)
      if (it->name == name) return it->value;
    errorf("undefined variable: " + name);
  }

  Flow walk(const Value& dot, const Node& n) {
    at(n);
    switch (n.kind) {
      case Kind::Action: return walk_action(dot, n);
      case Kind::Break: return Flow::Break;
      case Kind::Continue: return Flow::Continue;
      case Kind::If: case Kind::With: return walk_if_or_with(dot, n);
      case Kind::List:
        for (const Node* item : n.nodes)
          if (Flow flow = walk(dot, *item); flow != Flow::Normal) return flow;
        return Flow::Normal;
      case Kind::Range: return walk_range(dot, n);
      case Kind::Template: return walk_template(dot, n);
      case Kind::Text: m_out += n.text; return Flow::Normal;
      default: errorf("unknown node: " + node_string(n));
    }
  }

  Flow walk_action(const Value& dot, const Node& n) {
    Value v = eval_pipeline(dot, n.pipe);
    if (n.pipe->names.empty()) {  // printValue
      at(n);
      if (v.type == Type::Invalid) m_out += "<no value>";
      else GoFmt(m_out).print_v(v);
    }
    return Flow::Normal;
  }

  Flow walk_if_or_with(const Value& dot, const Node& n) {
    Nested nested(*this);
    size_t mark = m_vars.size();
    Value val = eval_pipeline(dot, n.pipe);
    Flow flow = Flow::Normal;
    if (is_true(unbox(val))) flow = walk(n.kind == Kind::With ? val : dot, *n.list);
    else if (n.else_list) flow = walk(dot, *n.else_list);
    m_vars.resize(mark);
    return flow;
  }

  Flow walk_range(const Value& dot, const Node& r) {
    Nested nested(*this);
    at(r);
    size_t outer = m_vars.size();
    Value val = unbox(eval_pipeline(dot, r.pipe));
    size_t mark = m_vars.size();
    const auto& decl = r.pipe->names;
    auto one_iteration = [&](const Value& index, const Value& elem) {
      if (!decl.empty()) {
        if (r.pipe->flag) var(decl[0]) = decl.size() > 1 ? index : elem;
        else m_vars[m_vars.size() - 1].value = elem;
      }
      if (decl.size() > 1) {
        if (r.pipe->flag) var(decl[1]) = elem;
        else m_vars[m_vars.size() - 2].value = index;
      }
      Flow flow = walk(elem, *r.list);
      m_vars.resize(mark);
      return flow != Flow::Break;
    };
    bool ran = false;
    switch (val.type) {
      case Type::Int: case Type::Uint8:
        if (decl.size() > 1) errorf("can't use " + sprint_value(val) + " to iterate over more than one variable");
        for (int64_t k = 0; k < val.i; ++k) {
          ran = true;
          if (!one_iteration(Value{}, Value{.type = val.type, .i = k})) break;
        }
        break;
      case Type::Slice:
        for (size_t k = 0; k < val.j->size(); ++k) {
          ran = true;
          if (!one_iteration(make_int(static_cast<int64_t>(k)), from_json((*val.j)[k], true, val.owner))) break;
        }
        break;
      case Type::Map:  // sorted by key, as Go's fmtsort orders strings
        for (auto it = val.j->begin(); it != val.j->end(); ++it) {
          ran = true;
          if (!one_iteration(make_string(it.key()), from_json(*it, true, val.owner))) break;
        }
        break;
      case Type::Invalid: break;
      default: errorf("range can't iterate over " + sprint_value(val));
    }
    Flow flow = Flow::Normal;
    // Go's range recovers a {{break}} raised in its {{else}} too; a {{continue}} there goes on up.
    if (!ran && r.else_list && walk(dot, *r.else_list) == Flow::Continue) flow = Flow::Continue;
    m_vars.resize(outer);
    return flow;
  }

  Flow walk_template(const Value& dot, const Node& t) {
    Nested nested(*this);
    at(t);
    auto tmpl = m_tree.templates.find(t.text);
    if (tmpl == m_tree.templates.end()) errorf("template " + go_quote(t.text) + " not defined");
    Value inner = eval_pipeline(dot, t.pipe);  // variables it declares persist in the caller
    auto vars = std::exchange(m_vars, {{"$", inner}});
    auto name = std::exchange(m_name, t.text);
    walk(inner, *tmpl->second);
    m_vars = std::move(vars), m_name = std::move(name);
    return Flow::Normal;
  }

  Value eval_pipeline(const Value& dot, const Node* pipe) {
    if (!pipe) return Value{};
    at(*pipe);
    std::optional<Value> value;  // empty: Go's missingVal, no value piped in yet
    for (const Node* cmd : pipe->nodes) value = unbox(eval_command(dot, *cmd, value ? &*value : nullptr));
    for (const std::string& name : pipe->names) {
      if (pipe->flag) var(name) = *value;
      else m_vars.push_back({name, *value});
    }
    return *value;
  }

  void not_a_function(std::span<const Node* const> args, const Value* final) {
    if (args.size() > 1 || final) errorf("can't give argument to non-function " + node_string(*args[0]));
  }

  Value eval_command(const Value& dot, const Node& cmd, const Value* final) {
    const Node& first = *cmd.nodes[0];
    switch (first.kind) {
      case Kind::Field: return eval_field_node(dot, first, cmd.nodes, final);
      case Kind::Chain: return eval_chain_node(dot, first, cmd.nodes, final);
      case Kind::Identifier: return eval_function(dot, first, cmd, cmd.nodes, final);
      case Kind::Pipe: not_a_function(cmd.nodes, final); return eval_pipeline(dot, &first);
      case Kind::Variable: return eval_variable_node(first, cmd.nodes, final);
      default: break;
    }
    at(first);
    not_a_function(cmd.nodes, final);
    switch (first.kind) {
      case Kind::Bool: return make_bool(first.flag);
      case Kind::Dot: return dot;
      case Kind::Nil: errorf("nil is not a command");
      case Kind::Number: return ideal_constant(first);
      case Kind::String: return make_string(first.value);
      default: errorf("can't evaluate command " + go_quote(node_string(first)));
    }
  }

  Value ideal_constant(const Node& n) {
    at(n);
    if (n.number.type == Number::Type::TooBig) errorf(n.text + " overflows int");
    return n.number.type == Number::Type::Float ? Value{.type = Type::Float, .f = n.number.f} : make_int(n.number.i);
  }

  Value eval_field_node(const Value& dot, const Node& field, std::span<const Node* const> args, const Value* final) {
    at(field);
    return eval_field_chain(dot, field.names, args.size() > 1 || final);
  }

  Value eval_chain_node(const Value& dot, const Node& chain, std::span<const Node* const> args, const Value* final) {
    at(chain);
    if (chain.pipe->kind == Kind::Nil) errorf("indirection through explicit nil in " + node_string(chain));
    return eval_field_chain(eval_arg(dot, Param::Value, *chain.pipe), chain.names, args.size() > 1 || final);
  }

  Value eval_variable_node(const Node& v, std::span<const Node* const> args, const Value* final) {
    at(v);
    Value value = var(v.names[0]);
    if (v.names.size() == 1) {
      not_a_function(args, final);
      return value;
    }
    return eval_field_chain(value, std::span(v.names).subspan(1), args.size() > 1 || final);
  }

  // evalFieldChain: .X.Y.Z, where only the last may take the command's arguments.
  Value eval_field_chain(Value receiver, std::span<const std::string> names, bool has_args) {
    for (size_t k = 0; k + 1 < names.size(); ++k) receiver = eval_field(names[k], false, receiver);
    return eval_field(names.back(), has_args, receiver);
  }

  Value eval_field(const std::string& name, bool has_args, const Value& receiver) {
    if (receiver.type == Type::Invalid) {
      if (!m_missing_ok) errorf("nil data; no entry for key " + go_quote(name));
      return Value{};
    }
    if (receiver.type == Type::Nil) errorf("nil pointer evaluating interface {}." + name);
    if (receiver.type == Type::Map) {
      if (has_args) errorf(name + " is not a method but has arguments");
      if (auto it = receiver.j->find(name); it != receiver.j->end()) return from_json(*it, true, receiver.owner);
      if (!m_missing_ok) errorf("map has no entry for key " + go_quote(name));
      return Value{};
    }
    errorf("can't evaluate field " + name + " in type " + type_name(receiver));
  }

  Value eval_function(const Value& dot, const Node& ident, const Node& node, std::span<const Node* const> args,
                      const Value* final) {
    at(ident);
    return eval_call(dot, spec_of(ident.text), node, ident.text, args.empty() ? args : args.subspan(1), final);
  }

  Value eval_call(const Value& dot, const FnSpec& spec, const Node& node, const std::string& name,
                  std::span<const Node* const> args, const Value* final) {
    size_t num_in = args.size() + (final ? 1 : 0), nfixed = spec.nfixed;
    if (spec.variadic && num_in < nfixed) {
      errorf("wrong number of args for " + name + ": want at least " + std::to_string(nfixed) + " got " +
             std::to_string(args.size()));
    }
    if (!spec.variadic && num_in != nfixed)
      errorf("wrong number of args for " + name + ": want " + std::to_string(nfixed) + " got " + std::to_string(num_in));
    if (spec.fn == Fn::And || spec.fn == Fn::Or) {  // short-circuit, returning the deciding value
      Value v;
      for (const Node* arg : args) {
        v = eval_arg(dot, Param::Value, *arg);
        if (is_true(unbox(v)) == (spec.fn == Fn::Or)) return v;
      }
      return final ? *final : v;
    }
    std::vector<Value> argv;
    for (size_t k = 0; k < args.size(); ++k)
      argv.push_back(eval_arg(dot, k < nfixed ? spec.fixed[k] : spec.rest, *args[k]));
    if (final) {
      Param type = !spec.variadic ? spec.fixed[nfixed - 1] : num_in - 1 < nfixed ? spec.fixed[num_in - 1] : spec.rest;
      argv.push_back(validate(*final, type));
    }
    FnResult result = spec.fn == Fn::Call ? call_error(args, final, argv[0]) : call_builtin(spec.fn, argv);
    if (!result) {
      at(node);
      errorf("error calling " + name + ": " + result.error());
    }
    return *result;
  }

  // `call` needs a function, and JSON holds none.
  FnResult call_error(std::span<const Node* const> args, const Value* final, const Value& fn) {
    Value target = unbox(fn);
    if (target.type == Type::Invalid) return std::unexpected("call of nil");
    std::string callee = !args.empty() ? node_string(*args[0])
                         : final->type == Type::String ? final->s : "<" + type_name(*final) + " Value>";
    return std::unexpected("non-function " + callee + " of type " + type_name(target));
  }

  // validateType, for the three parameter types the functions have.
  Value validate(const Value& v, Param type) {
    if (type == Param::Value) return v;
    Value inner = unbox(v);
    if (type == Param::Any || inner.type == Type::String) return inner;
    if (v.type == Type::Invalid) errorf("invalid value; expected string");
    errorf("wrong type for value; expected string; got " + (v.type == Type::Nil ? type_name(v) : type_name(inner)));
  }

  Value eval_arg(const Value& dot, Param type, const Node& n) {
    at(n);
    switch (n.kind) {
      case Kind::Dot: return validate(dot, type);
      case Kind::Nil:
        if (type == Param::String) errorf("cannot assign nil to string");
        return Value{};
      case Kind::Field: return validate(eval_field_node(dot, n, {}, nullptr), type);  // Go passes [n]: no arguments
      case Kind::Variable: return validate(eval_variable_node(n, {}, nullptr), type);
      case Kind::Pipe: return validate(eval_pipeline(dot, &n), type);
      case Kind::Identifier: return validate(eval_function(dot, n, n, {}, nullptr), type);
      case Kind::Chain: return validate(eval_chain_node(dot, n, {}, nullptr), type);
      default: break;
    }
    if (type == Param::String) {
      if (n.kind != Kind::String) errorf("expected string; found " + node_string(n));
      return make_string(n.value);
    }
    switch (n.kind) {
      case Kind::Bool: return make_bool(n.flag);
      case Kind::Number: return ideal_constant(n);
      case Kind::String: return make_string(n.value);
      default: errorf("can't handle assignment of " + node_string(n) + " to empty interface argument");
    }
  }
};

}  // namespace gotmpl
}  // namespace

Result<GoTemplate> parse_go_template(std::string_view text) {
  auto tree = std::make_shared<GoTemplate::Tree>();
  tree->text = text;
  try {
    gotmpl::Parser(*tree).parse();
  } catch (const gotmpl::Failure& failure) {
    return fail(failure.message);
  }
  return GoTemplate(std::move(tree));
}

Result<void> execute(const GoTemplate& tmpl, const nlohmann::json& data, std::string& out, bool missing_keys_allowed) {
  try {
    gotmpl::Exec(*tmpl.m_tree, out, missing_keys_allowed).run(data);
  } catch (const gotmpl::Failure& failure) {
    return fail(failure.message);
  }
  return {};
}

}  // namespace kw::cli
