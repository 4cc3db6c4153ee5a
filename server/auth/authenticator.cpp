#include "server/auth/authenticator.hpp"

#include <algorithm>
#include <cctype>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "core/util/base64.hpp"
#include "core/util/text.hpp"
#include "server/auth/oidc.hpp"
#include "server/auth/secure_file.hpp"
#include "server/auth/service_account.hpp"
#include "server/auth/token_file.hpp"

namespace kw::auth {

namespace {

std::array<unsigned char, 32> sha256(const std::string& text) {
  std::array<unsigned char, 32> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest.data());
  return digest;
}

using util::iequals;

UserInfo with_authenticated_group(UserInfo user) {
  if (!user.in_group(k_group_authenticated) && !user.in_group(k_group_unauthenticated)) {
    user.groups.emplace_back(k_group_authenticated);
  }
  return user;
}

std::string_view trim_spaces(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

constexpr std::string_view k_websocket_token_prefix = "base64url.bearer.authorization.k8s.io.";

}  // namespace

std::optional<std::string> websocket_protocol_token(const std::string& protocols) {
  std::string_view rest = protocols;
  while (!rest.empty()) {
    const std::size_t comma = std::min(rest.find(','), rest.size());
    const std::string_view entry = trim_spaces(rest.substr(0, comma));
    rest.remove_prefix(std::min(comma + 1, rest.size()));
    if (!entry.starts_with(k_websocket_token_prefix)) continue;
    auto token = util::base64url_decode(entry.substr(k_websocket_token_prefix.size()));
    if (!token || token->empty() || token->find_first_of(" \t\r\n") != std::string::npos) return std::string();
    return token;
  }
  return std::nullopt;
}

std::optional<std::string> bearer_token(const std::string& authorization) {
  const std::string_view value = trim_spaces(authorization);
  const std::size_t space = value.find(' ');
  if (space == std::string_view::npos || !iequals(value.substr(0, space), "bearer")) return std::nullopt;
  std::string_view token = value.substr(space + 1);
  // Like kube: the token is the second space-separated word.
  token = token.substr(0, token.find(' '));
  if (token.empty()) return std::nullopt;
  return std::string(token);
}

Result<Authenticator> Authenticator::load(const AuthnConfig& config) {
  Authenticator authenticator;
  authenticator.m_config = config;
  if (config.token_auth_file.empty()) return authenticator;
  auto text = read_file(config.token_auth_file);
  if (!text) return std::unexpected(text.error());
  auto entries = parse_token_file(*text, config.token_auth_file);
  if (!entries) return std::unexpected(entries.error());
  for (auto& entry : *entries) authenticator.m_tokens.push_back(Token{sha256(entry.token), std::move(entry.user)});
  return authenticator;
}

std::optional<UserInfo> Authenticator::from_token(const std::string& token) const {
  // Every entry is compared (no early exit) so the time taken does not tell which matched.
  const auto digest = sha256(token);
  const Token* found = nullptr;
  for (const auto& entry : m_tokens) {
    if (CRYPTO_memcmp(entry.digest.data(), digest.data(), digest.size()) == 0) found = &entry;
  }
  if (found == nullptr) return std::nullopt;
  return found->user;
}

TokenReviewResult Authenticator::authenticate_token(const std::string& token,
                                                     const std::vector<std::string>& audiences) const {
  TokenReviewResult result;
  if (auto user = from_token(token)) {
    result.user = with_authenticated_group(std::move(*user));
    return result;
  }
  // Errors as kube's bearer token authenticator words them: "invalid bearer token" alone for a
  // token no authenticator knows, with the reason when one knew it and refused it.
  std::vector<std::string> errors = {"invalid bearer token"};
  if (m_config.service_accounts) {
    TokenUser found;
    std::string error;
    switch (m_config.service_accounts->authenticate(token, audiences, found, error)) {
      case ServiceAccountTokens::Outcome::valid:
        result.user = with_authenticated_group(std::move(found.user));
        result.audiences = std::move(found.audiences);
        return result;
      case ServiceAccountTokens::Outcome::invalid: errors.push_back(error); break;
      case ServiceAccountTokens::Outcome::not_mine: break;
    }
  }
  if (m_config.oidc && errors.size() == 1) {
    UserInfo found;
    std::string error;
    switch (m_config.oidc->authenticate(token, found, error)) {
      case OidcAuthenticator::Outcome::valid: result.user = with_authenticated_group(std::move(found)); return result;
      case OidcAuthenticator::Outcome::invalid: errors.push_back(error); break;
      case OidcAuthenticator::Outcome::not_mine: break;
    }
  }
  result.error = errors.size() == 1 ? errors[0] : "[" + errors[0] + ", " + errors[1] + "]";
  return result;
}

std::optional<std::string> Authenticator::presented_token(const net::Request& request) {
  if (const std::string* header = request.header("authorization")) {
    if (auto token = bearer_token(*header)) return token;
  }
  if (request.protocol == net::Protocol::websocket) {
    if (const std::string* protocols = request.header("sec-websocket-protocol")) {
      return websocket_protocol_token(*protocols);
    }
  }
  return std::nullopt;
}

std::optional<UserInfo> Authenticator::from_request_headers(const net::Request& request, bool& refused) const {
  const RequestHeaderConfig& config = *m_config.request_header;
  const auto& allowed = config.allowed_names;
  if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), request.peer->common_name) == allowed.end()) {
    refused = true;
    return std::nullopt;
  }
  UserInfo user;
  for (const auto& name : config.username_headers)
    if (const std::string* value = request.header(util::to_lower(name)); value && !value->empty()) {
      user.name = *value;
      break;
    }
  if (user.name.empty()) return std::nullopt;
  for (const auto& name : config.group_headers)
    for (const auto& header : request.headers)
      if (iequals(header.name, name) && !header.value.empty()) user.groups.push_back(header.value);
  // Extra keys are lower case and percent-decoded, values in prefix order then arrival order.
  for (const auto& prefix : config.extra_headers_prefixes)
    for (const auto& header : request.headers)
      if (header.name.size() > prefix.size() && iequals(header.name.substr(0, prefix.size()), prefix))
        user.extra[util::percent_decode(util::to_lower(header.name.substr(prefix.size())))].push_back(header.value);
  return user;
}

std::optional<UserInfo> Authenticator::authenticate(const net::Request& request) const {
  // A certificate that authenticates nothing (a front proxy not allowed, or naming no user,
  // whose certificate the client CA did not sign) fails the request as kube's union of
  // authenticators fails it, unless a token authenticates.
  bool refused = false;
  if (m_config.request_header && request.peer && request.peer->by_request_header_ca) {
    if (auto user = from_request_headers(request, refused)) return with_authenticated_group(std::move(*user));
    if (!request.peer->by_client_ca) refused = true;
  }
  if (m_config.client_certs && request.peer && request.peer->by_client_ca && !request.peer->common_name.empty()) {
    return with_authenticated_group(
        UserInfo{.name = request.peer->common_name, .groups = request.peer->organizations, .uid = {}, .extra = {}});
  }
  // Without a token file or ServiceAccount tokens no authenticator claims bearer tokens, so
  // (as in kube) they are ignored.
  if (!m_config.token_auth_file.empty() || m_config.service_accounts || m_config.oidc) {
    if (auto token = presented_token(request)) {
      if (token->empty()) return std::nullopt;
      return authenticate_token(*token).user;
    }
  }
  if (m_config.anonymous && !refused) {
    return UserInfo{.name = k_user_anonymous, .groups = {k_group_unauthenticated}, .uid = {}, .extra = {}};
  }
  return std::nullopt;
}

}  // namespace kw::auth
