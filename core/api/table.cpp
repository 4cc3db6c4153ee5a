#include "core/api/table.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "core/api/print_support.hpp"
#include "core/util/text.hpp"

namespace kw::api {
namespace {

using namespace print;

using util::iequals;

// apiextensions' cellForJSONValue: the cell of a typed additionalPrinterColumn.
json typed_cell(const ColumnDefinition& column, const json& value, TimePoint now) {
  if (value.is_null()) return nullptr;
  if (column.type == "integer" && value.is_number()) return num(value);
  if (column.type == "number" && value.is_number()) return value.get<double>();
  if (column.type == "boolean" && value.is_boolean()) return value;
  if (column.type == "date") {
    if (!value.is_string()) return nullptr;
    auto t = time_of(value);
    return t ? since(t, now) : std::string("<invalid>");
  }
  if (column.type == "string" || column.type.empty()) return value.is_string() ? value.get<std::string>() : value.dump();
  return nullptr;
}

json generic_cell(const ColumnDefinition& column, const json& object, TimePoint now) {
  if (!column.json_path.empty()) {
    const json* value = eval_json_path(object, column.json_path);
    return value ? typed_cell(column, *value, now) : json(nullptr);
  }
  if (column.format == "name" || iequals(column.name, "Name")) return name_of(object);
  if (iequals(column.name, "Age")) return age_of(object, now);
  if (iequals(column.name, "Created At")) return at(object, {"metadata", "creationTimestamp"});
  return nullptr;
}

}  // namespace

std::string format_age(std::chrono::seconds age) {
  const std::int64_t seconds = age.count();
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return std::to_string(seconds) + "s";
  const std::int64_t minutes = seconds / 60;
  if (minutes < 10) {
    std::int64_t s = seconds % 60;
    return s == 0 ? std::to_string(minutes) + "m" : std::to_string(minutes) + "m" + std::to_string(s) + "s";
  }
  if (minutes < 60 * 3) return std::to_string(minutes) + "m";
  const std::int64_t hours = minutes / 60;
  if (hours < 8) {
    std::int64_t m = minutes % 60;
    return m == 0 ? std::to_string(hours) + "h" : std::to_string(hours) + "h" + std::to_string(m) + "m";
  }
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) {
    std::int64_t h = hours % 24;
    return h == 0 ? std::to_string(hours / 24) + "d" : std::to_string(hours / 24) + "d" + std::to_string(h) + "h";
  }
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) {
    std::int64_t dy = (hours / 24) % 365;
    std::string years = std::to_string(hours / 24 / 365) + "y";
    return dy == 0 ? years : years + std::to_string(dy) + "d";
  }
  return std::to_string(hours / 24 / 365) + "y";
}

std::string age_since(const json& timestamp, TimePoint now) {
  if (timestamp.is_null() || (timestamp.is_string() && timestamp.get_ref<const std::string&>().empty()))
    return "<unknown>";
  auto t = time_of(timestamp);
  return t ? since(t, now) : std::string("<invalid>");
}

std::vector<ColumnDefinition> default_columns() { return {name_col(), col("Created At", "date", k_created_doc)}; }

json table_cells(const ResourceInfo& info, const json& object, TimePoint now) {
  json cells = json::array();
  if (!info.printer) {
    if (info.columns.empty()) return json::array({name_of(object), age_of(object, now)});
    for (const auto& column : info.columns) cells.push_back(generic_cell(column, object, now));
    return cells;
  }
  // A printer fills the columns of its row in order; columns beyond them (or with a
  // JSONPath) are read generically.
  Cells printed = info.printer(object, now);
  for (std::size_t i = 0; i < info.columns.size(); ++i) {
    const auto& column = info.columns[i];
    if (i < printed.size() && column.json_path.empty()) cells.push_back(std::move(printed[i]));
    else cells.push_back(generic_cell(column, object, now));
  }
  if (info.columns.empty()) return json(std::move(printed));
  // Cells a printer fills beyond its columns go out too, as kube-apiserver's do (IPAddress).
  for (std::size_t i = info.columns.size(); i < printed.size(); ++i) cells.push_back(std::move(printed[i]));
  return cells;
}

const json* eval_json_path(const json& object, std::string_view path) {
  if (path.size() >= 2 && path.front() == '{' && path.back() == '}') path = path.substr(1, path.size() - 2);
  if (!path.empty() && path.front() == '$') path.remove_prefix(1);
  const json* cur = &object;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      std::string key;
      while (i < path.size() && path[i] != '.' && path[i] != '[') {
        if (path[i] == '\\' && i + 1 < path.size()) ++i;
        key += path[i++];
      }
      if (key.empty()) continue;
      if (!cur->is_object()) return nullptr;
      auto it = cur->find(key);
      if (it == cur->end()) return nullptr;
      cur = &*it;
    } else if (path[i] == '[') {
      std::size_t close = path.find(']', i);
      if (close == std::string_view::npos) return nullptr;
      std::string_view inside = path.substr(i + 1, close - i - 1);
      i = close + 1;
      if (inside.size() >= 2 && (inside.front() == '\'' || inside.front() == '"') && inside.back() == inside.front()) {
        if (!cur->is_object()) return nullptr;
        auto it = cur->find(std::string(inside.substr(1, inside.size() - 2)));
        if (it == cur->end()) return nullptr;
        cur = &*it;
        continue;
      }
      long long index = 0;
      auto [ptr, ec] = std::from_chars(inside.data(), inside.data() + inside.size(), index);
      if (ec != std::errc{} || ptr != inside.data() + inside.size() || !cur->is_array()) return nullptr;
      if (index < 0) index += static_cast<long long>(cur->size());
      if (index < 0 || static_cast<std::size_t>(index) >= cur->size()) return nullptr;
      cur = &(*cur)[static_cast<std::size_t>(index)];
    } else {
      return nullptr;
    }
  }
  return cur;
}

}  // namespace kw::api
