#pragma once
// Base64 (RFC 4648): the standard alphabet with padding, as kubeconfig *-data fields and
// Kubernetes' bytes fields carry it, and the URL alphabet without padding, as JWTs and the
// WebSocket bearer subprotocol carry it.
#include <optional>
#include <string>
#include <string_view>

namespace kw::util {

std::string base64_encode(std::string_view bytes);
// Standard-alphabet text, padded or not; nullopt on any other character.
std::optional<std::string> base64_decode(std::string_view text);
// RFC 4648 section 5 without padding.
std::string base64url_encode(std::string_view bytes);
// Unpadded URL-alphabet text; nullopt on any other character or a dangling bit group.
std::optional<std::string> base64url_decode(std::string_view text);

}  // namespace kw::util
