#pragma once
// One audit.k8s.io/v1 Event, and its two line formats (--audit-log-format json and legacy).
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/audit/policy.hpp"
#include "server/auth/user_info.hpp"

namespace kw::audit {

// What the request is about (empty fields are left out of the JSON).
struct ObjectRef {
  std::string resource, namespace_, name, uid, api_group, api_version, resource_version, subresource;
};

// The bounded part of the answer: its code, and for a Status answer its status and reason
// (Authentication failures also carry a message).
struct ResponseStatus {
  int code = 0;
  std::string status, reason, message;
};

struct Event {
  using Clock = std::chrono::system_clock;
  Level level = Level::metadata;
  std::string audit_id;
  Stage stage = Stage::request_received;
  std::string request_uri;
  std::string verb;
  std::optional<auth::UserInfo> user;  // none: authentication failed
  std::optional<auth::UserInfo> impersonated_user;
  std::vector<std::string> source_ips;
  std::string user_agent;
  std::optional<ObjectRef> object_ref;
  std::optional<ResponseStatus> response_status;
  std::optional<nlohmann::json> request_object;   // the decoded object, or a JSON patch body
  std::optional<nlohmann::json> response_object;
  Clock::time_point received;
  Clock::time_point stage_time;
  std::map<std::string, std::string> annotations;
  // The members from requestURI through objectRef, already encoded (append_identity), which
  // every stage of a request shares; empty: encoded with the line.
  std::string identity;
};

// Appends the members from requestURI through objectRef (",\"requestURI\":...") of the JSON line.
void append_identity(std::string& out, const Event& event);

// Appends one line of JSON with a trailing newline, fields in kube-apiserver's order.
void append_json_line(std::string& out, const Event& event);
// Appends kube-apiserver's one-line text form (--audit-log-format=legacy), with a trailing newline.
void append_legacy_line(std::string& out, const Event& event);

inline std::string json_line(const Event& event) {
  std::string out;
  append_json_line(out, event);
  return out;
}
inline std::string legacy_line(const Event& event) {
  std::string out;
  append_legacy_line(out, event);
  return out;
}

}  // namespace kw::audit
