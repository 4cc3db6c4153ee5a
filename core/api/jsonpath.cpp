#include "core/api/jsonpath.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "core/api/jsonpath_tree.hpp"

namespace kw::api {

using nlohmann::json;

JsonPath::JsonPath() = default;
JsonPath::~JsonPath() = default;
JsonPath::JsonPath(JsonPath&&) noexcept = default;
JsonPath& JsonPath::operator=(JsonPath&&) noexcept = default;

namespace {

using Node = JsonPath::Node;
using Values = std::vector<const json*>;

struct Evaluator {
  bool allow_missing = true;

  Result<Values> walk(const Values& in, const Node& node) const {
    switch (node.kind) {
      case NodeKind::List: return list(in, node);
      case NodeKind::Text: return Values{&node.literal};
      case NodeKind::Literal: return Values(in.size(), &node.literal);
      case NodeKind::Field: return field(in, node);
      case NodeKind::Wildcard: return wildcard(in);
      case NodeKind::Array: return array(in, node);
      case NodeKind::Union: return union_of(in, node);
      case NodeKind::Filter: return filter(in, node);
      case NodeKind::Recursive: return recursive(in);
      case NodeKind::Identifier: return fail("unrecognized identifier " + node.name);
    }
    return fail("unexpected node");
  }

  Result<Values> list(const Values& in, const Node& node) const {
    Values current = in;
    for (const auto& step : node.children) {
      auto next = walk(current, step);
      if (!next) return next;
      current = std::move(*next);
    }
    return current;
  }

  Result<Values> field(const Values& in, const Node& node) const {
    Values out;
    if (in.empty()) return out;
    for (const json* value : in) {
      if (!value->is_object()) continue;
      if (auto it = value->find(node.name); it != value->end()) out.push_back(&*it);
    }
    if (out.empty() && !allow_missing) return fail(node.name + " is not found");
    return out;
  }

  static Result<Values> wildcard(const Values& in) {
    Values out;
    for (const json* value : in)
      if (value->is_object() || value->is_array())
        for (const auto& child : *value) out.push_back(&child);
    return out;
  }

  static Result<Values> array(const Values& in, const Node& node) {
    Values out;
    for (const json* value : in) {
      if (value->is_null()) continue;
      if (!value->is_array()) return fail(std::string(value->type_name()) + " is not array or slice");
      const long long size = static_cast<long long>(value->size());
      auto params = node.params;
      if (!params[0].known) params[0].value = 0;
      if (params[0].value < 0) params[0].value += size;
      if (!params[1].known) params[1].value = size;
      if (params[1].value < 0 || (params[1].value == 0 && params[1].derived)) params[1].value += size;
      if (params[1].value == params[0].value) return out;
      if (params[0].value >= size || params[0].value < 0)
        return fail("array index out of bounds: index " + std::to_string(params[0].value) + ", length " +
                    std::to_string(size));
      if (params[1].value > size || params[1].value < 0)
        return fail("array index out of bounds: index " + std::to_string(params[1].value - 1) + ", length " +
                    std::to_string(size));
      if (params[0].value > params[1].value)
        return fail("starting index " + std::to_string(params[0].value) + " is greater than ending index " +
                    std::to_string(params[1].value));
      long long step = 1;
      if (params[2].known) {
        if (params[2].value <= 0) return fail("step must be > 0");
        step = params[2].value;
      }
      for (long long i = params[0].value; i < params[1].value; i += step)
        out.push_back(&(*value)[static_cast<std::size_t>(i)]);
    }
    return out;
  }

  Result<Values> union_of(const Values& in, const Node& node) const {
    Values out;
    for (const auto& branch : node.children) {
      auto found = list(in, branch);
      if (!found) return found;
      out.insert(out.end(), found->begin(), found->end());
    }
    return out;
  }

  // Every non-empty object or array under each value, the value itself first.
  static Result<Values> recursive(const Values& in) {
    Values out;
    for (const json* value : in) {
      if (!(value->is_object() || value->is_array()) || value->empty()) continue;
      out.push_back(value);
      Values children;
      for (const auto& child : *value) children.push_back(&child);
      auto below = recursive(children);
      out.insert(out.end(), below->begin(), below->end());
    }
    return out;
  }

