#include "core/api/selector.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include <nlohmann/json.hpp>

namespace kw::api {
namespace {

constexpr std::size_t k_max_name_length = 63;
constexpr std::size_t k_max_prefix_length = 253;

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// [A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?
bool is_qualified_name_part(std::string_view s) {
  if (s.empty() || !is_alnum(s.front()) || !is_alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return is_alnum(c) || c == '-' || c == '_' || c == '.'; });
}

// Lowercase RFC 1123 subdomain: labels of [a-z0-9]([-a-z0-9]*[a-z0-9])? joined by '.'.
bool is_dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > k_max_prefix_length) return false;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    if (label.empty() || !is_lower_alnum(label.front()) || !is_lower_alnum(label.back())) return false;
    if (!std::all_of(label.begin(), label.end(), [](char c) { return is_lower_alnum(c) || c == '-'; }))
      return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

const char* k_name_rule =
    "must be 63 characters or less, consist of alphanumeric characters, '-', '_' or '.', and "
    "start and end with an alphanumeric character (e.g. 'MyName', 'my.name', '123-abc')";

std::string in_quotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

}  // namespace

Result<void> validate_label_key(std::string_view key) {
  std::string_view name = key;
  if (auto slash = key.find('/'); slash != std::string_view::npos) {
    std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (prefix.empty()) return fail("invalid label key " + in_quotes(key) + ": prefix part must be non-empty");
    if (!is_dns_subdomain(prefix))
      return fail("invalid label key " + in_quotes(key) + ": prefix part " + in_quotes(prefix) +
                  " must be a lowercase DNS subdomain of at most 253 characters (a-z, 0-9, '-' "
                  "and '.', each dot-separated part starting and ending with a letter or digit)");
    if (name.find('/') != std::string_view::npos)
      return fail("invalid label key " + in_quotes(key) +
                  ": a qualified name must consist of an optional DNS prefix and a name, "
                  "separated by a single '/'");
  }
  if (name.empty()) return fail("invalid label key " + in_quotes(key) + ": name part must be non-empty");
  if (name.size() > k_max_name_length)
    return fail("invalid label key " + in_quotes(key) + ": name part " + in_quotes(name) + " is " +
                std::to_string(name.size()) + " characters long; it must be 63 characters or less");
  if (!is_qualified_name_part(name))
    return fail("invalid label key " + in_quotes(key) + ": name part " + in_quotes(name) + " " + k_name_rule);
  return {};
}

Result<void> validate_label_value(std::string_view value) {
  if (value.empty()) return {};
  if (value.size() > k_max_name_length)
    return fail("invalid label value " + in_quotes(value) + ": it is " + std::to_string(value.size()) +
                " characters long; it must be 63 characters or less");
  if (!is_qualified_name_part(value))
    return fail("invalid label value " + in_quotes(value) + ": a label value must be empty or " + k_name_rule);
  return {};
}

