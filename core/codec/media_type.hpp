#pragma once
// HTTP media types: Content-Type / Accept parsing and Kubernetes-style negotiation
// (apiserver pkg/endpoints/handlers/negotiation).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/util/error.hpp"

namespace kw::codec {

struct MediaType {
  std::string type;     // lowercase; "*" for a wildcard
  std::string subtype;  // lowercase; "*" for a wildcard
  std::vector<std::pair<std::string, std::string>> params;  // names lowercase, values unquoted
  double q = 1.0;       // from an Accept entry; 1.0 otherwise

  std::string essence() const;  // "application/json"
  const std::string* param(std::string_view name) const;  // case-insensitive name
  std::string to_string() const;  // essence plus params (quoted where needed), no q
};

// One media type, e.g. a Content-Type header ("application/json; charset=utf-8").
Result<MediaType> parse_media_type(std::string_view text);

// An Accept header: comma list with quoted params and q-values. An empty header gives an
// empty list (callers treat it as "*/*").
Result<std::vector<MediaType>> parse_accept(std::string_view text);

// The index of the offered type the client prefers: by q, then by how specific the
// matching Accept entry is (exact > type/* > */*), then by Accept order, then offer order.
// The Kubernetes parameters as/g/v must be equal on both sides; `stream` must be equal when
// the client names it. Other parameters (charset, pretty, ...) do not affect matching.
// An empty `accepted` list accepts anything.
std::optional<std::size_t> negotiate(const std::vector<MediaType>& accepted,
                                     const std::vector<MediaType>& offered);

}  // namespace kw::codec
