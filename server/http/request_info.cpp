#include "server/http/request_info.hpp"

#include "core/util/text.hpp"

namespace kw::http {

bool query_bool(const std::map<std::string, std::string>& query, const char* key) {
  auto found = query.find(key);
  if (found == query.end()) return false;
  const std::string& v = found->second;
  return v != "0" && !util::iequals(v, "false");
}

std::map<std::string, std::string> parse_query(std::string_view query) {
  std::map<std::string, std::string> out;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const auto pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    out.emplace(util::percent_decode(pair.substr(0, eq), true),
                eq == std::string_view::npos ? "" : util::percent_decode(pair.substr(eq + 1), true));
  }
  return out;
}

RequestInfo parse_request_info(const std::string& method, std::string_view path,
                               const std::map<std::string, std::string>& query) {
  RequestInfo info;
  std::vector<std::string> parts;
  for (std::size_t start = 0; start <= path.size();) {
    auto slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) parts.emplace_back(path.substr(start, slash - start));  // decoded once, by the transport
    start = slash + 1;
  }
  info.parts = parts;
  if (parts.empty() || (parts[0] != "api" && parts[0] != "apis")) return info;
  info.api_prefix = parts[0];
  std::size_t at = 1;
  if (info.api_prefix == "apis") {
    if (parts.size() < 3) return info;
    info.group = parts[1];
    at = 2;
  } else if (parts.size() < 2) {
    return info;
  }
  info.version = parts[at++];
  std::vector<std::string> rest(parts.begin() + static_cast<std::ptrdiff_t>(at), parts.end());
  if (rest.empty()) return info;
  info.is_resource_request = true;
  bool watch = query_bool(query, "watch");
  if (rest[0] == "watch") {  // the deprecated /watch/ paths
    watch = true;
    rest.erase(rest.begin());
  }
  if (!rest.empty() && rest[0] == "namespaces" && rest.size() > 1) {
    info.namespace_ = rest[1];
    if (rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize") rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.empty()) {
    info.is_resource_request = false;
    return info;
  }
  info.resource = rest[0];
  if (rest.size() > 1) info.name = rest[1];
  if (rest.size() > 2) info.subresource = rest[2];
  if (info.resource == "namespaces") info.namespace_.clear();
  if (rest.size() > 3) {
    info.is_resource_request = false;  // deeper paths (proxy, logs...) are not served
    return info;
  }
  if (method == "GET" || method == "HEAD") info.verb = watch ? "watch" : info.name.empty() ? "list" : "get";
  else if (method == "POST") info.verb = "create";
  else if (method == "PUT") info.verb = "update";
  else if (method == "PATCH") info.verb = "patch";
  else if (method == "DELETE") info.verb = info.name.empty() ? "deletecollection" : "delete";
  return info;
}

}  // namespace kw::http
