#include "core/net/client/fetch.hpp"

namespace kw::net::client {

Result<Response> fetch(const std::string& url, const FetchOptions& options) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos || (!url.starts_with("https://") && !url.starts_with("http://")))
    return fail(options.method + " " + url + ": not an http(s) URL");
  const auto path_start = url.find('/', scheme_end + 3);
  ClientConfig config;
  config.url = url.substr(0, path_start);
  config.ca_file = options.ca_file;
  config.ca_data = options.ca_data;
  config.request_timeout = options.timeout;
  config.transport = Transport::Http1;
  auto client = Client::create(config);
  if (!client) return fail(options.method + " " + url + ": " + client.error().message);
  Request request;
  request.method = options.method;
  request.target = path_start == std::string::npos ? "/" : url.substr(path_start);
  request.headers = options.headers;
  request.body = options.body;
  auto response = (*client)->request(request, options.max_body);
  if (!response) return fail(options.method + " " + url + ": " + response.error().message);
  return response;
}

Result<nlohmann::json> json_object(const std::string& what, const Result<Response>& response) {
  if (!response) return std::unexpected(response.error());
  auto parsed = nlohmann::json::parse(response->body, nullptr, false);
  if (response->head.status != 200) {
    std::string why = "HTTP " + std::to_string(response->head.status);
    if (parsed.is_object() && parsed.value("error", nlohmann::json()).is_string())
      why += ": " + parsed["error"].get<std::string>();
    return fail(what + ": " + why);
  }
  if (!parsed.is_object()) return fail(what + ": the answer is not a JSON object");
  return parsed;
}

Result<nlohmann::json> fetch_json(const std::string& url, const FetchOptions& options) {
  return json_object(options.method + " " + url, fetch(url, options));
}

}  // namespace kw::net::client
