#pragma once
// OpenID Connect ID tokens as kube-apiserver's --oidc-* flags accept them: a JWT from
// --oidc-issuer-url for --oidc-client-id, signed by a key of the issuer's JWKS (found through
// its /.well-known/openid-configuration), names the user by a claim and its groups by
// another, with prefixes.
//
//   auto oidc = OidcAuthenticator::start({.issuer_url = "https://issuer", .client_id = "kw"});
//   UserInfo user; std::string error;
//   switch (oidc->authenticate(token, user, error)) { ... }
//
// The keys are fetched in the background at start and again (at most every 10 s) when a
// token's signature matches none of them, so a rotated key is picked up.
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/util/error.hpp"
#include "server/auth/jwt.hpp"
#include "server/auth/user_info.hpp"

namespace kw::auth {

struct OidcConfig {
  std::string issuer_url;
  std::string client_id;
  std::string username_claim = "sub";
  // nullopt: kube's default, "<issuer_url>#" unless the claim is "email"; "-": none.
  std::optional<std::string> username_prefix;
  std::string groups_claim;
  std::string groups_prefix;
  std::vector<std::pair<std::string, std::string>> required_claims;
  std::vector<std::string> signing_algs = {"RS256"};
  std::string ca_file;  // verifies the issuer's TLS certificate; "" = the system's
};

class OidcAuthenticator {
 public:
  static Result<std::unique_ptr<OidcAuthenticator>> start(OidcConfig config);
  ~OidcAuthenticator();
  OidcAuthenticator(const OidcAuthenticator&) = delete;
  OidcAuthenticator& operator=(const OidcAuthenticator&) = delete;

  enum class Outcome { not_mine, valid, invalid };
  // not_mine: not a JWT of this issuer. Thread-safe.
  Outcome authenticate(const std::string& token, UserInfo& out, std::string& error) const;

 private:
  explicit OidcAuthenticator(OidcConfig config);
  // The issuer's keys, fetched now (discovery, then its jwks_uri).
  Result<std::vector<PublicKey>> fetch_keys() const;
  void refresh_loop();

  OidcConfig m_config;
  mutable std::mutex m_mutex;  // guards the members below
  mutable std::condition_variable m_wake;
  std::shared_ptr<const std::vector<PublicKey>> m_keys;
  mutable bool m_refresh_wanted = true;
  std::chrono::steady_clock::time_point m_last_fetch{};
  bool m_stopping = false;
  std::thread m_refresher;
};

}  // namespace kw::auth
