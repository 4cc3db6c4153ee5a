// events.k8s.io/v1: Event. Kubernetes keeps these in the storage of core v1 Events
// (/registry/events), as v1 Events: the row converts between the two field layouts, and
// validates as kube-apiserver does, on the v1 form with the v1 (internal) field names.
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/api/print_support.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/core_v1_print.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

// --- conversion ------------------------------------------------------------------------------

// Fields named differently in events.k8s.io/v1 and v1; every other field has the same name.
constexpr std::pair<std::string_view, std::string_view> k_renamed[] = {
    {"regarding", "involvedObject"},
    {"note", "message"},
    {"deprecatedSource", "source"},
    {"deprecatedFirstTimestamp", "firstTimestamp"},
    {"deprecatedLastTimestamp", "lastTimestamp"},
    {"deprecatedCount", "count"},
    {"reportingController", "reportingComponent"},
};

void move_field(json& object, std::string_view from, std::string_view to) {
  object.erase(std::string(to));
  const auto it = object.find(from);
  if (it == object.end()) return;
  json value = std::move(*it);
  object.erase(it);
  object[std::string(to)] = std::move(value);
}

// Convert_v1_Event_To_core_Event, then core to v1: the stored form.
void event_to_v1(json& event) {
  if (!event.is_object()) return;
  for (const auto& [served, stored] : k_renamed) move_field(event, served, stored);
}

// The other way, for objects read from storage.
void event_from_v1(json& event) {
  if (!event.is_object()) return;
  for (const auto& [served, stored] : k_renamed) move_field(event, stored, served);
}

json as_v1(const json& event) {
  json v1 = event;
  event_to_v1(v1);
  return v1;
}

// kube-apiserver prints these Events as it prints v1 Events, after the same conversion.
Cells print_events_event(const json& event, TimePoint now) { return print_event(as_v1(event), now); }

// --- validation (on the v1 form) -------------------------------------------------------------

constexpr std::size_t k_max_short_text = 128;  // reportingInstance, action, reason
constexpr std::size_t k_max_message = 1024;

bool unset_time(const json& value) { return !value.is_string() || value.get_ref<const std::string&>().empty(); }

// legacyValidateEvent's length checks, reported with an empty value as Kubernetes reports them.
void too_long_text(Causes& causes, const std::string& field, std::size_t limit) {
  invalid_value(causes, field, "", "can have at most " + std::to_string(limit) + " characters");
}

// legacyValidateEvent: what every Event must satisfy, whatever API version writes it.
void validate_legacy(const json& event, Causes& causes) {
  const std::string ns = str(at(event, {"metadata", "namespace"}));
  const json& involved_ns = at(event, {"involvedObject", "namespace"});
  const std::string involved = str(involved_ns);
  const auto mismatch = [&] {
    invalid_value(causes, "involvedObject.namespace", involved, "does not match event.namespace");
  };
  if (unset_time(at(event, {"eventTime"}))) {
    if (involved.empty() ? !ns.empty() && ns != "default" : ns != involved) mismatch();
  } else {
    if (involved.empty() && ns != "default" && ns != "kube-system") mismatch();
    const std::string controller = str(at(event, {"reportingComponent"}));
    if (controller.empty()) required(causes, "reportingController");
    invalid_each(causes, "reportingController", controller, qualified_name_errors(controller));
    const std::string instance = str(at(event, {"reportingInstance"}));
    if (instance.empty()) required(causes, "reportingInstance");
    if (instance.size() > k_max_short_text) too_long_text(causes, "reportingInstance", k_max_short_text);
    for (const char* field : {"action", "reason"}) {
      const std::string text = str(at(event, {field}));
      if (text.empty()) required(causes, field);
      if (text.size() > k_max_short_text) too_long_text(causes, field, k_max_short_text);
    }
    if (str(at(event, {"message"})).size() > k_max_message) too_long_text(causes, "message", k_max_message);
  }
  invalid_each(causes, "namespace", ns, subdomain_errors(ns));
}

// validateV1EventSeries.
void validate_series(const json& event, Causes& causes) {
  const json& series = at(event, {"series"});
  if (!series.is_object()) return;
  if (num(at(series, {"count"})) < 2) invalid_value(causes, "series.count", "", "should be at least 2");
  if (unset_time(at(series, {"lastObservedTime"}))) required(causes, "series.lastObservedTime");
}

// ValidateEventCreate for events.k8s.io/v1: new Events carry the new fields, not the old ones.
// An update does not check them again (an Event first written through v1 has the old ones).
void validate_new_event(const json& event, Causes& causes) {
  validate_series(event, causes);
  if (unset_time(at(event, {"eventTime"}))) required(causes, "eventTime");
  const std::string type = str(at(event, {"type"}));
  if (type != "Normal" && type != "Warning") invalid_value(causes, "type", "", "has invalid value: " + type);
  for (const char* field : {"firstTimestamp", "lastTimestamp"})
    if (!unset_time(at(event, {field}))) invalid_value(causes, field, "", "needs to be unset");
  if (num(at(event, {"count"})) != 0) invalid_value(causes, "count", "", "needs to be unset");
  if (!str(at(event, {"source", "component"})).empty() || !str(at(event, {"source", "host"})).empty())
    invalid_value(causes, "source", "", "needs to be unset");
}

void validate_events_event(const json& event, Causes& causes) { validate_legacy(as_v1(event), causes); }

void validate_events_event_create(const json& event, Causes& causes) {
  const json v1 = as_v1(event);
  validate_legacy(v1, causes);
  validate_new_event(v1, causes);
}