namespace {

std::optional<long long> parse_integer(std::string_view s) {
  long long v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

bool LabelRequirement::matches(const std::map<std::string, std::string>& labels) const {
  auto it = labels.find(key);
  bool present = it != labels.end();
  auto in_values = [&] {
    return present && std::binary_search(values.begin(), values.end(), it->second);
  };
  switch (op) {
    case LabelOperator::equals: return in_values();
    case LabelOperator::in: return in_values();
    case LabelOperator::not_equals: return !in_values();
    case LabelOperator::not_in: return !in_values();
    case LabelOperator::exists: return present;
    case LabelOperator::does_not_exist: return !present;
    case LabelOperator::greater_than:
    case LabelOperator::less_than: {
      if (!present || values.size() != 1) return false;
      auto have = parse_integer(it->second);
      auto want = parse_integer(values.front());
      if (!have || !want) return false;
      return op == LabelOperator::greater_than ? *have > *want : *have < *want;
    }
  }
  return false;
}

std::string LabelRequirement::to_string() const {
  // Values joined by commas. A set holding only the empty value is written "(,)": "()"
  // would not parse again (an empty set is refused).
  auto joined = [&] {
    if (values.size() == 1 && values.front().empty()) return std::string(",");
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + values[i];
    return out;
  };
  const std::string first = values.empty() ? std::string() : values.front();
  switch (op) {
    case LabelOperator::equals: return key + "=" + first;
    case LabelOperator::not_equals: return key + "!=" + first;
    case LabelOperator::in: return key + " in (" + joined() + ")";
    case LabelOperator::not_in: return key + " notin (" + joined() + ")";
    case LabelOperator::exists: return key;
    case LabelOperator::does_not_exist: return "!" + key;
    case LabelOperator::greater_than: return key + ">" + first;
    case LabelOperator::less_than: return key + "<" + first;
  }
  return key;
}

Result<void> LabelSelector::add(LabelRequirement requirement) {
  if (auto ok = validate_label_key(requirement.key); !ok) return ok;
  auto& values = requirement.values;
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  switch (requirement.op) {
    case LabelOperator::in:
    case LabelOperator::not_in:
      if (values.empty())
        return fail("label selector requirement on " + in_quotes(requirement.key) +
                    ": 'in' and 'notin' need at least one value");
      break;
    case LabelOperator::equals:
    case LabelOperator::not_equals:
      if (values.size() != 1)
        return fail("label selector requirement on " + in_quotes(requirement.key) + " needs exactly one value");
      break;
    case LabelOperator::exists:
    case LabelOperator::does_not_exist:
      if (!values.empty())
        return fail("label selector requirement on " + in_quotes(requirement.key) +
                    ": existence checks take no values");
      break;
    case LabelOperator::greater_than:
    case LabelOperator::less_than:
      if (values.size() != 1 || !parse_integer(values.front()))
        return fail("label selector requirement on " + in_quotes(requirement.key) +
                    ": '>' and '<' need one integer value");
      return insert_sorted(std::move(requirement));
  }
  for (const auto& v : values)
    if (auto ok = validate_label_value(v); !ok) return ok;
  return insert_sorted(std::move(requirement));
}

Result<void> LabelSelector::insert_sorted(LabelRequirement requirement) {
  auto pos = std::upper_bound(m_requirements.begin(), m_requirements.end(), requirement.key,
                              [](const std::string& k, const LabelRequirement& r) { return k < r.key; });
  m_requirements.insert(pos, std::move(requirement));
  return {};
}

bool LabelSelector::matches(const std::map<std::string, std::string>& labels) const {
  return std::all_of(m_requirements.begin(), m_requirements.end(),
                     [&](const LabelRequirement& r) { return r.matches(labels); });
}

std::string LabelSelector::to_string() const {
  std::string out;
  for (const auto& r : m_requirements) out += (out.empty() ? "" : ",") + r.to_string();
  return out;
}

Result<LabelSelector> LabelSelector::from_label_selector_json(const nlohmann::json& selector) {
  LabelSelector result;
  if (selector.is_null()) return result;
  if (!selector.is_object()) return fail("a label selector must be an object with matchLabels/matchExpressions");
  if (auto it = selector.find("matchLabels"); it != selector.end() && it->is_object()) {
    for (const auto& [key, value] : it->items()) {
      if (!value.is_string()) return fail("matchLabels[" + in_quotes(key) + "] must be a string");
      if (auto ok = result.add({key, LabelOperator::equals, {value.get<std::string>()}}); !ok)
        return std::unexpected(ok.error());
    }
  }
  if (auto it = selector.find("matchExpressions"); it != selector.end() && it->is_array()) {
    for (const auto& expr : *it) {
      if (!expr.is_object()) return fail("matchExpressions entries must be objects");
      LabelRequirement req;
      req.key = expr.value("key", "");
      std::string op = expr.value("operator", "");
      if (op == "In") req.op = LabelOperator::in;
      else if (op == "NotIn") req.op = LabelOperator::not_in;
      else if (op == "Exists") req.op = LabelOperator::exists;
      else if (op == "DoesNotExist") req.op = LabelOperator::does_not_exist;
      else return fail("matchExpressions operator " + in_quotes(op) + " is not one of In, NotIn, Exists, DoesNotExist");
      if (auto v = expr.find("values"); v != expr.end() && v->is_array())
        for (const auto& s : *v)
          if (s.is_string()) req.values.push_back(s.get<std::string>());
      if (auto ok = result.add(std::move(req)); !ok) return std::unexpected(ok.error());
    }
  }
  return result;
}

std::map<std::string, std::string> labels_of(const nlohmann::json& object) {
  std::map<std::string, std::string> labels;
  if (!object.is_object()) return labels;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return labels;
  auto found = meta->find("labels");
  if (found == meta->end() || !found->is_object()) return labels;
  for (const auto& [key, value] : found->items())
    if (value.is_string()) labels.emplace(key, value.get<std::string>());
  return labels;
}

}  // namespace kw::api

// ---- label selector parsing -------------------------------------------------------------

namespace kw::api {
namespace {

enum class TokenKind { identifier, in, not_in, open, close, comma, equals, double_equals, not_equals, bang, greater, less, end };

struct Token {
  TokenKind kind;
  std::string text;
  std::size_t position;
};

bool is_special(char c) {
  return c == '!' || c == '=' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::vector<Token> lex_selector(std::string_view s) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (is_space(c)) { ++i; continue; }
    std::size_t start = i;
    auto two = s.substr(i, 2);
    if (two == "==") { tokens.push_back({TokenKind::double_equals, "==", start}); i += 2; continue; }
    if (two == "!=") { tokens.push_back({TokenKind::not_equals, "!=", start}); i += 2; continue; }
    if (is_special(c)) {
      TokenKind kind = c == '!' ? TokenKind::bang : c == '=' ? TokenKind::equals : c == '(' ? TokenKind::open
                       : c == ')' ? TokenKind::close : c == ',' ? TokenKind::comma
                       : c == '>' ? TokenKind::greater : TokenKind::less;
      tokens.push_back({kind, std::string(1, c), start});
      ++i;
      continue;
    }
    while (i < s.size() && !is_space(s[i]) && !is_special(s[i])) ++i;
    std::string word(s.substr(start, i - start));
    TokenKind kind = word == "in" ? TokenKind::in : word == "notin" ? TokenKind::not_in : TokenKind::identifier;
    tokens.push_back({kind, std::move(word), start});
  }
  tokens.push_back({TokenKind::end, "", s.size()});
  return tokens;
}

class LabelParser {
 public:
  LabelParser(std::string_view text) : m_text(text), m_tokens(lex_selector(text)) {}

