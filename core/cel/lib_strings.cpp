// cel-go's strings extension as Kubernetes enables it: charAt, indexOf, lastIndexOf,
// lowerAscii, upperAscii, replace, split, substring, trim, join, reverse, strings.quote and
// format. Indexes count code points, not bytes.
#include <cstdio>

#include "core/cel/functions.hpp"

namespace kw::cel {

namespace {

using Kind = Value::Kind;
using Args = std::span<const Value>;
using Style = Function::Style;

// Byte offsets of each code point, plus the end.
std::vector<std::size_t> boundaries(std::string_view s) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) out.push_back(i);
  }
  out.push_back(s.size());
  return out;
}

bool kinds(Args args, std::initializer_list<Kind> expected) {
  std::size_t i = 0;
  for (Kind k : expected) {
    if (i < args.size() && args[i].kind() != k) return false;
    ++i;
  }
  return true;
}

Value out_of_range(std::int64_t i) { return Value::error("index out of range: " + std::to_string(i)); }

Value char_at(Args args, CallContext& context) {
  if (!kinds(args, {Kind::string, Kind::integer})) return no_such_overload();
  const std::string& s = args[0].as_string();
  auto b = boundaries(s);
  std::int64_t i = args[1].as_int();
  context.extra_cost = traversal_cost(s.size());
  if (i < 0 || static_cast<std::size_t>(i) >= b.size()) return out_of_range(i);
  if (static_cast<std::size_t>(i) == b.size() - 1) return Value("");
  return Value(s.substr(b[i], b[i + 1] - b[i]));
}

// The code point index of a byte offset.
std::int64_t index_of_byte(const std::vector<std::size_t>& b, std::size_t byte) {
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (b[i] == byte) return static_cast<std::int64_t>(i);
  }
  return -1;
}

Value index_of(Args args, CallContext& context) {
  if (args[0].kind() == Kind::list) return list_index_of(args, context, false);
  if (!kinds(args, {Kind::string, Kind::string, Kind::integer})) return no_such_overload();
  const std::string& s = args[0].as_string();
  const std::string& sub = args[1].as_string();
  auto b = boundaries(s);
  std::int64_t offset = args.size() == 3 ? args[2].as_int() : 0;
  context.extra_cost = traversal_cost(s.size());
  if (offset < 0 || static_cast<std::size_t>(offset) >= b.size()) return out_of_range(offset);
  std::size_t found = s.find(sub, b[offset]);
  if (found == std::string::npos) return Value(std::int64_t{-1});
  return Value(index_of_byte(b, found));
}

Value last_index_of(Args args, CallContext& context) {
  if (args[0].kind() == Kind::list) return list_index_of(args, context, true);
  if (!kinds(args, {Kind::string, Kind::string, Kind::integer})) return no_such_overload();
  const std::string& s = args[0].as_string();
  const std::string& sub = args[1].as_string();
  auto b = boundaries(s);
  auto count = static_cast<std::int64_t>(b.size() - 1);
  std::int64_t offset = args.size() == 3 ? args[2].as_int() : count;
  context.extra_cost = traversal_cost(s.size());
  if (offset < 0 || offset > count) return out_of_range(offset);
  if (sub.empty()) return Value(offset);
  std::size_t found = s.rfind(sub, b[offset]);
  if (found == std::string::npos) return Value(std::int64_t{-1});
  return Value(index_of_byte(b, found));
}

