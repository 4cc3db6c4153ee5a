#include "core/api/table.hpp"

#include <algorithm>
#include <cctype>

#include "core/api/jsonpath.hpp"
#include "core/api/print_support.hpp"
#include "core/util/text.hpp"

namespace kw::api {
namespace {

using namespace print;

using util::iequals;

// apiextensions' cellForJSONValue: the cell of a column of a type other than "string".
json typed_cell(const std::string& type, const json& value, TimePoint now) {
  if (value.is_null()) return nullptr;
  if (type == "integer" && value.is_number()) return value.is_number_float() ? json(num(value)) : value;
  if (type == "number" && value.is_number()) return value.get<double>();
  if (type == "boolean" && value.is_boolean()) return value;
  if (type == "date" && value.is_string()) {
    // metav1.Time's query-parameter form: "" and "null" are the zero time.
    const auto& text = value.get_ref<const std::string&>();
    return text == "null" ? std::string("<unknown>") : age_since(value, now);
  }
  return nullptr;
}

json generic_cell(const ColumnDefinition& column, const json& object, TimePoint now) {
  if (!column.json_path.empty()) {
    return printer_column_cell(column, object, now);
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

ColumnDefinition ColumnDefinition::with_parsed_path() && {
  if (!json_path.empty())
    if (auto path = JsonPath::parse("{" + json_path + "}")) parsed_path = std::make_shared<const JsonPath>(std::move(*path));
  return std::move(*this);
}

json printer_column_cell(const ColumnDefinition& column, const json& object, TimePoint now) {
  // kube-apiserver rejects a CRD whose column does not parse; a stored one reads as empty.
  std::optional<JsonPath> parsed;
  const JsonPath* path = column.parsed_path.get();
  if (path == nullptr) {
    auto parsed_now = JsonPath::parse("{" + column.json_path + "}");
    if (!parsed_now) return nullptr;
    parsed = std::move(*parsed_now);
    path = &*parsed;
  }
  auto groups = path->find(object, true);
  if (!groups || groups->empty() || groups->front().empty()) return nullptr;
  const json& value = groups->front().front();
  // A string column prints the value as JSONPath would, so a null reads "<no value>" there.
  if (column.type == "string") return value.is_null() ? std::string("<no value>") : jsonpath_text(value);
  return typed_cell(column.type, value, now);
}

}  // namespace kw::api
