#include "server/auth/service_account.hpp"

#include <algorithm>

#include "core/api/print_support.hpp"
#include "core/util/base64.hpp"
#include "core/util/text.hpp"

namespace kw::auth {

namespace {

using nlohmann::json;
using api::print::at;
using api::print::str;
using Clock = std::chrono::system_clock;

constexpr const char* k_legacy_issuer = "kubernetes/serviceaccount";
constexpr std::int64_t k_leeway_seconds = 60;  // go-jose's jwt.DefaultLeeway

std::string uid_of(const json& object) { return str(at(object, {"metadata", "uid"})); }
bool being_deleted(const json& object) { return at(object, {"metadata"}).contains("deletionTimestamp"); }

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(Clock::now().time_since_epoch()).count();
}

// `aud` as a list (a JWT may carry one audience as a string).
std::vector<std::string> audiences_of(const json& claims) {
  std::vector<std::string> out;
  const auto found = claims.find("aud");
  if (found == claims.end()) return out;
  if (found->is_string()) out.push_back(found->get<std::string>());
  if (found->is_array())
    for (const auto& one : *found)
      if (one.is_string()) out.push_back(one.get<std::string>());
  return out;
}

std::optional<std::string> check_times(const json& claims) {
  const std::int64_t now = unix_now();
  auto number = [&](const char* key) -> std::optional<std::int64_t> {
    const auto found = claims.find(key);
    if (found == claims.end() || !found->is_number()) return std::nullopt;
    return found->get<std::int64_t>();
  };
  if (const auto exp = number("exp"); exp && now > *exp + k_leeway_seconds) return "service account token has expired";
  if (const auto nbf = number("nbf"); nbf && now + k_leeway_seconds < *nbf)
    return "service account token is not valid yet";
  if (const auto iat = number("iat"); iat && now + k_leeway_seconds < *iat)
    return "service account token claims could not be validated due to unexpected validation error";
  return std::nullopt;
}

}  // namespace

std::string service_account_user(const std::string& ns, const std::string& name) {
  return "system:serviceaccount:" + ns + ":" + name;
}

std::vector<std::string> service_account_groups(const std::string& ns) {
  return {"system:serviceaccounts", "system:serviceaccounts:" + ns};
}

std::optional<std::pair<std::string, std::string>> service_account_of(std::string_view user) {
  constexpr std::string_view prefix = "system:serviceaccount:";
  if (!user.starts_with(prefix)) return std::nullopt;
  const std::string_view rest = user.substr(prefix.size());
  const auto colon = rest.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == rest.size() ||
      rest.find(':', colon + 1) != std::string_view::npos)
    return std::nullopt;
  return std::make_pair(std::string(rest.substr(0, colon)), std::string(rest.substr(colon + 1)));
}

Result<std::shared_ptr<ServiceAccountTokens>> ServiceAccountTokens::load(const ServiceAccountConfig& config) {
  if (config.issuers.empty()) return fail("service account tokens need an issuer (--service-account-issuer)");
  std::shared_ptr<ServiceAccountTokens> tokens(new ServiceAccountTokens());
  tokens->m_issuers = config.issuers;
  tokens->m_api_audiences = config.api_audiences.empty() ? config.issuers : config.api_audiences;
  tokens->m_max_expiration = config.max_expiration;
  tokens->m_extend_expiration = config.extend_expiration;
  if (!config.signing_key_file.empty()) {
    auto key = SigningKey::load(config.signing_key_file);
    if (!key) return std::unexpected(key.error());
    tokens->m_signing_key = std::make_unique<SigningKey>(std::move(*key));
  }
  std::vector<std::string> key_files = config.key_files;
  if (key_files.empty() && !config.signing_key_file.empty()) key_files.push_back(config.signing_key_file);
  auto keys = load_public_keys(key_files);
  if (!keys) return std::unexpected(keys.error());
  tokens->m_keys = std::move(*keys);
  return tokens;
}