template <bool Upper>
Value change_case(Args args, CallContext& context) {
  if (!kinds(args, {Kind::string})) return no_such_overload();
  std::string s = args[0].as_string();
  for (char& c : s) {
    if (Upper && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    if (!Upper && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  context.extra_cost = traversal_cost(s.size());
  return Value(std::move(s));
}

Value replace(Args args, CallContext& context) {
  if (!kinds(args, {Kind::string, Kind::string, Kind::string, Kind::integer})) {
    return no_such_overload();
  }
  const std::string& s = args[0].as_string();
  const std::string& from = args[1].as_string();
  const std::string& to = args[2].as_string();
  std::int64_t n = args.size() == 4 ? args[3].as_int() : -1;
  context.extra_cost = traversal_cost(s.size());
  std::string out;
  std::size_t pos = 0;
  auto b = boundaries(s);
  std::size_t next_cp = 0;  // for an empty `from`: insert between code points
  while (n != 0) {
    std::size_t found = from.empty() ? (next_cp < b.size() ? b[next_cp++] : std::string::npos)
                                     : s.find(from, pos);
    if (found == std::string::npos) break;
    out.append(s, pos, found - pos);
    out += to;
    if (from.empty() && found < s.size()) {
      out.append(s, found, b[next_cp] - found);
      pos = b[next_cp];
    } else {
      pos = found + from.size();
    }
    if (n > 0) --n;
    if (pos > s.size()) break;
  }
  if (pos < s.size()) out.append(s, pos);
  return Value(std::move(out));
}

Value split(Args args, CallContext& context) {
  if (!kinds(args, {Kind::string, Kind::string, Kind::integer})) return no_such_overload();
  const std::string& s = args[0].as_string();
  const std::string& sep = args[1].as_string();
  std::int64_t n = args.size() == 3 ? args[2].as_int() : -1;
  context.extra_cost = traversal_cost(s.size());
  std::vector<Value> out;
  if (n == 0) return Value(std::move(out));
  if (sep.empty()) {
    auto b = boundaries(s);
    for (std::size_t i = 0; i + 1 < b.size(); ++i) {
      if (n > 0 && static_cast<std::int64_t>(out.size()) == n - 1) {
        out.emplace_back(s.substr(b[i]));
        break;
      }
      out.emplace_back(s.substr(b[i], b[i + 1] - b[i]));
    }
    return Value(std::move(out));
  }
  std::size_t pos = 0;
  while (n < 0 || static_cast<std::int64_t>(out.size()) < n - 1) {
    std::size_t found = s.find(sep, pos);
    if (found == std::string::npos) break;
    out.emplace_back(s.substr(pos, found - pos));
    pos = found + sep.size();
  }
  out.emplace_back(s.substr(pos));
  return Value(std::move(out));
}

Value substring(Args args, CallContext& context) {
  if (!kinds(args, {Kind::string, Kind::integer, Kind::integer})) return no_such_overload();
  const std::string& s = args[0].as_string();
  auto b = boundaries(s);
  auto count = static_cast<std::int64_t>(b.size() - 1);
  std::int64_t start = args[1].as_int();
  std::int64_t end = args.size() == 3 ? args[2].as_int() : count;
  context.extra_cost = traversal_cost(s.size());
  if (start < 0 || start > count) return out_of_range(start);
  if (end < 0 || end > count) return out_of_range(end);
  if (start > end) {
    return Value::error("invalid substring range. start: " + std::to_string(start) +
                        ", end: " + std::to_string(end));
  }
  return Value(s.substr(b[start], b[end] - b[start]));
}

// Unicode white space, as Go's unicode.IsSpace.
std::size_t space_at(std::string_view s, std::size_t i) {
  static constexpr std::string_view k_spaces[] = {
      " ", "\t", "\n", "\v", "\f", "\r", "\xC2\x85", "\xC2\xA0", "\xE1\x9A\x80",
      "\xE2\x80\xA8", "\xE2\x80\xA9", "\xE2\x80\xAF", "\xE2\x81\x9F", "\xE3\x80\x80"};
  for (auto sp : k_spaces) {
    if (s.substr(i, sp.size()) == sp) return sp.size();
  }
  // U+2000..U+200A
  if (s.substr(i, 2) == "\xE2\x80" && i + 2 < s.size() &&
      static_cast<unsigned char>(s[i + 2]) >= 0x80 && static_cast<unsigned char>(s[i + 2]) <= 0x8A) {
    return 3;
  }
  return 0;
}

Value trim(Args args, CallContext& context) {
  if (!kinds(args, {Kind::string})) return no_such_overload();
  std::string_view s = args[0].as_string();
  context.extra_cost = traversal_cost(s.size());
  while (std::size_t n = space_at(s, 0)) s.remove_prefix(n);
  auto b = boundaries(s);
  while (b.size() > 1) {
    std::size_t last = b[b.size() - 2];
    if (space_at(s, last) != s.size() - last) break;
    s = s.substr(0, last);
    b.pop_back();
  }
  return Value(std::string(s));
}

Value join(Args args, CallContext& context) {
  if (args[0].kind() != Kind::list || (args.size() == 2 && args[1].kind() != Kind::string)) {
    return no_such_overload();
  }
  std::string sep = args.size() == 2 ? args[1].as_string() : "";
  std::string out;
  for (std::size_t i = 0; i < args[0].size(); ++i) {
    Value item = args[0].at(i);
    if (item.kind() != Kind::string) return no_such_overload();
    if (i > 0) out += sep;
    out += item.as_string();
  }
  context.extra_cost = traversal_cost(out.size());
  return Value(std::move(out));
}

Value reverse(Args args, CallContext& context) {
  if (!kinds(args, {Kind::string})) return no_such_overload();
  const std::string& s = args[0].as_string();
  auto b = boundaries(s);
  std::string out;
  for (std::size_t i = b.size() - 1; i-- > 0;) out.append(s, b[i], b[i + 1] - b[i]);
  context.extra_cost = traversal_cost(s.size());
  return Value(std::move(out));
}

Value quote(Args args, CallContext& context) {
  if (!kinds(args, {Kind::string})) return no_such_overload();
  std::string out = "\"";
  for (char c : args[0].as_string()) {
    switch (c) {
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default: out += c;
    }
  }
  context.extra_cost = traversal_cost(out.size());
  return Value(out + "\"");
}

}  // namespace

// format() lives in lib_format.cpp.
Value string_format(std::span<const Value> args, CallContext& context);

void add_string_functions(Functions& f) {
  f.add({"charAt", Style::receiver, 2, 2, char_at});
  f.add({"indexOf", Style::receiver, 2, 3, index_of});
  f.add({"lastIndexOf", Style::receiver, 2, 3, last_index_of});
  f.add({"lowerAscii", Style::receiver, 1, 1, change_case<false>});
  f.add({"upperAscii", Style::receiver, 1, 1, change_case<true>});
  f.add({"replace", Style::receiver, 3, 4, replace});
  f.add({"split", Style::receiver, 2, 3, split});
  f.add({"substring", Style::receiver, 2, 3, substring});
  f.add({"trim", Style::receiver, 1, 1, trim});
  f.add({"join", Style::receiver, 1, 2, join});
  f.add({"reverse", Style::receiver, 1, 1, reverse});
  f.add({"strings.quote", Style::global, 1, 1, quote});
  f.add({"format", Style::receiver, 2, 2, string_format});
}

}  // namespace kw::cel
