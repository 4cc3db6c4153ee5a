#pragma once
// What `kw wait --for=...` waits for, and whether one object meets it: create, delete,
// condition=NAME[=VALUE] (a status condition, VALUE "true" unless given, compared without
// case) or jsonpath=EXPR[=VALUE] (the value at EXPR, or only that EXPR finds something).
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/api/jsonpath.hpp"
#include "core/util/error.hpp"

namespace kw::cli {

struct WaitCondition {
  enum class Kind { Create, Delete, Condition, JsonPath };
  Kind kind = Kind::Delete;
  std::string name;                   // the condition type (Condition)
  std::optional<std::string> value;   // the wanted status or JSONPath value
  std::string expression;             // the JSONPath as given (JsonPath)
  std::shared_ptr<const api::JsonPath> path;
};

// Parses the --for value; the errors are kubectl's ("unrecognized condition: ...").
Result<WaitCondition> parse_wait_condition(std::string_view text);

// Whether `object` meets a Condition or JsonPath condition. A JSONPath that matches more than
// one value, or a map or list where a value is wanted, is an error.
Result<bool> condition_met(const WaitCondition& condition, const nlohmann::json& object);

}  // namespace kw::cli
