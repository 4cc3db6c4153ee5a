// client-go's parser.go, ported: a template becomes Text nodes and action Lists, and
// {range}/{end} pairs become nested segments.
#include <cctype>
#include <charconv>
#include <cstdlib>

#include "core/api/jsonpath_tree.hpp"

namespace kw::api {

using nlohmann::json;

namespace {

using Node = JsonPath::Node;



Node make_node(NodeKind kind, std::string name = {}) {
  Node node;
  node.kind = kind;
  node.name = std::move(name);
  return node;
}

Node text_node(std::string text) {
  Node node = make_node(NodeKind::Text);
  node.literal = std::move(text);
  return node;
}

bool is_terminator(char c) {
  switch (c) {
    case '\0': case ' ': case '\t': case '\r': case '\n': case '.': case ',': case '[': case ']':
    case '$': case '@': case '{': case '}':
      return true;
    default:
      return false;
  }
}

bool is_name_char(char c) { return c == '_' || std::isalnum(static_cast<unsigned char>(c)) || (c & 0x80); }

void append_utf8(std::string& out, unsigned long code) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

// Go's strconv unquoting of the text between the quotes (client-go's UnquoteExtend).
Result<std::string> unquote(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out.push_back(text[i]);
      continue;
    }
    if (++i >= text.size()) return fail("unquote string: trailing backslash");
    const char c = text[i];
    const std::string_view simple = "abfnrtv\\'\"";
    const std::string_view meaning = "\a\b\f\n\r\t\v\\'\"";
    if (auto at = simple.find(c); at != std::string_view::npos) {
      out.push_back(meaning[at]);
      continue;
    }
    const std::size_t digits = c == 'x' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 0;
    if (digits == 0 || i + digits >= text.size()) return fail(std::string("unquote string: bad escape \\") + c);
    unsigned long code = 0;
    auto [end, ec] = std::from_chars(text.data() + i + 1, text.data() + i + 1 + digits, code, 16);
    if (ec != std::errc{} || end != text.data() + i + 1 + digits) return fail("unquote string: bad hex escape");
    if (c == 'x') out.push_back(static_cast<char>(code));
    else append_utf8(out, code);
    i += digits;
  }
  return out;
}

// A recursive-descent port of client-go's parser.go.
class Parser {
 public:
  explicit Parser(std::string_view text) : m_in(text) {}

  // The top-level items: Text nodes and action Lists.
  Result<std::vector<Node>> parse_items() {
    std::vector<Node> items;
    while (m_pos < m_in.size()) {
      const std::size_t open = m_in.find('{', m_pos);
      const std::size_t end = open == std::string_view::npos ? m_in.size() : open;
      if (end > m_pos) items.push_back(text_node(std::string(m_in.substr(m_pos, end - m_pos))));
      if (open == std::string_view::npos) break;
      m_pos = open + 1;
      Node list = make_node(NodeKind::List);
      if (auto ok = parse_action(list); !ok) return std::unexpected(ok.error());
      items.push_back(std::move(list));
    }
    return items;
  }

 private:
  char peek() const { return m_pos < m_in.size() ? m_in[m_pos] : '\0'; }
  bool at(std::string_view prefix) const { return m_in.substr(m_pos).starts_with(prefix); }

  Result<void> parse_action(Node& list) {
    while (true) {
      if (at("}")) {
        ++m_pos;
        return {};
      }
      Result<void> step;
      if (at("[?(")) {
        step = parse_filter(list);
      } else if (at("..")) {
        if (!list.children.empty() && list.children.back().kind == NodeKind::Recursive)
          return fail("invalid multiple recursive descent");
        m_pos += 2;
        list.children.push_back(make_node(NodeKind::Recursive));
        if (is_name_char(peek())) parse_field(list);
        continue;
      } else {
        const char c = peek();
        if (m_pos >= m_in.size() || c == '\r' || c == '\n') return fail("unclosed action");
        if (c == ' ' || c == '@' || c == '$') {
          ++m_pos;
          continue;
        }
        if (c == '[') {
          step = parse_array(list);
        } else if (c == '"' || c == '\'') {
          step = parse_quote(list);
        } else if (c == '.') {
          ++m_pos;
          parse_field(list);
        } else if (c == '+' || c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
          step = parse_number(list);
        } else if (is_name_char(c)) {
          parse_identifier(list);
        } else {
          return fail(std::string("unrecognized character in action: '") + c + "'");
        }
      }
      if (!step) return step;
    }
  }

