#pragma once
// What a Kubernetes API request asks for, read from its path and query (kube-apiserver's
// RequestInfoFactory): the API prefix, group/version, namespace, resource, name, subresource
// and verb.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kw::http {

struct RequestInfo {
  bool is_resource_request = false;
  std::string api_prefix;  // "api" or "apis"
  std::string group;       // "" for the core group
  std::string version;
  std::string namespace_;
  std::string resource;    // plural
  std::string name;
  std::string subresource;
  std::string verb;        // get list watch create update patch delete deletecollection
  std::vector<std::string> parts;  // the (already percent-decoded) path split at '/'
};

// A query string as a map, percent-decoded, '+' = space. The first value of a repeated key
// wins, as kube's parameter codec reads url.Values.
std::map<std::string, std::string> parse_query(std::string_view query);
// A boolean query parameter as kube's parameter codec reads it: absent, "0" or "false" (in any
// case) is false; anything else, even an empty value, is true.
bool query_bool(const std::map<std::string, std::string>& query, const char* key);

RequestInfo parse_request_info(const std::string& method, std::string_view path,
                               const std::map<std::string, std::string>& query);

}  // namespace kw::http
