// Kubernetes' regex library: find and findAll (RE2 syntax, as Go's regexp).
#include <re2/re2.h>

#include "core/cel/functions.hpp"

namespace kw::cel {

namespace {

using Kind = Value::Kind;
using Args = std::span<const Value>;
using Style = Function::Style;

// The first match of `re` in `text` at or after `from`; false when there is none.
bool next_match(const re2::RE2& re, std::string_view text, std::size_t from,
                std::string_view& match) {
  if (from > text.size()) return false;
  re2::StringPiece piece;
  if (!re.Match(re2::StringPiece(text.data(), text.size()), from, text.size(),
                re2::RE2::UNANCHORED, &piece, 1)) {
    return false;
  }
  match = std::string_view(piece.data(), piece.size());
  return true;
}

Value find(Args args, CallContext& context) {
  if (args[0].kind() != Kind::string || args[1].kind() != Kind::string) return no_such_overload();
  Value error;
  const re2::RE2* re = compiled_regex(context, args[1].as_string(), error);
  if (re == nullptr) return error;
  context.extra_cost = traversal_cost(args[0].as_string().size());
  std::string_view match;
  if (!next_match(*re, args[0].as_string(), 0, match)) return Value("");
  return Value(std::string(match));
}

Value find_all(Args args, CallContext& context) {
  if (args[0].kind() != Kind::string || args[1].kind() != Kind::string ||
      (args.size() == 3 && args[2].kind() != Kind::integer)) {
    return no_such_overload();
  }
  Value error;
  const re2::RE2* re = compiled_regex(context, args[1].as_string(), error);
  if (re == nullptr) return error;
  std::int64_t limit = args.size() == 3 ? args[2].as_int() : -1;
  std::string_view text = args[0].as_string();
  context.extra_cost = traversal_cost(text.size());
  std::vector<Value> out;
  std::size_t pos = 0;
  std::string_view match;
  std::size_t last_end = std::string_view::npos;
  while ((limit < 0 || static_cast<std::int64_t>(out.size()) < limit) &&
         next_match(*re, text, pos, match)) {
    auto start = static_cast<std::size_t>(match.data() - text.data());
    std::size_t end = start + match.size();
    // As Go: an empty match right after the previous match is skipped.
    if (!(match.empty() && start == last_end)) out.emplace_back(std::string(match));
    last_end = end;
    pos = end > start ? end : end + 1;
  }
  return Value(std::move(out));
}

}  // namespace

void add_regex_functions(Functions& f) {
  f.add({"find", Style::receiver, 2, 2, find});
  f.add({"findAll", Style::receiver, 2, 3, find_all});
}

}  // namespace kw::cel