  void parse_field(Node& list) {
    const std::size_t start = m_pos;
    while (m_pos < m_in.size()) {
      if (m_in[m_pos] == '\\') m_pos += 2;
      else if (is_terminator(m_in[m_pos])) break;
      else ++m_pos;
    }
    m_pos = std::min(m_pos, m_in.size());
    std::string name;
    for (char c : m_in.substr(start, m_pos - start))
      if (c != '\\') name.push_back(c);
    list.children.push_back(name == "*" ? make_node(NodeKind::Wildcard) : make_node(NodeKind::Field, name));
  }

  void parse_identifier(Node& list) {
    const std::size_t start = m_pos;
    while (m_pos < m_in.size() && !is_terminator(m_in[m_pos])) ++m_pos;
    std::string word(m_in.substr(start, m_pos - start));
    if (word == "true" || word == "false") {
      Node node = make_node(NodeKind::Literal);
      node.literal = word == "true";
      list.children.push_back(std::move(node));
    } else {
      list.children.push_back(make_node(NodeKind::Identifier, word));
    }
  }

  Result<void> parse_number(Node& list) {
    const std::size_t start = m_pos;
    if (peek() == '+' || peek() == '-') ++m_pos;
    while (peek() == '.' || std::isdigit(static_cast<unsigned char>(peek()))) ++m_pos;
    std::string text(m_in.substr(start, m_pos - start));
    if (!text.empty() && text.front() == '+') text.erase(0, 1);
    Node node = make_node(NodeKind::Literal);
    long long integer = 0;
    double real = 0;
    if (auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), integer);
        ec == std::errc{} && end == text.data() + text.size()) {
      node.literal = integer;
    } else if (auto [end2, ec2] = std::from_chars(text.data(), text.data() + text.size(), real);
               ec2 == std::errc{} && end2 == text.data() + text.size()) {
      node.literal = real;
    } else {
      return fail("cannot parse number " + std::string(m_in.substr(start, m_pos - start)));
    }
    list.children.push_back(std::move(node));
    return {};
  }

  Result<void> parse_quote(Node& list) {
    const char quote = m_in[m_pos];
    const std::size_t start = ++m_pos;
    while (true) {
      if (m_pos >= m_in.size() || m_in[m_pos] == '\n') return fail("unterminated quoted string");
      if (m_in[m_pos] == quote && m_in[m_pos - 1] != '\\') break;
      ++m_pos;
    }
    auto text = unquote(m_in.substr(start, m_pos - start));
    ++m_pos;
    if (!text) return std::unexpected(text.error());
    list.children.push_back(text_node(std::move(*text)));
    return {};
  }

  Result<void> parse_array(Node& list);
  Result<void> parse_filter(Node& list);

  std::string_view m_in;
  std::size_t m_pos = 0;
};

// client-go's parseAction: `text` parsed as the inside of one action.
Result<Node> parse_sub(std::string_view text) {
  const std::string wrapped = "{" + std::string(text) + "}";
  auto items = Parser(wrapped).parse_items();
  if (!items) return std::unexpected(items.error());
  if (items->empty() || items->front().kind != NodeKind::List) return fail("bad expression '" + std::string(text) + "'");
  return std::move(items->front());
}

