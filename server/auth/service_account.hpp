#pragma once
// ServiceAccount tokens as kube-apiserver issues and checks them: bound tokens from
// TokenRequest (serviceaccounts/{name}/token), signed with --service-account-signing-key-file
// and verified with --service-account-key-file, and the legacy Secret-based tokens that
// kube-controller-manager writes (issuer "kubernetes/serviceaccount"). A bound token stops
// working when its ServiceAccount, Pod or Secret is gone or was made again (another uid).
//
//   auto tokens = ServiceAccountTokens::load(config);
//   tokens->set_lookup(lookup);                  // reads ServiceAccounts, Pods, Secrets
//   auto issued = tokens->issue(sa, pod, nullptr, {"api"}, 3600);
//   auto who = tokens->authenticate(bearer, {}); // the user system:serviceaccount:NS:NAME
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"
#include "server/auth/jwt.hpp"
#include "server/auth/user_info.hpp"

namespace kw::auth {

struct ServiceAccountConfig {
  std::vector<std::string> issuers;        // the first one is written into new tokens
  std::string signing_key_file;
  std::vector<std::string> key_files;      // empty: the signing key's public half
  std::vector<std::string> api_audiences;  // empty: the issuers
  std::chrono::seconds max_expiration{0};  // 0: no cap
  bool extend_expiration = true;  // a Pod's token asked for 3607 s lives a year, warning after 3607 s
};

// A stored object the checks read (serviceaccounts, pods, secrets), or nullopt when there is none.
using ObjectLookup =
    std::function<std::optional<nlohmann::json>(std::string_view plural, const std::string& ns, const std::string& name)>;

struct IssuedToken {
  std::string token;
  std::chrono::system_clock::time_point expiration;
};

struct TokenUser {
  UserInfo user;  // system:serviceaccount:NS:NAME, its groups, uid, pod-name/pod-uid extras
  std::vector<std::string> audiences;
};

class ServiceAccountTokens {
 public:
  static Result<std::shared_ptr<ServiceAccountTokens>> load(const ServiceAccountConfig& config);
  // Called once, before serving.
  void set_lookup(ObjectLookup lookup) { m_lookup = std::move(lookup); }

  // A token for `service_account`, bound to `pod` or `secret` when given (stored objects).
  // `expiration_seconds` as asked (TokenRequest's validation has checked it).
  Result<IssuedToken> issue(const nlohmann::json& service_account, const nlohmann::json* pod,
                            const nlohmann::json* secret, const std::vector<std::string>& audiences,
                            std::int64_t expiration_seconds) const;

  enum class Outcome { not_mine, valid, invalid };
  // Whether `token` is one of these tokens and still good for one of `audiences` (empty: the
  // API audiences). `error` says why not, in kube's words.
  Outcome authenticate(const std::string& token, const std::vector<std::string>& audiences, TokenUser& out,
                       std::string& error) const;

  const std::vector<std::string>& api_audiences() const { return m_api_audiences; }
  const std::string& issuer() const { return m_issuers.front(); }
  std::chrono::seconds max_expiration() const { return m_max_expiration; }
  // /.well-known/openid-configuration (jwks at `jwks_uri`) and /openid/v1/jwks.
  nlohmann::json openid_configuration(const std::string& jwks_uri) const;
  nlohmann::json jwks() const;

 private:
  ServiceAccountTokens() = default;
  std::optional<std::string> check_bound(const nlohmann::json& claims, TokenUser& out) const;
  std::optional<std::string> check_legacy(const std::string& token, const nlohmann::json& claims, TokenUser& out) const;

  std::vector<std::string> m_issuers;
  std::vector<std::string> m_api_audiences;
  std::chrono::seconds m_max_expiration{0};
  bool m_extend_expiration = true;
  std::unique_ptr<SigningKey> m_signing_key;
  std::vector<PublicKey> m_keys;
  ObjectLookup m_lookup;
};

// The user name of a ServiceAccount, and its groups.
std::string service_account_user(const std::string& ns, const std::string& name);
std::vector<std::string> service_account_groups(const std::string& ns);
// The namespace and name of a ServiceAccount's user name ("system:serviceaccount:NS:NAME");
// none for any other user.
std::optional<std::pair<std::string, std::string>> service_account_of(std::string_view user);

}  // namespace kw::auth
