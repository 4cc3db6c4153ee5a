#pragma once
// Server-side Table rows (meta.k8s.io/v1 Table): the cells of an object through its kind's
// printer (built-in kinds, see ResourceInfo::printer) or JSONPath columns (CRDs).
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

// The columns of a kind with neither a printer nor printer columns: Name + Created At.
std::vector<ColumnDefinition> default_columns();

// The cells of one Table row, in info.columns order: the kind's printer where it has one,
// JSONPath and the generic Name/Age/Created At columns otherwise.
nlohmann::json table_cells(const ResourceInfo& info, const nlohmann::json& object,
                           std::chrono::system_clock::time_point now);

// The cell of a CRD additionalPrinterColumn, as kube-apiserver's CRD table convertor makes
// it: the first value `{json_path}` finds; a "string" column prints it as JSONPath does,
// the other types convert it (integer, number, boolean, date as an age) or give null; a
// path that fails or finds nothing gives null.
nlohmann::json printer_column_cell(const ColumnDefinition& column, const nlohmann::json& object,
                                   std::chrono::system_clock::time_point now);

}  // namespace kw::api
