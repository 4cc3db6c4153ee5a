#include "server/http/cross_site.hpp"

#include <algorithm>
#include <string_view>

#include "core/codec/media_type.hpp"
#include "core/util/host.hpp"
#include "core/util/text.hpp"

namespace kw::http {
namespace {

// The host part of a Host header: "127.0.0.1:8080" -> "127.0.0.1", "[::1]:80" -> "::1".
std::string_view host_name(std::string_view host) {
  if (host.starts_with('[')) {
    const auto end = host.find(']');
    return end == std::string_view::npos ? host : host.substr(1, end - 1);
  }
  return host.substr(0, host.find(':'));
}

registry::ApiError refused(int code, const char* reason, const std::string& why) {
  return {code, reason, why + " (the insecure port serves only local clients that are not web browsers)", {}};
}

}  // namespace

std::optional<registry::ApiError> cross_site_refusal(const net::Request& request) {
  const std::string* host = request.header("host");
  if (host != nullptr && !util::is_loopback_host(host_name(*host)))
    return refused(403, "Forbidden", "Host " + util::go_quote(*host) + " is not a loopback name");
  if (const std::string* origin = request.header("origin");
      origin != nullptr && (host == nullptr || *origin != "http://" + *host))
    return refused(403, "Forbidden", "Origin " + util::go_quote(*origin) + " is not this server's");
  // Of the methods with a body, a page can make a browser send only POST without asking the
  // server first (a CORS preflight, which this port never grants). kubectl sends some PUTs
  // with no Content-Type, which is JSON, as on kube-apiserver.
  if (request.method != "POST") return std::nullopt;
  const std::string* type = request.header("content-type");
  std::string essence;
  if (type != nullptr)
    if (auto media = codec::parse_media_type(*type)) essence = media->essence();
  static constexpr std::string_view k_simple[] = {"", "text/plain", "application/x-www-form-urlencoded",
                                                  "multipart/form-data"};
  if (std::ranges::find(k_simple, essence) != std::end(k_simple))
    return refused(415, "UnsupportedMediaType",
                   "a request body needs a Content-Type such as application/json on this port");
  return std::nullopt;
}

}  // namespace kw::http
