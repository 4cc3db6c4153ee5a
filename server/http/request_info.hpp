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

// A query string as a map (later values of a repeated key win), percent-decoded, '+' = space.
std::map<std::string, std::string> parse_query(std::string_view query);
// A boolean query parameter as Go's strconv.ParseBool reads it ("1", "t", "T", "true", "TRUE", "True").
bool query_bool(const std::map<std::string, std::string>& query, const char* key);

RequestInfo parse_request_info(const std::string& method, std::string_view path,
                               const std::map<std::string, std::string>& query);

}  // namespace kw::http
