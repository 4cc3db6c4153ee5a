#include "server/auth/oidc.hpp"

#include <algorithm>

#include "core/api/print_support.hpp"
#include "core/net/client/fetch.hpp"
#include "core/util/backoff.hpp"

namespace kw::auth {

namespace {

using nlohmann::json;
using api::print::at;
using api::print::str;

constexpr auto k_min_refetch = std::chrono::seconds(10);
constexpr std::int64_t k_leeway_seconds = 60;

// GET url (https, verified with `ca_file` when given) as a JSON object.
Result<json> get_json(const std::string& url, const std::string& ca_file) {
  return net::client::fetch_json(url, {.headers = {{"Accept", "application/json"}}, .ca_file = ca_file});
}

std::vector<std::string> strings_of(const json& value) {
  std::vector<std::string> out;
  if (value.is_string()) out.push_back(value.get<std::string>());
  if (value.is_array())
    for (const auto& one : value)
      if (one.is_string()) out.push_back(one.get<std::string>());
  return out;
}

}  // namespace

OidcAuthenticator::OidcAuthenticator(OidcConfig config) : m_config(std::move(config)) {}

Result<std::unique_ptr<OidcAuthenticator>> OidcAuthenticator::start(OidcConfig config) {
  if (!config.issuer_url.starts_with("https://"))
    return fail("--oidc-issuer-url must be an https:// URL, not \"" + config.issuer_url + "\"");
  if (config.client_id.empty()) return fail("--oidc-client-id is required with --oidc-issuer-url");
  std::unique_ptr<OidcAuthenticator> oidc(new OidcAuthenticator(std::move(config)));
  oidc->m_refresher = std::thread([self = oidc.get()] { self->refresh_loop(); });
  return oidc;
}

OidcAuthenticator::~OidcAuthenticator() {
  {
    std::lock_guard lock(m_mutex);
    m_stopping = true;
    m_wake.notify_all();
  }
  if (m_refresher.joinable()) m_refresher.join();
}

Result<std::vector<PublicKey>> OidcAuthenticator::fetch_keys() const {
  std::string issuer = m_config.issuer_url;
  while (issuer.ends_with('/')) issuer.pop_back();
  auto discovery = get_json(issuer + "/.well-known/openid-configuration", m_config.ca_file);
  if (!discovery) return std::unexpected(discovery.error());
  if (str(at(*discovery, {"issuer"})) != m_config.issuer_url)
    return fail("the issuer's discovery document names issuer \"" + str(at(*discovery, {"issuer"})) + "\", not \"" +
                m_config.issuer_url + "\"");
  const std::string jwks_uri = str(at(*discovery, {"jwks_uri"}));
  if (jwks_uri.empty()) return fail("the issuer's discovery document has no jwks_uri");
  auto jwks = get_json(jwks_uri, m_config.ca_file);
  if (!jwks) return std::unexpected(jwks.error());
  return public_keys_from_jwks(*jwks);
}

void OidcAuthenticator::refresh_loop() {
  std::unique_lock lock(m_mutex);
  util::Backoff backoff(std::chrono::milliseconds(500), std::chrono::seconds(30));
  while (!m_stopping) {
    m_wake.wait(lock, [&] { return m_stopping || m_refresh_wanted; });
    if (m_stopping) return;
    const auto wait_until = m_last_fetch + k_min_refetch;
    if (m_keys && std::chrono::steady_clock::now() < wait_until) {
      m_wake.wait_until(lock, wait_until, [&] { return m_stopping; });
      if (m_stopping) return;
    }
    m_refresh_wanted = false;
    lock.unlock();
    auto keys = fetch_keys();
    lock.lock();
    m_last_fetch = std::chrono::steady_clock::now();
    if (keys) {
      m_keys = std::make_shared<const std::vector<PublicKey>>(std::move(*keys));
      backoff.reset();
      continue;
    }
    // Until the issuer answers, OIDC tokens fail; try again, less and less often.
    if (!m_keys) {
      m_wake.wait_for(lock, backoff.next(), [&] { return m_stopping; });
      m_refresh_wanted = true;
    }
  }
}

OidcAuthenticator::Outcome OidcAuthenticator::authenticate(const std::string& token, UserInfo& out,
                                                           std::string& error) const {
  const auto unverified = unverified_claims(token);
  if (!unverified || str(at(*unverified, {"iss"})) != m_config.issuer_url) return Outcome::not_mine;
  std::shared_ptr<const std::vector<PublicKey>> keys;
  {
    std::lock_guard lock(m_mutex);
    keys = m_keys;
  }
  std::optional<json> claims;
  if (keys) claims = verify(token, *keys, m_config.signing_algs);  // only --oidc-signing-algs
  if (!claims) {
    std::lock_guard lock(m_mutex);
    m_refresh_wanted = true;  // maybe a new key
    m_wake.notify_all();
    error = keys ? "oidc: verify token: failed to verify signature: no key matched"
                 : "oidc: authenticator not initialized";
    return Outcome::invalid;
  }
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch()).count();
  if (const auto exp = claims->find("exp"); exp == claims->end() || !exp->is_number() || now > exp->get<std::int64_t>() + k_leeway_seconds) {
    error = "oidc: verify token: oidc: token is expired";
    return Outcome::invalid;
  }
  if (const auto nbf = claims->find("nbf"); nbf != claims->end() && nbf->is_number() &&
                                            now + k_leeway_seconds < nbf->get<std::int64_t>()) {
    error = "oidc: verify token: oidc: current time is before the nbf (not before) time";
    return Outcome::invalid;
  }
  const auto audiences = strings_of(claims->value("aud", json()));
  if (std::ranges::find(audiences, m_config.client_id) == audiences.end()) {
    error = "oidc: verify token: oidc: expected audience \"" + m_config.client_id + "\" got " + claims->value("aud", json()).dump();
    return Outcome::invalid;
  }
  for (const auto& [key, value] : m_config.required_claims)
    if (str(at(*claims, {key})) != value) {
      error = "oidc: required claim " + key + " had value \"" + str(at(*claims, {key})) + "\", expected \"" + value + "\"";
      return Outcome::invalid;
    }
  const std::string username = str(at(*claims, {m_config.username_claim}));
  if (username.empty()) {
    error = "oidc: parse username claims \"" + m_config.username_claim + "\": claim not present";
    return Outcome::invalid;
  }
  if (m_config.username_claim == "email") {
    const auto verified = claims->find("email_verified");
    if (verified != claims->end() && !(verified->is_boolean() && verified->get<bool>())) {
      error = "oidc: email not verified";
      return Outcome::invalid;
    }
  }
  std::string prefix;
  if (!m_config.username_prefix) prefix = m_config.username_claim == "email" ? "" : m_config.issuer_url + "#";
  else if (*m_config.username_prefix != "-") prefix = *m_config.username_prefix;
  out = UserInfo{.name = prefix + username, .groups = {}, .uid = {}, .extra = {}};
  if (!m_config.groups_claim.empty())
    for (const auto& group : strings_of(claims->value(m_config.groups_claim, json())))
      out.groups.push_back(m_config.groups_prefix + group);
  return Outcome::valid;
}

}  // namespace kw::auth
