#include "cli/print/jsonpath.hpp"

#include <cctype>

namespace kw::cli {

using nlohmann::json;

namespace {

enum class StepKind { Field, AnyField, Index, Slice, Recursive, Filter };

struct Step {
  StepKind kind = StepKind::Field;
  std::string name;           // Field / Recursive ("" for ..*)
  long long index = 0;        // Index
  std::optional<long long> begin, end;  // Slice
  std::vector<Step> filter_path;  // Filter: path relative to @
  std::string op;                 // "", "==", "!=", "<", ">", "<=", ">="
  json literal;
};

using Path = std::vector<Step>;

Step make_step(StepKind kind, std::string name = {}) {
  Step step;
  step.kind = kind;
  step.name = std::move(name);
  return step;
}

class PathParser {
 public:
  explicit PathParser(std::string_view text) : m_text(text) {}

  Result<Path> parse() {
    Path path;
    skip_space();
    if (peek() == '@' || peek() == '$') ++m_pos;
    while (m_pos < m_text.size()) {
      skip_space();
      if (m_pos >= m_text.size()) break;
      const char c = m_text[m_pos];
      if (c == '.') {
        ++m_pos;
        if (peek() == '.') {
          ++m_pos;
          Step step = make_step(StepKind::Recursive, identifier());
          if (step.name == "*") step.name.clear();
          path.push_back(std::move(step));
          continue;
        }
        if (m_pos >= m_text.size()) break;
        if (peek() == '[') continue;
        std::string name = identifier();
        if (name.empty()) return fail("JSONPath '" + std::string(m_text) + "': expected a field name after '.'");
        path.push_back(name == "*" ? make_step(StepKind::AnyField) : make_step(StepKind::Field, name));
      } else if (c == '[') {
        auto step = bracket();
        if (!step) return std::unexpected(step.error());
        path.push_back(std::move(*step));
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        path.push_back(make_step(StepKind::Field, identifier()));
      } else {
        return fail("JSONPath '" + std::string(m_text) + "': unexpected '" + std::string(1, c) + "'");
      }
    }
    return path;
  }

 private:
  char peek() const { return m_pos < m_text.size() ? m_text[m_pos] : '\0'; }
  void skip_space() {
    while (m_pos < m_text.size() && m_text[m_pos] == ' ') ++m_pos;
  }
  std::string identifier() {
    const std::size_t start = m_pos;
    while (m_pos < m_text.size() && m_text[m_pos] != '.' && m_text[m_pos] != '[' && m_text[m_pos] != ' ' &&
           m_text[m_pos] != ')' && m_text[m_pos] != '=' && m_text[m_pos] != '!' && m_text[m_pos] != '<' &&
           m_text[m_pos] != '>')
      ++m_pos;
    return std::string(m_text.substr(start, m_pos - start));
  }
  std::optional<std::string> quoted() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') return std::nullopt;
    ++m_pos;
    std::string out;
    while (m_pos < m_text.size() && m_text[m_pos] != quote) {
      if (m_text[m_pos] == '\\' && m_pos + 1 < m_text.size()) ++m_pos;
      out.push_back(m_text[m_pos++]);
    }
    if (m_pos >= m_text.size()) return std::nullopt;
    ++m_pos;
    return out;
  }
  Result<json> literal() {
    skip_space();
    if (auto text = quoted()) return json(*text);
    const std::size_t start = m_pos;
    while (m_pos < m_text.size() && m_text[m_pos] != ')' && m_text[m_pos] != ' ') ++m_pos;
    std::string word(m_text.substr(start, m_pos - start));
    json value = json::parse(word, nullptr, false);
    if (value.is_discarded()) return fail("JSONPath '" + std::string(m_text) + "': bad literal '" + word + "'");
    return value;
  }

  Result<Step> bracket() {
    ++m_pos;  // '['
    skip_space();
    Step step;
    if (auto name = quoted()) {
      step = make_step(StepKind::Field, *name);
    } else if (peek() == '*') {
      ++m_pos;
      step = make_step(StepKind::Slice);
    } else if (peek() == '?') {
      ++m_pos;
      skip_space();
      if (peek() != '(') return fail("JSONPath '" + std::string(m_text) + "': expected '(' after '?'");
      ++m_pos;
      const std::size_t start = m_pos;
      int depth = 1;
      bool in_quote = false;
      char quote = 0;
      for (; m_pos < m_text.size(); ++m_pos) {
        const char c = m_text[m_pos];
        if (in_quote) {
          if (c == quote) in_quote = false;
        } else if (c == '\'' || c == '"') {
          in_quote = true;
          quote = c;
        } else if (c == '(') {
          ++depth;
        } else if (c == ')' && --depth == 0) {
          break;
        }
      }
      std::string_view inner = m_text.substr(start, m_pos - start);
      ++m_pos;  // ')'
      auto parsed = filter(inner);
      if (!parsed) return std::unexpected(parsed.error());
      step = std::move(*parsed);
    } else {
      auto number = [&]() -> std::optional<long long> {
        skip_space();
        const std::size_t start = m_pos;
        if (peek() == '-') ++m_pos;
        while (std::isdigit(static_cast<unsigned char>(peek()))) ++m_pos;
        if (m_pos == start) return std::nullopt;
        return std::stoll(std::string(m_text.substr(start, m_pos - start)));
      };
      auto first = number();
      skip_space();
      if (peek() == ':') {
        ++m_pos;
        step = make_step(StepKind::Slice);
        step.begin = first;
        step.end = number();
        skip_space();
        if (peek() == ':') {
          ++m_pos;
          number();
        }
      } else if (first) {
        step = make_step(StepKind::Index);
        step.index = *first;
      } else {
        return fail("JSONPath '" + std::string(m_text) + "': bad subscript");
      }
    }
    skip_space();
    if (peek() != ']') return fail("JSONPath '" + std::string(m_text) + "': missing ']'");
    ++m_pos;
    return step;
  }