  Result<LabelSelector> parse() {
    LabelSelector selector;
    if (peek().kind == TokenKind::end) return selector;
    while (true) {
      auto requirement = parse_requirement();
      if (!requirement) return std::unexpected(requirement.error());
      if (auto ok = selector.add(std::move(*requirement)); !ok)
        return fail("invalid label selector " + in_quotes(m_text) + ": " + ok.error().message);
      const Token& t = next();
      if (t.kind == TokenKind::end) return selector;
      if (t.kind != TokenKind::comma) return error_at(t, "',' or end of selector");
    }
  }

 private:
  const Token& peek() const { return m_tokens[m_pos]; }
  const Token& next() { return m_tokens[m_pos < m_tokens.size() - 1 ? m_pos++ : m_pos]; }

  std::unexpected<Error> error_at(const Token& t, std::string_view expected) const {
    std::string found = t.kind == TokenKind::end ? "end of selector" : "'" + t.text + "'";
    return fail("invalid label selector " + in_quotes(m_text) + ": at position " + std::to_string(t.position) +
                ": found " + found + ", expected " + std::string(expected));
  }

  static bool is_word(const Token& t) {
    return t.kind == TokenKind::identifier || t.kind == TokenKind::in || t.kind == TokenKind::not_in;
  }

  Result<LabelRequirement> parse_requirement() {
    LabelRequirement req;
    if (peek().kind == TokenKind::bang) {
      next();
      const Token& key = next();
      if (key.kind != TokenKind::identifier) return error_at(key, "a label key after '!'");
      req.key = key.text;
      req.op = LabelOperator::does_not_exist;
      return req;
    }
    const Token& key = next();
    if (key.kind != TokenKind::identifier) return error_at(key, "a label key or '!'");
    req.key = key.text;
    const Token& op = peek();
    switch (op.kind) {
      case TokenKind::end:
      case TokenKind::comma:
        req.op = LabelOperator::exists;
        return req;
      case TokenKind::equals:
      case TokenKind::double_equals: req.op = LabelOperator::equals; break;
      case TokenKind::not_equals: req.op = LabelOperator::not_equals; break;
      case TokenKind::greater: req.op = LabelOperator::greater_than; break;
      case TokenKind::less: req.op = LabelOperator::less_than; break;
      case TokenKind::in: req.op = LabelOperator::in; break;
      case TokenKind::not_in: req.op = LabelOperator::not_in; break;
      default: return error_at(op, "one of '=', '==', '!=', 'in', 'notin', '>', '<', ',' after key '" + req.key + "'");
    }
    next();
    if (req.op == LabelOperator::in || req.op == LabelOperator::not_in) {
      auto values = parse_value_list();
      if (!values) return std::unexpected(values.error());
      req.values = std::move(*values);
      return req;
    }
    const Token& value = peek();
    if (is_word(value)) {
      req.values.push_back(next().text);
    } else if (value.kind == TokenKind::end || value.kind == TokenKind::comma) {
      req.values.emplace_back();  // "key=" selects an empty value
    } else {
      return error_at(value, "a label value");
    }
    return req;
  }