// Go's %v of a metav1.Time or MicroTime (time.Time's String), as immutability errors print them.
std::string go_time(const json& value) {
  const auto t = time_of(value);
  if (!t) return "0001-01-01 00:00:00 +0000 UTC";
  const auto seconds = std::chrono::floor<std::chrono::seconds>(*t);
  const auto days = std::chrono::floor<std::chrono::days>(seconds);
  const std::chrono::year_month_day date{days};
  const std::chrono::hh_mm_ss clock{seconds - days};
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02u-%02u %02d:%02d:%02d", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<int>(clock.hours().count()), static_cast<int>(clock.minutes().count()),
                static_cast<int>(clock.seconds().count()));
  std::string out = text;
  if (const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(*t - seconds).count(); ns != 0) {
    std::snprintf(text, sizeof text, ".%09lld", static_cast<long long>(ns));
    std::string fraction = text;
    while (fraction.back() == '0') fraction.pop_back();
    out += fraction;
  }
  return out + " +0000 UTC";
}

// Go's %#v of a core.ObjectReference ("null" for an unset pointer).
std::string go_object_reference(const json& ref, bool pointer) {
  if (pointer && !ref.is_object()) return "null";
  return "core.ObjectReference{Kind:" + go_quoted(at(ref, {"kind"})) +
         ", Namespace:" + go_quoted(at(ref, {"namespace"})) + ", Name:" + go_quoted(at(ref, {"name"})) +
         ", UID:" + go_quoted(at(ref, {"uid"})) + ", APIVersion:" + go_quoted(at(ref, {"apiVersion"})) +
         ", ResourceVersion:" + go_quoted(at(ref, {"resourceVersion"})) +
         ", FieldPath:" + go_quoted(at(ref, {"fieldPath"})) + "}";
}

std::string go_source(const json& source) {
  return "core.EventSource{Component:" + go_quoted(at(source, {"component"})) +
         ", Host:" + go_quoted(at(source, {"host"})) + "}";
}

// The instant of a (micro)time, to the microsecond.
std::optional<std::chrono::sys_time<std::chrono::microseconds>> micro_time(const json& value) {
  const auto t = time_of(value);
  if (!t) return std::nullopt;
  return std::chrono::floor<std::chrono::microseconds>(*t);
}

// ValidateEventUpdate for events.k8s.io/v1: what happened cannot be rewritten, only its series.
// Values compare as Kubernetes compares them (unset and empty alike, times by instant) and print
// as its field errors print them.
void validate_events_event_update(const json& served, const json& served_old, Causes& causes) {
  const json event = as_v1(served);
  const json old = as_v1(served_old);
  if (!semantic_equal(at(event, {"series"}), at(old, {"series"}))) validate_series(event, causes);
  const auto check = [&](const std::string& field, const std::string& now, const std::string& before) {
    if (now != before) invalid_rendered(causes, field, now, "field is immutable");
  };
  const auto text = [&](const std::string& field, const char* key) {
    check(field, go_quoted(at(event, {key})), go_quoted(at(old, {key})));
  };
  const auto instant = [&](const char* field) { check(field, go_time(at(event, {field})), go_time(at(old, {field}))); };
  const auto reference = [&](const char* field, bool pointer) {
    check(field, go_object_reference(at(event, {field}), pointer), go_object_reference(at(old, {field}), pointer));
  };
  reference("involvedObject", false);
  text("reason", "reason");
  text("message", "message");
  check("source", go_source(at(event, {"source"})), go_source(at(old, {"source"})));
  instant("firstTimestamp");
  instant("lastTimestamp");
  check("count", std::to_string(num(at(event, {"count"}))), std::to_string(num(at(old, {"count"}))));
  text("reason", "reason");  // Kubernetes checks it twice
  text("type", "type");
  // Sub-microsecond differences are tolerated: MicroTime only carries microseconds.
  if (micro_time(at(event, {"eventTime"})) != micro_time(at(old, {"eventTime"}))) instant("eventTime");
  text("action", "action");
  reference("related", true);
  text("reportingController", "reportingComponent");
  text("reportingInstance", "reportingInstance");
}

KindSpec events_v1_event_row() {
  return {
      .info = {.group = "events.k8s.io",
               .version = "v1",
               .kind = "Event",
               .plural = "events",
               .short_names = {"ev"},
               .columns = event_columns(),
               .printer = print_events_event},
      .storage_resource = "events",
      .stored_as = StoredAs{"v1", event_to_v1, event_from_v1},
      // kube-apiserver's field label conversion for events.k8s.io/v1 accepts these names.
      .fields = {{"regarding.kind", {"regarding", "kind"}, ""},
                 {"regarding.namespace", {"regarding", "namespace"}, ""},
                 {"regarding.name", {"regarding", "name"}, ""},
                 {"regarding.uid", {"regarding", "uid"}, ""},
                 {"regarding.apiVersion", {"regarding", "apiVersion"}, ""},
                 {"regarding.resourceVersion", {"regarding", "resourceVersion"}, ""},
                 {"regarding.fieldPath", {"regarding", "fieldPath"}, ""},
                 {"reason", {"reason"}, ""},
                 {"reportingController", {"reportingController"}, ""},
                 {"type", {"type"}, ""}},
      .uses_event_ttl = true,
      .strategy = {.validate = validate_events_event,
                   .validate_create = validate_events_event_create,
                   .validate_update = validate_events_event_update}};
}

}  // namespace

std::vector<KindSpec> events_v1_kinds() { return {events_v1_event_row()}; }

}  // namespace kw::kinds