Result<IssuedToken> ServiceAccountTokens::issue(const json& service_account, const json* pod, const json* secret,
                                                const std::vector<std::string>& audiences,
                                                std::int64_t expiration_seconds) const {
  if (!m_signing_key) return fail("this server has no service account signing key (--service-account-signing-key-file)");
  const auto& meta = at(service_account, {"metadata"});
  const std::string ns = str(at(meta, {"namespace"}));
  const std::string name = str(at(meta, {"name"}));
  std::int64_t lifetime = expiration_seconds;
  std::int64_t warn_after = 0;
  // A Pod's projected token asked for 3607 s (the ServiceAccount admission's default) lives a
  // year, for clients that do not reload it yet, and counts as stale after 3607 s.
  const bool kube_audiences = std::ranges::all_of(
      audiences, [&](const std::string& a) { return std::ranges::find(m_api_audiences, a) != m_api_audiences.end(); });
  if (m_extend_expiration && pod != nullptr && expiration_seconds == 3607 && kube_audiences) {
    warn_after = expiration_seconds;
    lifetime = 365LL * 24 * 60 * 60;
  }
  const std::int64_t now = unix_now();
  json kubernetes = {{"namespace", ns}, {"serviceaccount", {{"name", name}, {"uid", str(at(meta, {"uid"}))}}}};
  auto ref = [](const json& object) {
    return json{{"name", str(at(object, {"metadata", "name"}))}, {"uid", uid_of(object)}};
  };
  if (pod != nullptr) kubernetes["pod"] = ref(*pod);
  else if (secret != nullptr) kubernetes["secret"] = ref(*secret);
  if (warn_after != 0) kubernetes["warnafter"] = now + warn_after;
  json claims = {{"aud", audiences},
                 {"exp", now + lifetime},
                 {"iat", now},
                 {"iss", m_issuers.front()},
                 {"kubernetes.io", std::move(kubernetes)},
                 {"nbf", now},
                 {"sub", service_account_user(ns, name)}};
  auto token = m_signing_key->sign(claims);
  if (!token) return std::unexpected(token.error());
  return IssuedToken{std::move(*token), Clock::time_point(std::chrono::seconds(now + lifetime))};
}

ServiceAccountTokens::Outcome ServiceAccountTokens::authenticate(const std::string& token,
                                                                 const std::vector<std::string>& wanted,
                                                                 TokenUser& out, std::string& error) const {
  const auto unverified = unverified_claims(token);
  if (!unverified) return Outcome::not_mine;
  const std::string issuer = str(at(*unverified, {"iss"}));
  const bool legacy = issuer == k_legacy_issuer;
  if (!legacy && std::ranges::find(m_issuers, issuer) == m_issuers.end()) return Outcome::not_mine;
  const auto claims = verify(token, m_keys);
  if (!claims) {
    error = "crypto/rsa: verification error";
    return Outcome::invalid;
  }
  std::vector<std::string> token_audiences = audiences_of(*claims);
  if (token_audiences.empty()) token_audiences = m_api_audiences;  // legacy tokens: the API's
  const std::vector<std::string>& requested = wanted.empty() ? m_api_audiences : wanted;
  out.audiences.clear();
  for (const auto& one : token_audiences)
    if (std::ranges::find(requested, one) != requested.end()) out.audiences.push_back(one);
  if (out.audiences.empty() && !m_api_audiences.empty()) {
    error = "token audiences " + util::go_quote_list(token_audiences) + " is invalid for the target audiences " +
            util::go_quote_list(requested);
    return Outcome::invalid;
  }
  auto problem = legacy ? check_legacy(token, *claims, out) : check_bound(*claims, out);
  if (problem) {
    error = std::move(*problem);
    return Outcome::invalid;
  }
  return Outcome::valid;
}

