#include "core/net/server/http_text.hpp"

#include <cctype>

#include "core/util/text.hpp"

namespace kw::net {

const std::string* Request::header(std::string_view name) const {
  for (const auto& h : headers) {
    if (util::iequals(h.name, name)) return &h.value;
  }
  return nullptr;
}

}  // namespace kw::net

namespace kw::net::detail {

void split_target(std::string_view target, Request& request) {
  const auto question = target.find('?');
  request.path = util::percent_decode(target.substr(0, question));
  request.query = question == std::string_view::npos ? std::string() : std::string(target.substr(question + 1));
}

std::string_view reason_phrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "Payload Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 417: return "Expectation Failed";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Unknown";
  }
}

bool has_header(const Headers& headers, std::string_view name) {
  for (const auto& h : headers) {
    if (util::to_lower(h.name) == name) return true;
  }
  return false;
}

std::string serialize_http1_head(int status, const Headers& headers) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason_phrase(status)) + "\r\n";
  for (const auto& h : headers) {
    out += h.name;
    out += ": ";
    out += h.value;
    out += "\r\n";
  }
  out += "\r\n";
  return out;
}

Refusal refusal(int status, std::uint64_t body_limit) {
  if (status == 413) {
    const std::string message = "Request entity too large: limit is " + std::to_string(body_limit);
    return {"application/json", R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":")" +
                                    message + R"(","reason":"RequestEntityTooLarge","details":{},"code":413})" + "\n"};
  }
  return {"text/plain", std::to_string(status) + " " + std::string(reason_phrase(status)) + "\n"};
}

}  // namespace kw::net::detail
