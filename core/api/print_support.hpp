#pragma once
// The building blocks of kube-apiserver's table printers: tolerant JSON accessors (a
// missing or mistyped step reads as null, "" or 0), ages, label and selector text, and the
// column definitions most kinds share. The per-kind printers live with their kinds' rows.
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/api/json_access.hpp"
#include "core/api/resource.hpp"

namespace kw::api::print {

using nlohmann::json;
using TimePoint = std::chrono::system_clock::time_point;
using Cells = std::vector<json>;

// The tolerant accessors (core/api/json_access.hpp) the printers read objects with.
using api::arr;
using api::at;
using api::num;
using api::size_of;
using api::str;
std::string join(const std::vector<std::string>& parts, std::string_view sep);

// RFC 3339 timestamps ("2024-01-02T03:04:05Z", fractions and offsets allowed).
std::optional<TimePoint> parse_rfc3339(std::string_view s);
// metav1.Time on the wire: "2024-01-02T03:04:05Z" (whole seconds, UTC).
std::string format_rfc3339(TimePoint t);
// Go's time.Now().Format(time.RFC3339): the local time with its offset ("Z" at UTC).
std::string format_rfc3339_local(TimePoint t);
std::optional<TimePoint> time_of(const json& j);
// kubectl's human age of `t` at `now`; "<unknown>" without a time.
std::string since(std::optional<TimePoint> t, TimePoint now);

std::string format_labels(const json& labels);     // "a=1,b=2" sorted, or "<none>"
std::string selector_string(const json& selector); // a LabelSelector in its canonical text
// metav1.FormatLabelSelector: the selector's text, "<none>" for none or an empty one.
std::string format_label_selector(const json& selector);
// The first condition of `type` in the object's status.conditions; null when there is none.
const json& condition_of(const json& object, std::string_view type);
// Whether that condition's status is "True".
bool condition_true(const json& object, std::string_view type);
// A CertificateSigningRequest's state as kubectl shows it: Denied, Approved or Pending (Denied
// wins), then ",Failed" and ",Issued" when they apply.
std::string csr_status(const json& csr);
// The names and images of a container list, comma-joined.
std::pair<std::string, std::string> container_cells(const json& containers);
std::string name_of(const json& object);
std::string age_of(const json& object, TimePoint now);

extern const char* const k_name_doc;
extern const char* const k_created_doc;
ColumnDefinition col(std::string name, std::string type, std::string description, int priority = 0,
                     std::string format = "");
ColumnDefinition name_col();
ColumnDefinition age_col();
ColumnDefinition containers_col();
ColumnDefinition images_col();

}  // namespace kw::api::print
