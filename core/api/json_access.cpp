#include "core/api/json_access.hpp"

namespace kw::api {

using nlohmann::json;

namespace {
const json& null_json() {
  static const json k_null;
  return k_null;
}
}  // namespace

const json& at(const json& j, std::initializer_list<std::string_view> path) {
  const json* cur = &j;
  for (std::string_view key : path) {
    if (!cur->is_object()) return null_json();
    auto it = cur->find(key);
    if (it == cur->end()) return null_json();
    cur = &*it;
  }
  return *cur;
}

std::string str(const json& j) { return j.is_string() ? j.get<std::string>() : std::string(); }

std::int64_t num(const json& j) {
  if (j.is_number_integer() || j.is_number_unsigned()) return j.get<std::int64_t>();
  if (j.is_number_float()) return static_cast<std::int64_t>(j.get<double>());
  return 0;
}

const json& arr(const json& j) {
  static const json k_empty = json::array();
  return j.is_array() ? j : k_empty;
}

std::int64_t size_of(const json& j) { return j.is_object() || j.is_array() ? static_cast<std::int64_t>(j.size()) : 0; }

std::string text(const json& object, std::string_view key, std::string fallback) {
  const json& value = at(object, {key});
  return value.is_string() ? value.get<std::string>() : std::move(fallback);
}

std::vector<std::string> strings(const json& object, std::string_view key) {
  std::vector<std::string> out;
  for (const json& item : arr(at(object, {key})))
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

}  // namespace kw::api