  Result<Step> filter(std::string_view inner) {
    Step step = make_step(StepKind::Filter);
    std::size_t op_at = std::string_view::npos;
    std::size_t op_len = 0;
    bool in_quote = false;
    for (std::size_t i = 0; i < inner.size(); ++i) {
      const char c = inner[i];
      if (c == '\'' || c == '"') in_quote = !in_quote;
      if (in_quote) continue;
      for (std::string_view op : {"==", "!=", "<=", ">=", "<", ">"}) {
        if (inner.substr(i, op.size()) == op) {
          op_at = i;
          op_len = op.size();
          step.op = std::string(op);
          break;
        }
      }
      if (op_at != std::string_view::npos) break;
    }
    PathParser left(inner.substr(0, op_at));
    auto path = left.parse();
    if (!path) return std::unexpected(path.error());
    step.filter_path = std::move(*path);
    if (op_at != std::string_view::npos) {
      PathParser right(inner.substr(op_at + op_len));
      auto value = right.literal();
      if (!value) return std::unexpected(value.error());
      step.literal = std::move(*value);
    }
    return step;
  }

  std::string_view m_text;
  std::size_t m_pos = 0;
};

void evaluate(const Path& path, std::size_t at, const json& value, std::vector<json>& out);

void recurse_all(const json& value, const std::string& name, const Path& path, std::size_t at,
                 std::vector<json>& out) {
  if (name.empty()) {
    evaluate(path, at, value, out);
  } else if (value.is_object()) {
    if (auto it = value.find(name); it != value.end()) evaluate(path, at, *it, out);
  }
  if (value.is_object() || value.is_array())
    for (const auto& child : value) recurse_all(child, name, path, at, out);
}

bool compare(const json& left, const std::string& op, const json& right) {
  if (op == "==") return left == right || (left.is_number() && right.is_number() && left.get<double>() == right.get<double>());
  if (op == "!=") return !compare(left, "==", right);
  if (left.is_number() && right.is_number()) {
    const double a = left.get<double>(), b = right.get<double>();
    return op == "<" ? a < b : op == ">" ? a > b : op == "<=" ? a <= b : a >= b;
  }
  if (left.is_string() && right.is_string()) {
    const auto& a = left.get_ref<const std::string&>();
    const auto& b = right.get_ref<const std::string&>();
    return op == "<" ? a < b : op == ">" ? a > b : op == "<=" ? a <= b : a >= b;
  }
  return false;
}

void evaluate(const Path& path, std::size_t at, const json& value, std::vector<json>& out) {
  if (at == path.size()) {
    out.push_back(value);
    return;
  }
  const Step& step = path[at];
  switch (step.kind) {
    case StepKind::Field:
      if (value.is_object())
        if (auto it = value.find(step.name); it != value.end()) evaluate(path, at + 1, *it, out);
      return;
    case StepKind::AnyField:
      if (value.is_object() || value.is_array())
        for (const auto& child : value) evaluate(path, at + 1, child, out);
      return;
    case StepKind::Index: {
      if (!value.is_array()) return;
      const long long size = static_cast<long long>(value.size());
      const long long i = step.index < 0 ? size + step.index : step.index;
      if (i >= 0 && i < size) evaluate(path, at + 1, value[static_cast<std::size_t>(i)], out);
      return;
    }
    case StepKind::Slice: {
      if (!value.is_array()) {
        if (value.is_object() && !step.begin && !step.end)
          for (const auto& child : value) evaluate(path, at + 1, child, out);
        return;
      }
      const long long size = static_cast<long long>(value.size());
      auto clamp = [size](long long v) { return std::max(0LL, std::min(size, v < 0 ? size + v : v)); };
      const long long b = step.begin ? clamp(*step.begin) : 0;
      const long long e = step.end ? clamp(*step.end) : size;
      for (long long i = b; i < e; ++i) evaluate(path, at + 1, value[static_cast<std::size_t>(i)], out);
      return;
    }
    case StepKind::Recursive:
      recurse_all(value, step.name, path, at + 1, out);
      return;
    case StepKind::Filter: {
      if (!value.is_array()) return;
      for (const auto& item : value) {
        std::vector<json> found;
        evaluate(step.filter_path, 0, item, found);
        bool keep = false;
        if (step.op.empty()) keep = !found.empty() && !(found[0].is_boolean() && !found[0].get<bool>());
        else
          for (const auto& f : found) keep = keep || compare(f, step.op, step.literal);
        if (keep) evaluate(path, at + 1, item, out);
      }
      return;
    }
  }
}

}  // namespace

