#include "core/api/print_support.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <utility>

#include "core/api/selector.hpp"
#include "core/api/table.hpp"

namespace kw::api::print {
namespace {

using Clock = std::chrono::system_clock;

const json& null_json() {
  static const json k_null;
  return k_null;
}

bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

}  // namespace

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

// ---- time ---------------------------------------------------------------------------------

namespace {

// "2024-01-02T03:04:05" of `t` in UTC or the local zone, and that zone's offset east of UTC.
std::pair<std::string, long> date_time(TimePoint t, bool local) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  if (local) localtime_r(&seconds, &tm);
  else gmtime_r(&seconds, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &tm);
  return {buffer, local ? tm.tm_gmtoff : 0};
}

}  // namespace

std::string format_rfc3339(TimePoint t) { return date_time(t, false).first + "Z"; }

std::string format_rfc3339_local(TimePoint t) {
  auto [text, offset] = date_time(t, true);
  if (offset == 0) return text + "Z";
  const long minutes = (offset < 0 ? -offset : offset) / 60;
  char zone[48];
  std::snprintf(zone, sizeof zone, "%c%02ld:%02ld", offset < 0 ? '-' : '+', minutes / 60, minutes % 60);
  return text + zone;
}

std::optional<TimePoint> parse_rfc3339(std::string_view s) {
  int y, mo, d, h, mi, sec;
  if (!digits(s, 0, 4, y) || s.size() < 19 || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || !digits(s, 11, 2, h) ||
      s[13] != ':' || !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, sec))
    return std::nullopt;
  std::size_t pos = 19;
  std::chrono::nanoseconds frac{0};
  if (pos < s.size() && s[pos] == '.') {
    std::int64_t scale = 100'000'000, ns = 0;
    ++pos;
    std::size_t start = pos;
    for (; pos < s.size() && s[pos] >= '0' && s[pos] <= '9'; ++pos, scale /= 10) ns += (s[pos] - '0') * scale;
    if (pos == start) return std::nullopt;
    frac = std::chrono::nanoseconds(ns);
  }
  int offset_minutes = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    if (!digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' || !digits(s, pos + 4, 2, om))
      return std::nullopt;
    offset_minutes = (s[pos] == '-' ? -1 : 1) * (oh * 60 + om);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  std::chrono::year_month_day ymd{std::chrono::year(y), std::chrono::month(static_cast<unsigned>(mo)),
                                  std::chrono::day(static_cast<unsigned>(d))};
  if (!ymd.ok() || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  auto tp = std::chrono::sys_days(ymd) + std::chrono::hours(h) + std::chrono::minutes(mi) +
            std::chrono::seconds(sec) - std::chrono::minutes(offset_minutes);
  return std::chrono::time_point_cast<Clock::duration>(tp + frac);
}

std::optional<TimePoint> time_of(const json& j) {
  if (!j.is_string()) return std::nullopt;
  return parse_rfc3339(j.get_ref<const std::string&>());
}

std::string since(std::optional<TimePoint> t, TimePoint now) {
  if (!t) return "<unknown>";
  return format_age(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

std::string format_labels(const json& labels) {
  std::vector<std::string> parts;
  if (labels.is_object())
    for (const auto& [k, v] : labels.items()) parts.push_back(k + "=" + str(v));
  std::sort(parts.begin(), parts.end());
  return parts.empty() ? "<none>" : join(parts, ",");
}

std::string selector_string(const json& selector) {
  auto s = LabelSelector::from_label_selector_json(selector);
  return s ? s->to_string() : std::string("<error>");
}

std::string format_label_selector(const json& selector) {
  const std::string text = selector_string(selector);
  return text.empty() ? "<none>" : text;
}

std::string csr_status(const json& csr) {
  std::string status = !condition_of(csr, "Denied").is_null()     ? "Denied"
                       : !condition_of(csr, "Approved").is_null() ? "Approved"
                                                                  : "Pending";
  if (!condition_of(csr, "Failed").is_null()) status += ",Failed";
  if (!str(at(csr, {"status", "certificate"})).empty()) status += ",Issued";
  return status;
}

const json& condition_of(const json& object, std::string_view type) {
  for (const auto& c : arr(at(object, {"status", "conditions"})))
    if (str(at(c, {"type"})) == type) return c;
  return null_json();
}

bool condition_true(const json& object, std::string_view type) {
  return str(at(condition_of(object, type), {"status"})) == "True";
}

std::pair<std::string, std::string> container_cells(const json& containers) {
  std::vector<std::string> names, images;
  for (const auto& c : arr(containers)) {
    names.push_back(str(at(c, {"name"})));
    images.push_back(str(at(c, {"image"})));
  }
  return {join(names, ","), join(images, ",")};
}

std::string name_of(const json& o) { return str(at(o, {"metadata", "name"})); }
std::string age_of(const json& o, TimePoint now) { return since(time_of(at(o, {"metadata", "creationTimestamp"})), now); }

// ---- column definitions ---------------------------------------------------------------------

const char* const k_name_doc =
    "Name must be unique within a namespace. Is required when creating resources, although some resources may "
    "allow a client to request the generation of an appropriate name automatically. Name is primarily intended "
    "for creation idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const char* const k_created_doc =
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not "
    "guaranteed to be set in happens-before order across separate operations. Clients may not set this value. "
    "It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. "
    "More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

ColumnDefinition col(std::string name, std::string type, std::string description, int priority,
                     std::string format) {
  return ColumnDefinition{std::move(name), std::move(type), std::move(format), std::move(description), priority, ""};
}
ColumnDefinition name_col() { return col("Name", "string", k_name_doc, 0, "name"); }
ColumnDefinition age_col() { return col("Age", "string", k_created_doc); }
ColumnDefinition containers_col() { return col("Containers", "string", "Names of each container in the template.", 1); }
ColumnDefinition images_col() { return col("Images", "string", "Images referenced by each container in the template.", 1); }

}  // namespace kw::api::print