  Result<Values> filter(const Values& in, const Node& node) const;
};

// Go template's comparison: both sides of one basic kind (integers of any sign, floats,
// strings, booleans for == and !=), anything else an error.
Result<bool> compare(const json& left, const std::string& op, const json& right) {
  auto kind = [](const json& v) {
    return v.is_number_integer() ? 1 : v.is_number_float() ? 2 : v.is_string() ? 3 : v.is_boolean() ? 4 : 0;
  };
  static constexpr std::string_view k_operators[] = {"==", "!=", "<", ">", "<=", ">="};
  if (std::find(std::begin(k_operators), std::end(k_operators), op) == std::end(k_operators))
    return fail("unrecognized filter operator " + op);
  const int k = kind(left);
  if (k == 0 || kind(right) == 0) return fail("invalid type for comparison");
  if (k != kind(right)) return fail("incompatible types for comparison");
  int order = 0;
  if (k == 1) {
    const long long a = left.get<long long>(), b = right.get<long long>();
    order = a < b ? -1 : a > b ? 1 : 0;
  } else if (k == 2) {
    const double a = left.get<double>(), b = right.get<double>();
    order = a < b ? -1 : a > b ? 1 : 0;
  } else if (k == 3) {
    order = left.get_ref<const std::string&>().compare(right.get_ref<const std::string&>());
    order = order < 0 ? -1 : order > 0 ? 1 : 0;
  } else {
    if (op != "==" && op != "!=") return fail("invalid type for comparison");
    order = left == right ? 0 : 1;
  }
  if (op == "==") return order == 0;
  if (op == "!=") return order != 0;
  if (op == "<") return order < 0;
  if (op == ">") return order > 0;
  if (op == "<=") return order <= 0;
  if (op == ">=") return order >= 0;
  return fail("unrecognized filter operator " + op);
}

Result<Values> Evaluator::filter(const Values& in, const Node& node) const {
  Values out;
  for (const json* value : in) {
    if (!value->is_array()) return fail(std::string(value->type_name()) + " is not array or slice and cannot be filtered");
    for (const auto& item : *value) {
      const Values here{&item};
      auto lefts = list(here, node.children[0]);
      if (node.op == "exists") {
        if (lefts && !lefts->empty()) out.push_back(&item);
        continue;
      }
      if (!lefts) return lefts;
      if (lefts->empty()) continue;
      if (lefts->size() > 1) return fail("can only compare one element at a time");
      auto rights = list(here, node.children[1]);
      if (!rights) return rights;
      if (rights->empty()) continue;
      if (rights->size() > 1) return fail("can only compare one element at a time");
      auto pass = compare(*lefts->front(), node.op, *rights->front());
      if (!pass) return std::unexpected(pass.error());
      if (*pass) out.push_back(&item);
    }
  }
  return out;
}

using Segments = std::vector<JsonPath::Segment>;

Result<void> find_in(const Segments& segments, const json& current, const Evaluator& eval,
                     std::vector<std::vector<json>>& out) {
  using Kind = JsonPath::Segment::Kind;
  for (const auto& segment : segments) {
    if (segment.kind == Kind::Text) {
      out.push_back({segment.node.literal});
      continue;
    }
    auto found = eval.walk(Values{&current}, segment.node);
    if (!found) return std::unexpected(found.error());
    if (segment.kind == Kind::Action) {
      auto& group = out.emplace_back();
      for (const json* value : *found) group.push_back(*value);
      continue;
    }
    for (const json* value : *found)
      if (auto ok = find_in(segment.body, *value, eval, out); !ok) return ok;
  }
  return {};
}

}  // namespace

Result<std::vector<std::vector<json>>> JsonPath::find(const json& root, bool allow_missing) const {
  std::vector<std::vector<json>> out;
  const Evaluator eval{.allow_missing = allow_missing};
  if (auto ok = find_in(m_segments, root, eval, out); !ok) return std::unexpected(ok.error());
  return out;
}

Result<std::string> JsonPath::render(const json& root, bool allow_missing) const {
  auto groups = find(root, allow_missing);
  if (!groups) return std::unexpected(groups.error());
  std::string out;
  for (const auto& group : *groups)
    for (std::size_t i = 0; i < group.size(); ++i) {
      if (i) out += ' ';
      out += jsonpath_text(group[i]);
    }
  return out;
}

std::string go_float_text(double value) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  if (ec != std::errc{}) return "NaN";
  std::string_view sci(buf, static_cast<std::size_t>(end - buf));
  if (sci == "inf" || sci == "-inf") return sci == "inf" ? "+Inf" : "-Inf";
  if (sci.find("nan") != std::string_view::npos) return "NaN";
  const std::size_t e = sci.find('e');
  const int exponent = std::atoi(std::string(sci.substr(e + 1)).c_str());
  if (exponent < -4 || exponent >= 6) return std::string(sci);  // already Go's d.ddde±XX
  auto [fixed_end, fixed_ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed);
  return fixed_ec == std::errc{} ? std::string(buf, fixed_end) : std::string(sci);
}

namespace {

// encoding/json's float: shortest digits, exponent form below 1e-6 and from 1e21 on.
std::string go_json_float(double value) {
  char buf[64];
  const double magnitude = value < 0 ? -value : value;
  const bool exponent = magnitude != 0 && (magnitude < 1e-6 || magnitude >= 1e21);
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value,
                                 exponent ? std::chars_format::scientific : std::chars_format::fixed);
  if (ec != std::errc{}) return "null";
  std::string text(buf, end);
  // Go writes e-07 as e-7.
  if (const auto n = text.size(); exponent && n >= 4 && text[n - 4] == 'e' && text[n - 3] == '-' && text[n - 2] == '0')
    text.erase(n - 2, 1);
  return text;
}

// Compact JSON as Go's json.Marshal writes a decoded value: keys sorted, floats Go's way.
void go_json(const json& value, std::string& out) {
  if (value.is_object()) {
    out += '{';
    bool first = true;
    for (const auto& [key, member] : value.items()) {
      if (!first) out += ',';
      first = false;
      out += json(key).dump();
      out += ':';
      go_json(member, out);
    }
    out += '}';
  } else if (value.is_array()) {
    out += '[';
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (i) out += ',';
      go_json(value[i], out);
    }
    out += ']';
  } else if (value.is_number_float()) {
    out += go_json_float(value.get<double>());
  } else {
    out += value.dump();
  }
}

}  // namespace

std::string jsonpath_text(const json& value) {
  switch (value.type()) {
    case json::value_t::string: return value.get<std::string>();
    case json::value_t::null: return "<nil>";
    case json::value_t::number_float: return go_float_text(value.get<double>());
    case json::value_t::object:
    case json::value_t::array: {
      std::string out;
      go_json(value, out);
      return out;
    }
    default: return value.dump();
  }
}

std::string go_value_text(const json& value) {
  if (value.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < value.size(); ++i) out += (i ? " " : "") + go_value_text(value[i]);
    return out + "]";
  }
  if (value.is_object()) {
    std::string out = "map[";
    bool first = true;
    for (const auto& [key, member] : value.items()) {
      out += (first ? "" : " ") + key + ":" + go_value_text(member);
      first = false;
    }
    return out + "]";
  }
  return jsonpath_text(value);
}

}  // namespace kw::api
