#pragma once
// Server-side Table rows (meta.k8s.io/v1 Table): column definitions and cells for the
// built-in kinds as kube-apiserver's printers produce them, and JSONPath columns for CRDs.
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"

namespace kw::api {

// kubectl's duration.HumanDuration: "5s", "3m2s", "59m", "4h10m", "2d3h", "12d", "3y45d".
std::string format_age(std::chrono::seconds age);

// Age of an RFC 3339 timestamp at `now`; "<unknown>" when missing, "<invalid>" when
// unparseable or too far in the future.
std::string age_since(const nlohmann::json& timestamp, std::chrono::system_clock::time_point now);

// Column definitions exactly as kube-apiserver sends them for a built-in kind; for other
// kinds the default Name + Created At pair.
std::vector<ColumnDefinition> builtin_columns(std::string_view group, std::string_view kind);
bool has_builtin_printer(std::string_view group, std::string_view kind);

// The cells of one Table row, in info.columns order.
nlohmann::json table_cells(const ResourceInfo& info, const nlohmann::json& object,
                           std::chrono::system_clock::time_point now);

// A simple JSONPath (".a.b[0].c", "{.a}", ".a['b.c']") evaluated on an object; nullptr when
// a step is missing.
const nlohmann::json* eval_json_path(const nlohmann::json& object, std::string_view path);

}  // namespace kw::api