// kube's validator.Validate: times, then the ServiceAccount, Secret and Pod the token names.
std::optional<std::string> ServiceAccountTokens::check_bound(const json& claims, TokenUser& out) const {
  if (auto late = check_times(claims)) return late;
  const json& k8s = at(claims, {"kubernetes.io"});
  const std::string ns = str(at(k8s, {"namespace"}));
  const json& sa_ref = at(k8s, {"serviceaccount"});
  const std::string sa_name = str(at(sa_ref, {"name"}));
  const auto account = m_lookup ? m_lookup("serviceaccounts", ns, sa_name) : std::nullopt;
  if (!account) return "serviceaccounts " + util::go_quote(sa_name) + " not found";
  if (being_deleted(*account)) return "service account " + ns + "/" + sa_name + " has been deleted";
  if (uid_of(*account) != str(at(sa_ref, {"uid"})))
    return "service account UID (" + uid_of(*account) + ") does not match claim (" + str(at(sa_ref, {"uid"})) + ")";
  // The Secret or Pod the token is bound to must still be there, not going, and the same one.
  auto bound_problem = [&](const char* kind, const char* plural) -> std::optional<std::string> {
    const json& ref = at(k8s, {kind});
    if (!ref.is_object()) return std::nullopt;
    const auto bound = m_lookup(plural, ns, str(at(ref, {"name"})));
    if (!bound || being_deleted(*bound)) return "service account token has been invalidated";
    if (uid_of(*bound) != str(at(ref, {"uid"})))
      return std::string(kind) + " UID (" + uid_of(*bound) + ") does not match service account " + kind +
             " ref claim (" + str(at(ref, {"uid"})) + ")";
    return std::nullopt;
  };
  if (auto problem = bound_problem("secret", "secrets")) return problem;
  if (auto problem = bound_problem("pod", "pods")) return problem;
  out.user = UserInfo{.name = service_account_user(ns, sa_name), .groups = service_account_groups(ns),
                      .uid = str(at(sa_ref, {"uid"})), .extra = {}};
  const std::string pod_name = str(at(k8s, {"pod", "name"})), pod_uid = str(at(k8s, {"pod", "uid"}));
  if (!pod_name.empty() && !pod_uid.empty())
    out.user.extra = {{"authentication.kubernetes.io/pod-name", {pod_name}},
                      {"authentication.kubernetes.io/pod-uid", {pod_uid}}};
  return std::nullopt;
}

// kube's legacyValidator: the token must still be the one its Secret holds.
std::optional<std::string> ServiceAccountTokens::check_legacy(const std::string& token, const json& claims,
                                                              TokenUser& out) const {
  const std::string ns = str(at(claims, {"kubernetes.io/serviceaccount/namespace"}));
  const std::string secret_name = str(at(claims, {"kubernetes.io/serviceaccount/secret.name"}));
  const std::string sa_name = str(at(claims, {"kubernetes.io/serviceaccount/service-account.name"}));
  const std::string sa_uid = str(at(claims, {"kubernetes.io/serviceaccount/service-account.uid"}));
  if (str(at(claims, {"sub"})).empty()) return "sub claim is missing";
  if (ns.empty()) return "namespace claim is missing";
  if (secret_name.empty()) return "secretName claim is missing";
  if (sa_name.empty()) return "serviceAccountName claim is missing";
  if (sa_uid.empty()) return "serviceAccountUID claim is missing";
  if (str(at(claims, {"sub"})) != service_account_user(ns, sa_name)) return "sub claim is invalid";
  const auto secret = m_lookup ? m_lookup("secrets", ns, secret_name) : std::nullopt;
  if (!secret || being_deleted(*secret)) return "Token has been invalidated";
  // data.token is the token itself, base64 as every Secret value.
  if (util::base64_decode(str(at(*secret, {"data", "token"}))) != token)
    return "Token does not match server's copy";
  const auto account = m_lookup("serviceaccounts", ns, sa_name);
  if (!account) return "serviceaccounts " + util::go_quote(sa_name) + " not found";
  if (being_deleted(*account)) return "ServiceAccount " + ns + "/" + sa_name + " has been deleted";
  if (uid_of(*account) != sa_uid)
    return "ServiceAccount UID (" + uid_of(*account) + ") does not match claim (" + sa_uid + ")";
  out.user = UserInfo{.name = service_account_user(ns, sa_name), .groups = service_account_groups(ns), .uid = sa_uid,
                      .extra = {}};
  return std::nullopt;
}

json ServiceAccountTokens::openid_configuration(const std::string& jwks_uri) const {
  return {{"issuer", m_issuers.front()},
          {"jwks_uri", jwks_uri},
          {"response_types_supported", {"id_token"}},
          {"subject_types_supported", {"public"}},
          {"id_token_signing_alg_values_supported", [&] {
             std::vector<std::string> algorithms;
             for (const auto& key : m_keys)
               if (std::ranges::find(algorithms, key.algorithm()) == algorithms.end()) algorithms.push_back(key.algorithm());
             return algorithms;
           }()}};
}

json ServiceAccountTokens::jwks() const {
  json keys = json::array();
  for (const auto& key : m_keys) keys.push_back(key.jwk());
  return {{"keys", std::move(keys)}};
}

}  // namespace kw::auth
