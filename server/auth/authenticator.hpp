#pragma once
// Request authentication, in kube-apiserver's order: an authenticating front proxy (a client
// certificate from the request-header CA, the user in its X-Remote-* headers), a verified
// client certificate (CN is the user, O the groups), then `Authorization: Bearer <token>` from the token file or a
// ServiceAccount token (for a
// WebSocket request without that header: the subprotocol
// `base64url.bearer.authorization.k8s.io.<base64url token>`, as browsers must send it), then
// anonymous. Every authenticated user also gets the group system:authenticated.
//
//   auto authn = kw::auth::Authenticator::load({.token_auth_file = path, .client_certs = true});
//   std::optional<UserInfo> user = authn->authenticate(request);  // nullopt: answer 401
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/net/server/http_server.hpp"
#include "core/util/error.hpp"
#include "server/auth/user_info.hpp"

namespace kw::auth {

class ServiceAccountTokens;
class OidcAuthenticator;

// kube-apiserver's --requestheader-* flags: a front proxy whose client certificate the
// request-header CA signed names the user in headers.
struct RequestHeaderConfig {
  std::vector<std::string> allowed_names;     // the proxy's certificate CN; empty: any
  std::vector<std::string> username_headers;  // the first one with a value names the user
  std::vector<std::string> group_headers;     // every value of each is a group
  std::vector<std::string> extra_headers_prefixes;  // PREFIX + key: a value of extra[key]
};

struct AuthnConfig {
  std::string token_auth_file;  // empty: no bearer tokens from a file
  bool client_certs = false;    // trust Request::peer (the transport verified it against the client CA)
  bool anonymous = false;       // requests with no credentials become system:anonymous
  // Set with --requestheader-client-ca-file (Request::peer says which CA signed).
  std::optional<RequestHeaderConfig> request_header = std::nullopt;
  // ServiceAccount tokens (bound and legacy); null: none are accepted.
  std::shared_ptr<const ServiceAccountTokens> service_accounts = nullptr;
  // OpenID Connect ID tokens (--oidc-issuer-url); null: none.
  std::shared_ptr<const OidcAuthenticator> oidc = nullptr;
};

// A TokenReview's answer: the user and the audiences the token is good for, or why not.
struct TokenReviewResult {
  std::optional<UserInfo> user;
  std::vector<std::string> audiences;
  std::string error;
};

class Authenticator {
 public:
  // Reads the token file (errors name the file and line). Called at start-up.
  static Result<Authenticator> load(const AuthnConfig& config);

  // The user, or nullopt when the request must get 401: credentials were presented and are
  // wrong (an unknown bearer token fails even with anonymous enabled), or none were and
  // anonymous is off. A malformed Authorization header (not "Bearer <token>") counts as none.
  // Thread-safe (const, no state changes).
  std::optional<UserInfo> authenticate(const net::Request& request) const;

  // The user of a bearer token for one of `audiences` (empty: the API's), with
  // system:authenticated: a TokenReview's question.
  TokenReviewResult authenticate_token(const std::string& token, const std::vector<std::string>& audiences = {}) const;

  std::size_t token_count() const { return m_tokens.size(); }

 private:
  struct Token {
    std::array<unsigned char, 32> digest;  // SHA-256 of the token: compared in constant time
    UserInfo user;
  };

  // The bearer token of the request: nullopt = none presented, "" = presented but malformed.
  static std::optional<std::string> presented_token(const net::Request& request);
  std::optional<UserInfo> from_token(const std::string& token) const;
  // The user a front proxy names; nullopt when it names none. Sets `refused` when the proxy's
  // certificate is not one of the allowed names.
  std::optional<UserInfo> from_request_headers(const net::Request& request, bool& refused) const;

  AuthnConfig m_config;
  std::vector<Token> m_tokens;
};

// The token of an `Authorization: Bearer <token>` header value (scheme case-insensitive),
// or nullopt when the value is not of that form.
std::optional<std::string> bearer_token(const std::string& authorization);

// The token carried in a Sec-WebSocket-Protocol value (a comma-separated list): nullopt when no
// `base64url.bearer.authorization.k8s.io.` entry is there, "" when one is but does not decode
// to a token.
std::optional<std::string> websocket_protocol_token(const std::string& protocols);

}  // namespace kw::auth