  Result<std::vector<std::string>> parse_value_list() {
    const Token& open = next();
    if (open.kind != TokenKind::open) return error_at(open, "'(' to start the value list");
    std::vector<std::string> values;
    bool want_value = true;
    while (true) {
      const Token& t = next();
      if (t.kind == TokenKind::close) {
        if (want_value && !values.empty()) values.emplace_back();  // "(a,)" has an empty value
        return values;
      }
      if (want_value && is_word(t)) {
        values.push_back(t.text);
        want_value = false;
      } else if (t.kind == TokenKind::comma) {
        if (want_value) values.emplace_back();
        want_value = true;
      } else {
        return error_at(t, want_value ? "a value, ',' or ')'" : "',' or ')'");
      }
    }
  }

  std::string_view m_text;
  std::vector<Token> m_tokens;
  std::size_t m_pos = 0;
};

}  // namespace

Result<LabelSelector> LabelSelector::parse(std::string_view text) { return LabelParser(text).parse(); }

// ---- field selectors ---------------------------------------------------------------------

namespace {

std::vector<std::string_view> split_unescaped_commas(std::string_view s) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\') { ++i; continue; }
    if (s[i] == ',') { parts.push_back(s.substr(start, i - start)); start = i + 1; }
  }
  parts.push_back(s.substr(start));
  return parts;
}

Result<std::string> unescape_field_value(std::string_view term, std::string_view value) {
  std::string out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    char c = value[i];
    if (c == '\\') {
      if (i + 1 == value.size())
        return fail("invalid field selector term " + in_quotes(term) + ": a value may not end with a single '\\'");
      char e = value[++i];
      if (e != '\\' && e != ',' && e != '=')
        return fail("invalid field selector term " + in_quotes(term) + ": invalid escape sequence '\\" +
                    std::string(1, e) + "' (only \\\\, \\, and \\= are allowed)");
      out += e;
    } else if (c == '=' || c == ',') {
      return fail("invalid field selector term " + in_quotes(term) + ": '" + std::string(1, c) +
                  "' in a value must be escaped as '\\" + std::string(1, c) + "'");
    } else {
      out += c;
    }
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

Result<FieldRequirement> parse_field_term(std::string_view term) {
  for (std::size_t i = 0; i < term.size(); ++i) {
    if (term[i] == '\\') { ++i; continue; }
    std::size_t op_len = 0;
    FieldRequirement req;
    if (term.substr(i, 2) == "!=") { op_len = 2; req.op = FieldOperator::not_equals; }
    else if (term.substr(i, 2) == "==") op_len = 2;
    else if (term[i] == '=') op_len = 1;
    if (op_len == 0) continue;
    std::string_view field = trim(term.substr(0, i));
    if (field.empty()) return fail("invalid field selector term " + in_quotes(term) + ": missing field name before the operator");
    if (std::any_of(field.begin(), field.end(), [](char c) { return is_space(c) || c == '\\'; }))
      return fail("invalid field selector term " + in_quotes(term) + ": field name " + in_quotes(field) + " contains spaces or '\\'");
    if (field.back() == '!')
      return fail("invalid field selector term " + in_quotes(term) + ": field name " + in_quotes(field) +
                  " may not end in '!' (did you mean '!='?)");
    auto value = unescape_field_value(term, term.substr(i + op_len));
    if (!value) return std::unexpected(value.error());
    req.field = std::string(field);
    req.value = std::move(*value);
    return req;
  }
  return fail("invalid field selector term " + in_quotes(term) +
              ": expected field=value, field==value or field!=value");
}

}  // namespace

std::string escape_field_value(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == ',' || c == '=') out += '\\';
    out += c;
  }
  return out;
}

Result<FieldSelector> FieldSelector::parse(std::string_view text) {
  FieldSelector selector;
  if (trim(text).empty()) return selector;
  for (std::string_view term : split_unescaped_commas(text)) {
    if (trim(term).empty()) continue;
    auto req = parse_field_term(term);
    if (!req) return std::unexpected(req.error());
    selector.m_requirements.push_back(std::move(*req));
  }
  return selector;
}

bool FieldSelector::matches(const std::map<std::string, std::string>& fields) const {
  static const std::string k_empty;
  return std::all_of(m_requirements.begin(), m_requirements.end(), [&](const FieldRequirement& r) {
    auto it = fields.find(r.field);
    const std::string& have = it == fields.end() ? k_empty : it->second;
    return (have == r.value) == (r.op == FieldOperator::equals);
  });
}

std::string FieldSelector::to_string() const {
  std::string out;
  for (const auto& r : m_requirements) {
    if (!out.empty()) out += ',';
    out += r.field + (r.op == FieldOperator::equals ? "=" : "!=") + escape_field_value(r.value);
  }
  return out;
}

}  // namespace kw::api
