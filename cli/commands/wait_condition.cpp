#include "cli/commands/wait_condition.hpp"

#include <algorithm>
#include <cctype>

#include "core/api/json_access.hpp"

namespace kw::cli {

using nlohmann::json;

namespace {

bool equal_fold(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

Result<WaitCondition> parse_condition(std::string_view rest) {
  WaitCondition out;
  out.kind = WaitCondition::Kind::Condition;
  const auto eq = rest.find('=');
  out.name = std::string(rest.substr(0, eq));
  out.value = eq == std::string_view::npos ? std::string("true") : std::string(rest.substr(eq + 1));
  return out;
}

Result<WaitCondition> parse_jsonpath(std::string_view rest) {
  // Split at each '=' outside braces: a filter's == belongs to the expression.
  std::vector<std::string_view> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '{') ++depth;
    else if (rest[i] == '}') --depth;
    else if (rest[i] == '=' && depth == 0) {
      parts.push_back(rest.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(rest.substr(start));
  if (parts.size() > 2)
    return fail("jsonpath wait format must be --for=jsonpath='{.status.readyReplicas}'=3 or "
                "--for=jsonpath='{.status.readyReplicas}'");
  WaitCondition out;
  out.kind = WaitCondition::Kind::JsonPath;
  out.expression = std::string(parts[0]);
  if (out.expression.empty()) return fail("jsonpath expression cannot be empty");
  if (parts.size() == 2) out.value = std::string(parts[1]);
  auto path = api::JsonPath::parse_relaxed(out.expression);
  if (!path) return std::unexpected(path.error());
  out.path = std::make_shared<const api::JsonPath>(std::move(*path));
  return out;
}

}  // namespace

Result<WaitCondition> parse_wait_condition(std::string_view text) {
  const std::string lower = [&] {
    std::string s(text);
    std::ranges::transform(s, s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  }();
  if (lower == "create") {
    WaitCondition create;
    create.kind = WaitCondition::Kind::Create;
    return create;
  }
  if (lower == "delete") return WaitCondition{};
  if (lower.starts_with("condition=")) return parse_condition(text.substr(10));
  if (lower.starts_with("jsonpath=")) return parse_jsonpath(text.substr(9));
  return fail("unrecognized condition: \"" + std::string(text) + "\"");
}

namespace {

bool status_condition_met(const WaitCondition& condition, const json& object) {
  const json& meta = api::at(object, {"metadata"});
  const std::int64_t generation = meta.is_object() ? meta.value("generation", std::int64_t{0}) : 0;
  for (const auto& entry : api::arr(api::at(object, {"status", "conditions"}))) {
    if (!entry.is_object() || !equal_fold(api::str(api::at(entry, {"type"})), condition.name)) continue;
    // A condition written for an older generation says nothing about the current spec.
    if (entry.contains("observedGeneration") && entry["observedGeneration"].is_number_integer() &&
        entry["observedGeneration"].get<std::int64_t>() < generation)
      continue;
    return equal_fold(api::str(api::at(entry, {"status"})), *condition.value);
  }
  return false;
}

Result<bool> jsonpath_met(const WaitCondition& condition, const json& object) {
  auto found = condition.path->find(object, false);
  if (!found) return false;  // a field not there yet: not met
  std::vector<json> values;
  for (auto& list : *found)
    for (auto& value : list) values.push_back(std::move(value));
  if (!condition.value) return !values.empty();
  if (values.empty()) return false;
  if (values.size() > 1)
    return fail("given jsonpath expression matches more than one value");
  if (values[0].is_object() || values[0].is_array())
    return fail("jsonpath leads to a nested object or list which is not supported");
  return api::jsonpath_text(values[0]) == *condition.value;
}

}  // namespace

Result<bool> condition_met(const WaitCondition& condition, const json& object) {
  switch (condition.kind) {
    case WaitCondition::Kind::Create:
      return true;
    case WaitCondition::Kind::Delete: return false;
    case WaitCondition::Kind::Condition: return status_condition_met(condition, object);
    case WaitCondition::Kind::JsonPath: return jsonpath_met(condition, object);
  }
  return false;
}

}  // namespace kw::cli