std::string_view trim_spaces(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

// Takes one slice bound of `[a:b:c]` off the front of `text`: an optional '-' and digits.
std::string_view slice_part(std::string_view& text) {
  std::size_t n = 0;
  if (n < text.size() && text[n] == '-') ++n;
  while (n < text.size() && std::isdigit(static_cast<unsigned char>(text[n]))) ++n;
  std::string_view part = text.substr(0, n);
  text.remove_prefix(n);
  return part;
}

Result<void> Parser::parse_array(Node& list) {
  const std::size_t close = m_in.find(']', m_pos);
  const std::size_t newline = m_in.find('\n', m_pos);
  if (close == std::string_view::npos || newline < close) return fail("unterminated array");
  std::string_view text = m_in.substr(m_pos + 1, close - m_pos - 1);
  m_pos = close + 1;
  if (text == "*") text = ":";
  if (text.find(',') != std::string_view::npos) {
    Node union_node = make_node(NodeKind::Union);
    while (true) {
      const std::size_t comma = text.find(',');
      auto sub = parse_sub("[" + std::string(trim_spaces(text.substr(0, comma))) + "]");
      if (!sub) return std::unexpected(sub.error());
      union_node.children.push_back(std::move(*sub));
      if (comma == std::string_view::npos) break;
      text.remove_prefix(comma + 1);
    }
    list.children.push_back(std::move(union_node));
    return {};
  }
  if (text.size() >= 2 && text.front() == '\'' && text.back() == '\'' &&
      text.substr(1, text.size() - 2).find('\'') == std::string_view::npos) {
    auto sub = parse_sub("." + std::string(text.substr(1, text.size() - 2)));
    if (!sub) return std::unexpected(sub.error());
    for (auto& node : sub->children) list.children.push_back(std::move(node));
    return {};
  }
  // [a], [a:b], [a:b:c], each bound optional: client-go's sliceOperatorRex and its params.
  Node node = make_node(NodeKind::Array);
  std::string_view rest = text;
  for (std::size_t i = 0; i < 3; ++i) {
    const bool has_colon = i > 0 && !rest.empty() && rest.front() == ':';
    if (i > 0 && !has_colon) {
      if (i == 1) node.params[1] = {.known = true, .value = node.params[0].value + 1, .derived = true};
      continue;
    }
    if (has_colon) rest.remove_prefix(1);
    std::string_view part = slice_part(rest);
    if (part.empty() || part == "-") {
      if (part == "-") return fail("array index - is not a number");
      continue;
    }
    node.params[i].known = true;
    node.params[i].value = std::strtoll(std::string(part).c_str(), nullptr, 10);
  }
  if (!rest.empty()) return fail("invalid array index " + std::string(text));
  list.children.push_back(std::move(node));
  return {};
}

Result<void> Parser::parse_filter(Node& list) {
  m_pos += 3;  // "[?("
  const std::size_t start = m_pos;
  bool begin = false, end = false;
  char pair = 0;
  while (true) {
    if (m_pos >= m_in.size() || m_in[m_pos] == '\n') return fail("unterminated filter");
    const char c = m_in[m_pos++];
    if (c == '"' || c == '\'') {
      if (!begin) {
        begin = true;
        pair = c;
      } else if (m_in[m_pos - 2] != '\\' && c == pair) {
        end = true;
      }
    } else if (c == ')' && begin == end) {
      break;
    }
  }
  if (peek() != ']') return fail("unclosed array expect ]");
  const std::string_view text = m_in.substr(start, m_pos - 1 - start);
  ++m_pos;
  Node filter = make_node(NodeKind::Filter);
  // client-go splits at the first run of comparison characters: ^([^!<>=]+)([!<>=]+)(.+?)$.
  const std::size_t op_at = text.find_first_of("!<>=");
  const std::size_t op_end = op_at == std::string_view::npos ? op_at : text.find_first_not_of("!<>=", op_at);
  if (op_at == 0 || op_at == std::string_view::npos || op_end == std::string_view::npos) {
    auto left = parse_sub(text);
    if (!left) return std::unexpected(left.error());
    filter.op = "exists";
    filter.children.push_back(std::move(*left));
    filter.children.push_back(make_node(NodeKind::List));
  } else {
    auto left = parse_sub(text.substr(0, op_at));
    if (!left) return std::unexpected(left.error());
    auto right = parse_sub(text.substr(op_end));
    if (!right) return std::unexpected(right.error());
    filter.op = std::string(text.substr(op_at, op_end - op_at));
    filter.children.push_back(std::move(*left));
    filter.children.push_back(std::move(*right));
  }
  list.children.push_back(std::move(filter));
  return {};
}

}  // namespace

namespace jsonpath_detail {

Result<std::vector<Node>> parse_items(std::string_view text) { return Parser(text).parse_items(); }

}  // namespace jsonpath_detail

Result<JsonPath> JsonPath::parse(std::string_view text) {
  using Segments = std::vector<Segment>;
  auto items = Parser(text).parse_items();
  if (!items) return std::unexpected(items.error());
  JsonPath out;
  std::vector<Segments*> stack{&out.m_segments};
  for (auto& item : *items) {
    Segment segment;
    segment.node = std::move(item);
    if (segment.node.kind == NodeKind::Text) {
      stack.back()->push_back(std::move(segment));
      continue;
    }
    auto& steps = segment.node.children;
    const bool keyword = !steps.empty() && steps.front().kind == NodeKind::Identifier;
    if (keyword && steps.front().name == "end") {
      if (stack.size() < 2) return fail("not in range, nothing to end");
      stack.pop_back();
      continue;
    }
    segment.kind = Segment::Kind::Action;
    if (keyword && steps.front().name == "range") {
      steps.erase(steps.begin());
      segment.kind = Segment::Kind::Range;
    }
    stack.back()->push_back(std::move(segment));
    if (stack.back()->back().kind == Segment::Kind::Range) stack.push_back(&stack.back()->back().body);
  }
  return out;
}

Result<JsonPath> JsonPath::parse_relaxed(std::string_view expression) {
  if (expression.empty()) return parse(expression);
  std::string_view inner = expression;
  if (inner.front() == '{' && inner.back() == '}' && inner.size() >= 2) inner = inner.substr(1, inner.size() - 2);
  if (!inner.empty() && inner.front() == '.') inner.remove_prefix(1);
  if (inner.empty() || inner.find_first_of("{}") != std::string_view::npos)
    return fail("unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or "
                "'{.name1.name2}'");
  return parse("{." + std::string(inner) + "}");
}

}  // namespace kw::api
