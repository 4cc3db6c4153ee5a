#include "server/registry/api_error.hpp"

#include <set>
#include <string>
#include <vector>

namespace kw::registry {
namespace {

std::string qualified(const std::string& group, const std::string& plural) {
  return group.empty() ? plural : plural + "." + group;
}

nlohmann::json details_for(const std::string& group, const std::string& plural, const std::string& name) {
  nlohmann::json details = {{"name", name}, {"kind", plural}};
  if (!group.empty()) details["group"] = group;
  return details;
}

}  // namespace

nlohmann::json ApiError::status() const {
  nlohmann::json out = {{"kind", "Status"},   {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
                        {"status", "Failure"}, {"message", message}, {"reason", reason},
                        {"code", code}};
  if (reason.empty()) out.erase("reason");  // a plain error carries none (omitempty)
  if (!details.empty()) out["details"] = details;
  else if (keep_empty_details) out["details"] = nlohmann::json::object();
  return out;
}

ApiError bad_request(std::string message) { return ApiError{400, "BadRequest", std::move(message), {}}; }

ApiError internal_error(const std::string& why) {
  return ApiError{500, "InternalError", "Internal error occurred: " + why, {{"causes", {{{"message", why}}}}}};
}

ApiError not_found(const std::string& group, const std::string& plural, const std::string& name) {
  return ApiError{404, "NotFound", qualified(group, plural) + " \"" + name + "\" not found",
                  details_for(group, plural, name)};
}

ApiError forbidden(const std::string& group, const std::string& plural, const std::string& name,
                   const std::string& why) {
  const std::string what = name.empty() ? qualified(group, plural) : qualified(group, plural) + " \"" + name + "\"";
  nlohmann::json details = {{"kind", plural}};
  if (!name.empty()) details["name"] = name;
  if (!group.empty()) details["group"] = group;
  return ApiError{403, "Forbidden", what + " is forbidden: " + why, std::move(details)};
}

std::string causes_summary(const nlohmann::json& causes) {
  // ErrorList.ToAggregate: a cause given twice is said once.
  std::vector<std::string> lines;
  std::set<std::string> seen;
  for (const auto& c : causes)
    if (std::string line = c.value("field", "") + ": " + c.value("message", ""); seen.insert(line).second)
      lines.push_back(std::move(line));
  if (lines.size() == 1) return lines[0];
  std::string out = "[";
  for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? ", " : "") + lines[i];
  return out + "]";
}

ApiError invalid(const std::string& group, const std::string& kind, const std::string& name,
                 nlohmann::json causes, const std::string& summary) {
  // StatusDetails' name, group and kind are omitted when empty (an access review's 422
  // names neither kind nor object).
  nlohmann::json details = {{"causes", std::move(causes)}};
  if (!name.empty()) details["name"] = name;
  if (!group.empty()) details["group"] = group;
  if (!kind.empty()) details["kind"] = kind;
  const std::string what = group.empty() ? kind : kind + "." + group;
  return ApiError{422, "Invalid", what + " \"" + name + "\" is invalid: " + summary, std::move(details)};
}

ApiError conflict(const std::string& group, const std::string& plural, const std::string& name,
                  const std::string& why) {
  return ApiError{409, "Conflict", "Operation cannot be fulfilled on " + qualified(group, plural) + " \"" + name + "\": " + why,
                  details_for(group, plural, name)};
}

ApiError from_storage(const storage::Error& error, const std::string& group, const std::string& plural,
                      const std::string& name) {
  const std::string what = qualified(group, plural) + " \"" + name + "\"";
  switch (error.code) {
    case storage::ErrorCode::not_found: return not_found(group, plural, name);
    case storage::ErrorCode::exists:
      return ApiError{409, "AlreadyExists", what + " already exists", details_for(group, plural, name)};
    case storage::ErrorCode::conflict:
      return conflict(group, plural, name,
                      "the object has been modified; please apply your changes to the latest version and try again");
    case storage::ErrorCode::compacted:
      return ApiError{410, "Expired", "The resourceVersion for the provided list is too old.", {}};
    case storage::ErrorCode::too_large:
      return ApiError{413, "RequestEntityTooLarge", "Request entity too large: " + error.message, {}};
    case storage::ErrorCode::timeout:
      return ApiError{504, "Timeout", "storage timed out: " + error.message + "; retry", {}};
    case storage::ErrorCode::unavailable:
      return ApiError{503, "ServiceUnavailable", "storage is unavailable: " + error.message, {}};
    case storage::ErrorCode::invalid: return bad_request(error.message);
    case storage::ErrorCode::corrupt:
      return ApiError{500, "InternalError", "stored data of " + what + " is unreadable: " + error.message, {}};
  }
  return ApiError{500, "InternalError", error.message, {}};
}

}  // namespace kw::registry
