#include "server/audit/event.hpp"

#include "core/codec/protobuf_scalars.hpp"
#include "core/util/text.hpp"

namespace kw::audit {
namespace {

using json = nlohmann::json;

// A JSON string; bytes that are not UTF-8 become U+FFFD rather than failing the line.
void put_string(std::string& out, std::string_view text) {
  out += json(text).dump(-1, ' ', false, json::error_handler_t::replace);
}

void put_field(std::string& out, const char* key, std::string_view value) {
  out += ",\"";
  out += key;
  out += "\":";
  put_string(out, value);
}

void put_optional(std::string& out, const char* key, std::string_view value) {
  if (!value.empty()) put_field(out, key, value);
}

void put_strings(std::string& out, const std::vector<std::string>& values) {
  out += '[';
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    put_string(out, values[i]);
  }
  out += ']';
}

// authentication.k8s.io/v1 UserInfo: username, uid, groups, extra (empty ones left out).
void put_user(std::string& out, const auth::UserInfo& user) {
  out += '{';
  std::size_t mark = out.size();
  if (!user.name.empty()) put_field(out, "username", user.name);
  put_optional(out, "uid", user.uid);
  if (!user.groups.empty()) {
    out += ",\"groups\":";
    put_strings(out, user.groups);
  }
  if (!user.extra.empty()) {
    out += ",\"extra\":{";
    bool first = true;
    for (const auto& [key, values] : user.extra) {
      if (!first) out += ',';
      first = false;
      put_string(out, key);
      out += ':';
      put_strings(out, values);
    }
    out += '}';
  }
  if (out.size() > mark) out.erase(mark, 1);  // the first field's comma
  out += '}';
}

void put_body(std::string& out, const char* key, const Body& body) {
  out += ",\"";
  out += key;
  out += "\":";
  out += body.raw.empty() ? body.object.dump(-1, ' ', false, json::error_handler_t::replace) : body.raw;
}

std::string micro_time(Event::Clock::time_point at) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(at.time_since_epoch()).count();
  codec::scalars::Timestamp stamp{micros / 1'000'000, static_cast<std::int32_t>((micros % 1'000'000) * 1000)};
  if (stamp.nanos < 0) {
    stamp.nanos += 1'000'000'000;
    --stamp.seconds;
  }
  return codec::scalars::format_rfc3339(stamp, 6);
}

// Go's time.RFC3339Nano: up to nine fraction digits, trailing zeros dropped.
std::string rfc3339_nano(Event::Clock::time_point at) {
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count();
  codec::scalars::Timestamp stamp{nanos / 1'000'000'000, static_cast<std::int32_t>(nanos % 1'000'000'000)};
  if (stamp.nanos < 0) {
    stamp.nanos += 1'000'000'000;
    --stamp.seconds;
  }
  std::string text = codec::scalars::format_rfc3339({stamp.seconds, 0}, 0);  // "...05Z"
  if (stamp.nanos == 0) return text;
  std::string fraction = std::to_string(stamp.nanos);
  fraction.insert(0, 9 - fraction.size(), '0');
  fraction.erase(fraction.find_last_not_of('0') + 1);
  text.insert(text.size() - 1, "." + fraction);
  return text;
}

std::string quoted_list(const std::vector<std::string>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + util::go_quote(values[i]);
  return out;
}

}  // namespace

std::string json_line(const Event& e) {
  std::string out = R"({"kind":"Event","apiVersion":"audit.k8s.io/v1")";
  put_field(out, "level", level_name(e.level));
  put_field(out, "auditID", e.audit_id);
  put_field(out, "stage", stage_name(e.stage));
  put_field(out, "requestURI", e.request_uri);
  put_field(out, "verb", e.verb);
  out += ",\"user\":";
  put_user(out, e.user.value_or(auth::UserInfo{}));
  if (e.impersonated_user) {
    out += ",\"impersonatedUser\":";
    put_user(out, *e.impersonated_user);
  }
  if (!e.source_ips.empty()) {
    out += ",\"sourceIPs\":";
    put_strings(out, e.source_ips);
  }
  put_optional(out, "userAgent", e.user_agent);
  if (e.object_ref) {
    const auto& ref = *e.object_ref;
    out += ",\"objectRef\":{";
    const std::size_t mark = out.size();
    put_optional(out, "resource", ref.resource);
    put_optional(out, "namespace", ref.namespace_);
    put_optional(out, "name", ref.name);
    put_optional(out, "uid", ref.uid);
    put_optional(out, "apiGroup", ref.api_group);
    put_optional(out, "apiVersion", ref.api_version);
    put_optional(out, "resourceVersion", ref.resource_version);
    put_optional(out, "subresource", ref.subresource);
    if (out.size() > mark) out.erase(mark, 1);
    out += '}';
  }
  if (e.response_status) {
    const auto& status = *e.response_status;
    out += R"(,"responseStatus":{"metadata":{})";
    put_optional(out, "status", status.status);
    put_optional(out, "message", status.message);
    put_optional(out, "reason", status.reason);
    if (status.code != 0) out += ",\"code\":" + std::to_string(status.code);
    out += '}';
  }
  if (e.request_object) put_body(out, "requestObject", *e.request_object);
  if (e.response_object) put_body(out, "responseObject", *e.response_object);
  put_field(out, "requestReceivedTimestamp", micro_time(e.received));
  put_field(out, "stageTimestamp", micro_time(e.stage_time));
  if (!e.annotations.empty()) {
    out += ",\"annotations\":{";
    bool first = true;
    for (const auto& [key, value] : e.annotations) {
      if (!first) out += ',';
      first = false;
      put_string(out, key);
      out += ':';
      put_string(out, value);
    }
    out += '}';
  }
  out += "}\n";
  return out;
}

std::string legacy_line(const Event& e) {
  std::string username = "<none>", groups = "<none>";
  if (e.user && !e.user->name.empty()) {
    username = e.user->name;
    if (!e.user->groups.empty()) groups = quoted_list(e.user->groups);
  }
  std::string as_user = "<self>", as_groups = "<lookup>";
  if (e.impersonated_user) {
    as_user = e.impersonated_user->name;
    if (!e.impersonated_user->groups.empty()) as_groups = quoted_list(e.impersonated_user->groups);
  }
  const std::string ns = e.object_ref && !e.object_ref->namespace_.empty() ? e.object_ref->namespace_ : "<none>";
  const std::string response = e.response_status ? std::to_string(e.response_status->code) : "<deferred>";
  const std::string ip = e.source_ips.empty() ? "<unknown>" : e.source_ips.front();
  return rfc3339_nano(e.received) + " AUDIT: id=" + util::go_quote(e.audit_id) +
         " stage=" + util::go_quote(stage_name(e.stage)) + " ip=" + util::go_quote(ip) +
         " method=" + util::go_quote(e.verb) + " user=" + util::go_quote(username) +
         " groups=" + util::go_quote(groups) + " as=" + util::go_quote(as_user) +
         " asgroups=" + util::go_quote(as_groups) + " user-agent=" + util::go_quote(e.user_agent) +
         " namespace=" + util::go_quote(ns) + " uri=" + util::go_quote(e.request_uri) + " response=\"" + response +
         "\"\n";
}

}  // namespace kw::audit
