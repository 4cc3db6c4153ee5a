#pragma once
// The parsed form of a JSONPath template, shared by its parser (jsonpath_parse.cpp) and its
// evaluator (jsonpath.cpp); nothing outside those two files includes it.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "core/api/jsonpath.hpp"

namespace kw::api {


enum class NodeKind { List, Text, Field, Wildcard, Array, Union, Filter, Recursive, Literal, Identifier };

// One [a:b:step] bound as client-go keeps it: known or not, and whether b was derived from a.
struct SliceParam {
  bool known = false;
  long long value = 0;
  bool derived = false;
};

struct JsonPath::Node {
  NodeKind kind = NodeKind::List;
  std::string name;             // Field, Identifier
  nlohmann::json literal;       // Text (a string), Literal (number or bool)
  std::array<SliceParam, 3> params = {};  // Array
  std::string op;               // Filter: "==", "!=", "<", ">", "<=", ">=", or "exists"
  std::vector<Node> children;   // List: steps; Union: lists; Filter: left and right lists
};

// The template after parsing: literal text, an action, or a range with its body.
struct JsonPath::Segment {
  enum class Kind { Text, Action, Range } kind = Kind::Text;
  JsonPath::Node node;             // Text: a Text node; Action / Range: a List
  std::vector<Segment> body = {};  // Range
};

namespace jsonpath_detail {

// The top-level items of a template: Text nodes and one List per {action}.
Result<std::vector<JsonPath::Node>> parse_items(std::string_view text);

}  // namespace jsonpath_detail
}  // namespace kw::api