struct JsonPathTemplate::Node {
  enum class Kind { Text, Path, Range } kind = Kind::Text;
  std::string text;
  Path path;
  std::string source;
  std::vector<std::unique_ptr<Node>> children;  // Range
};

JsonPathTemplate::JsonPathTemplate() = default;
JsonPathTemplate::~JsonPathTemplate() = default;
JsonPathTemplate::JsonPathTemplate(JsonPathTemplate&&) noexcept = default;
JsonPathTemplate& JsonPathTemplate::operator=(JsonPathTemplate&&) noexcept = default;

std::string jsonpath_text(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

namespace {

std::string unescape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      const char c = text[++i];
      out.push_back(c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c);
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

}  // namespace

Result<JsonPathTemplate> JsonPathTemplate::parse(std::string_view text) {
  JsonPathTemplate out;
  std::string wrapped;
  if (text.find('{') == std::string_view::npos) {
    wrapped = "{" + std::string(text) + "}";
    text = wrapped;
  }
  std::vector<std::vector<std::unique_ptr<Node>>*> stack{&out.m_nodes};
  std::vector<std::unique_ptr<Node>> ranges;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t open = text.find('{', pos);
    if (open != pos) {
      const std::size_t end = open == std::string_view::npos ? text.size() : open;
      auto node = std::make_unique<Node>();
      node->text = std::string(text.substr(pos, end - pos));
      stack.back()->push_back(std::move(node));
      pos = end;
      continue;
    }
    std::size_t close = open + 1;
    char quote = 0;
    for (; close < text.size(); ++close) {
      const char c = text[close];
      if (quote) {
        if (c == '\\') ++close;
        else if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '}') {
        break;
      }
    }
    if (close >= text.size()) return fail("JSONPath template '" + std::string(text) + "': unclosed '{'");
    std::string_view inner = trim(text.substr(open + 1, close - open - 1));
    pos = close + 1;
    if (inner == "end") {
      if (stack.size() < 2) return fail("JSONPath template: {end} without {range}");
      stack.pop_back();
      continue;
    }
    auto node = std::make_unique<Node>();
    if (inner.size() >= 2 && (inner.front() == '"' || inner.front() == '\'') && inner.back() == inner.front()) {
      node->text = unescape(inner.substr(1, inner.size() - 2));
      stack.back()->push_back(std::move(node));
      continue;
    }
    const bool is_range = inner.starts_with("range ");
    if (is_range) inner = trim(inner.substr(6));
    auto path = PathParser(inner).parse();
    if (!path) return std::unexpected(path.error());
    node->kind = is_range ? Node::Kind::Range : Node::Kind::Path;
    node->path = std::move(*path);
    node->source = std::string(inner);
    Node* raw = node.get();
    stack.back()->push_back(std::move(node));
    if (is_range) stack.push_back(&raw->children);
  }
  if (stack.size() != 1) return fail("JSONPath template '" + std::string(text) + "': {range} without {end}");
  return out;
}

namespace {

Result<void> render_nodes(const std::vector<std::unique_ptr<JsonPathTemplate::Node>>& nodes, const json& current,
                          bool allow_missing, std::string& out) {
  using Node = JsonPathTemplate::Node;
  for (const auto& node : nodes) {
    if (node->kind == Node::Kind::Text) {
      out += node->text;
      continue;
    }
    std::vector<json> found;
    evaluate(node->path, 0, current, found);
    if (node->kind == Node::Kind::Range) {
      std::vector<json> items;
      for (const auto& f : found) {
        if (f.is_array() && found.size() == 1) items.insert(items.end(), f.begin(), f.end());
        else items.push_back(f);
      }
      for (const auto& item : items) {
        auto rendered = render_nodes(node->children, item, allow_missing, out);
        if (!rendered) return rendered;
      }
      continue;
    }
    if (found.empty() && !allow_missing) return fail(node->source + " is not found");
    for (std::size_t i = 0; i < found.size(); ++i) {
      if (i) out += ' ';
      out += jsonpath_text(found[i]);
    }
  }
  return {};
}

}  // namespace

Result<std::string> JsonPathTemplate::render(const json& root, bool allow_missing) const {
  std::string out;
  auto rendered = render_nodes(m_nodes, root, allow_missing, out);
  if (!rendered) return std::unexpected(rendered.error());
  return out;
}

std::vector<json> JsonPathTemplate::values(const json& root) const {
  std::vector<json> out;
  for (const auto& node : m_nodes)
    if (node->kind == Node::Kind::Path) evaluate(node->path, 0, root, out);
  return out;
}

}  // namespace kw::cli
