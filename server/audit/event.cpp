#include "server/audit/event.hpp"

#include <array>

#include "core/codec/protobuf_scalars.hpp"
#include "core/util/text.hpp"

namespace kw::audit {
namespace {

using namespace std::string_view_literals;

using json = nlohmann::json;

// Bytes a JSON string cannot hold as they are: controls, '"', '\\', and (for the UTF-8 check)
// everything past ASCII.
constexpr auto k_needs_care = [] {
  std::array<bool, 256> table{};
  for (int byte = 0; byte < 256; ++byte) table[byte] = byte < 0x20 || byte >= 0x80 || byte == '"' || byte == '\\';
  return table;
}();

// A JSON string; bytes that are not UTF-8 become U+FFFD rather than failing the line. Plain
// ASCII (nearly every string of an event) is escaped here, in runs; the rest goes through
// nlohmann.
void put_string(std::string& out, std::string_view text) {
  static constexpr char k_hex[] = "0123456789abcdef";
  std::size_t i = 0;
  while (i < text.size() && !k_needs_care[static_cast<unsigned char>(text[i])]) ++i;
  if (i == text.size()) {  // the common case: one copy
    out += '"';
    out += text;
    out += '"';
    return;
  }
  const std::size_t start = out.size();
  out += '"';
  std::size_t run = 0;  // start of the bytes not yet copied
  for (; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (!k_needs_care[byte]) continue;
    if (byte >= 0x80) {
      out.resize(start);
      out += json(text).dump(-1, ' ', false, json::error_handler_t::replace);
      return;
    }
    out.append(text.data() + run, i - run);
    run = i + 1;
    out += '\\';
    switch (byte) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '\n': out += 'n'; break;
      case '\t': out += 't'; break;
      case '\r': out += 'r'; break;
      case '\b': out += 'b'; break;
      case '\f': out += 'f'; break;
      default:
        out += "u00"sv;
        out += k_hex[byte >> 4];
        out += k_hex[byte & 0xf];
    }
  }
  out.append(text.data() + run, text.size() - run);
  out += '"';
}

// `key` is the member's name with its punctuation: R"(,"verb":)".
void put_field(std::string& out, std::string_view key, std::string_view value) {
  out += key;
  put_string(out, value);
}

void put_optional(std::string& out, std::string_view key, std::string_view value) {
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

// A JSON object of `entries` (a map of strings to values), each value written by `put_value`.
template <class Map, class PutValue>
void put_object(std::string& out, const Map& entries, PutValue put_value) {
  out += '{';
  bool first = true;
  for (const auto& [key, value] : entries) {
    if (!first) out += ',';
    first = false;
    put_string(out, key);
    out += ':';
    put_value(out, value);
  }
  out += '}';
}

// authentication.k8s.io/v1 UserInfo: username, uid, groups, extra (empty ones left out).
void put_user(std::string& out, const auth::UserInfo& user) {
  out += '{';
  std::size_t mark = out.size();
  if (!user.name.empty()) put_field(out, R"(,"username":)", user.name);
  put_optional(out, R"(,"uid":)", user.uid);
  if (!user.groups.empty()) {
    out += ",\"groups\":"sv;
    put_strings(out, user.groups);
  }
  if (!user.extra.empty()) {
    out += ",\"extra\":"sv;
    put_object(out, user.extra, put_strings);
  }
  if (out.size() > mark) out.erase(mark, 1);  // the first field's comma
  out += '}';
}

void put_body(std::string& out, const char* key, const json& body) {
  out += ",\""sv;
  out += key;
  out += "\":"sv;
  out += body.dump(-1, ' ', false, json::error_handler_t::replace);
}


// Appends "2006-01-02T15:04:05.000000Z", quoted. The seconds' text is kept per thread: events
// come many a second.
void put_micro_time(std::string& out, Event::Clock::time_point at) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(at.time_since_epoch()).count();
  std::int64_t seconds = micros / 1'000'000;
  std::int64_t fraction = micros % 1'000'000;
  if (fraction < 0) {
    fraction += 1'000'000;
    --seconds;
  }
  thread_local std::int64_t cached_seconds = -1;
  thread_local std::string cached_text;  // "2006-01-02T15:04:05"
  if (seconds != cached_seconds) {
    cached_text = codec::scalars::format_rfc3339({seconds, 0}, 0);
    cached_text.pop_back();  // 'Z'
    cached_seconds = seconds;
  }
  char tail[9] = {'.', 0, 0, 0, 0, 0, 0, 'Z', '"'};
  for (int i = 6; i >= 1; --i) {
    tail[i] = static_cast<char>('0' + fraction % 10);
    fraction /= 10;
  }
  out += '"';
  out += cached_text;
  out.append(tail, sizeof tail);
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

void append_identity(std::string& out, const Event& e) {
  put_field(out, R"(,"requestURI":)", e.request_uri);
  put_field(out, R"(,"verb":)", e.verb);
  out += ",\"user\":"sv;
  static const auth::UserInfo k_nobody;
  put_user(out, e.user ? *e.user : k_nobody);
  if (e.impersonated_user) {
    out += ",\"impersonatedUser\":"sv;
    put_user(out, *e.impersonated_user);
  }
  if (!e.source_ips.empty()) {
    out += ",\"sourceIPs\":"sv;
    put_strings(out, e.source_ips);
  }
  put_optional(out, R"(,"userAgent":)", e.user_agent);
  if (e.object_ref) {
    const auto& ref = *e.object_ref;
    out += ",\"objectRef\":{"sv;
    const std::size_t mark = out.size();
    put_optional(out, R"(,"resource":)", ref.resource);
    put_optional(out, R"(,"namespace":)", ref.namespace_);
    put_optional(out, R"(,"name":)", ref.name);
    put_optional(out, R"(,"uid":)", ref.uid);
    put_optional(out, R"(,"apiGroup":)", ref.api_group);
    put_optional(out, R"(,"apiVersion":)", ref.api_version);
    put_optional(out, R"(,"resourceVersion":)", ref.resource_version);
    put_optional(out, R"(,"subresource":)", ref.subresource);
    if (out.size() > mark) out.erase(mark, 1);
    out += '}';
  }
}

void append_json_line(std::string& out, const Event& e) {
  out += R"({"kind":"Event","apiVersion":"audit.k8s.io/v1")"sv;
  put_field(out, R"(,"level":)", level_name(e.level));
  put_field(out, R"(,"auditID":)", e.audit_id);
  put_field(out, R"(,"stage":)", stage_name(e.stage));
  if (e.identity.empty()) append_identity(out, e);
  else out += e.identity;
  if (e.response_status) {
    const auto& status = *e.response_status;
    out += R"(,"responseStatus":{"metadata":{})"sv;
    put_optional(out, R"(,"status":)", status.status);
    put_optional(out, R"(,"message":)", status.message);
    put_optional(out, R"(,"reason":)", status.reason);
    if (status.code != 0) out += ",\"code\":" + std::to_string(status.code);
    out += '}';
  }
  if (e.request_object) put_body(out, "requestObject", *e.request_object);
  if (e.response_object) put_body(out, "responseObject", *e.response_object);
  out += R"(,"requestReceivedTimestamp":)"sv;
  put_micro_time(out, e.received);
  out += R"(,"stageTimestamp":)"sv;
  put_micro_time(out, e.stage_time);
  if (!e.annotations.empty()) {
    out += ",\"annotations\":"sv;
    put_object(out, e.annotations, [](std::string& to, const std::string& value) { put_string(to, value); });
  }
  out += "}\n"sv;
}

void append_legacy_line(std::string& out, const Event& e) {
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
  out += rfc3339_nano(e.received) + " AUDIT: id=" + util::go_quote(e.audit_id) +
         " stage=" + util::go_quote(stage_name(e.stage)) + " ip=" + util::go_quote(ip) +
         " method=" + util::go_quote(e.verb) + " user=" + util::go_quote(username) +
         " groups=" + util::go_quote(groups) + " as=" + util::go_quote(as_user) +
         " asgroups=" + util::go_quote(as_groups) + " user-agent=" + util::go_quote(e.user_agent) +
         " namespace=" + util::go_quote(ns) + " uri=" + util::go_quote(e.request_uri) + " response=\"" + response +
         "\"\n";
}

}  // namespace kw::audit
