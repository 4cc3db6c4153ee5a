#include "core/kubeconfig/auth_provider.hpp"

#include <nlohmann/json.hpp>

#include "core/net/client/fetch.hpp"
#include "core/util/base64.hpp"
#include "core/util/text.hpp"

namespace kw::kubeconfig {
namespace {

using json = nlohmann::json;

constexpr auto k_expiry_margin = std::chrono::seconds(10);

std::string value_of(const AuthProvider& provider, const std::string& key) {
  const auto found = provider.config.find(key);
  return found == provider.config.end() ? std::string() : found->second;
}

// The issuer's CA: idp-certificate-authority-data (base64 PEM) or the file idp-certificate-authority.
Result<net::client::FetchOptions> issuer_options(const AuthProvider& provider) {
  net::client::FetchOptions options;
  options.headers = {{"Accept", "application/json"}};
  if (const auto data = value_of(provider, "idp-certificate-authority-data"); !data.empty()) {
    auto pem = base64_decode(data);
    if (!pem) return fail("idp-certificate-authority-data: " + pem.error().message);
    options.ca_data = *pem;
  } else {
    options.ca_file = value_of(provider, "idp-certificate-authority");
  }
  return options;
}

// POST grant_type=refresh_token: the client authenticates with HTTP basic auth first (the
// OAuth 2 default), then, if the endpoint refuses that, with its id and secret in the form.
Result<json> refresh(const AuthProvider& provider, const std::string& token_url, net::client::FetchOptions options) {
  const std::string id = value_of(provider, "client-id");
  const std::string secret = value_of(provider, "client-secret");
  const std::string form =
      "grant_type=refresh_token&refresh_token=" + util::percent_encode(value_of(provider, "refresh-token"));
  options.method = "POST";
  options.headers = {{"Accept", "application/json"}, {"Content-Type", "application/x-www-form-urlencoded"}};
  auto basic = options;
  basic.headers.emplace_back("Authorization", "Basic " + util::base64_encode(util::percent_encode(id) + ":" +
                                                                             util::percent_encode(secret)));
  basic.body = form;
  auto answer = net::client::fetch(token_url, basic);
  if (answer && (answer->head.status == 400 || answer->head.status == 401)) {
    options.body = form + "&client_id=" + util::percent_encode(id) + "&client_secret=" + util::percent_encode(secret);
    answer = net::client::fetch(token_url, options);
  }
  return net::client::json_object("POST " + token_url, answer);
}

Result<std::string> oidc_token(AuthProvider& provider, std::chrono::system_clock::time_point now) {
  std::string issuer = value_of(provider, "idp-issuer-url");
  if (issuer.empty()) return fail("Must provide idp-issuer-url");
  if (value_of(provider, "client-id").empty()) return fail("Must provide client-id");
  if (const auto id_token = value_of(provider, "id-token"); !id_token.empty()) {
    auto fresh = id_token_fresh(id_token, now);
    if (!fresh) return std::unexpected(fresh.error());
    if (*fresh) return id_token;
  }
  const std::string refresh_token = value_of(provider, "refresh-token");
  if (refresh_token.empty()) return fail("No valid id-token, and cannot refresh without refresh-token");
  auto options = issuer_options(provider);
  if (!options) return std::unexpected(options.error());
  while (issuer.ends_with('/')) issuer.pop_back();
  const std::string discovery_url = issuer + "/.well-known/openid-configuration";
  auto discovery = net::client::fetch_json(discovery_url, *options);
  if (!discovery) return fail("failed to refresh token: " + discovery.error().message);
  const auto token_url = discovery->value("token_endpoint", json());
  if (!token_url.is_string() || token_url.get<std::string>().empty())
    return fail("failed to refresh token: the issuer's discovery document has no token_endpoint");
  auto tokens = refresh(provider, token_url.get<std::string>(), *options);
  if (!tokens) return fail("failed to refresh token: " + tokens.error().message);
  const auto id_token = tokens->value("id_token", json());
  if (!id_token.is_string() || id_token.get<std::string>().empty())
    return fail("token response did not contain an id_token, either the scope \"openid\" wasn't requested upon "
                "login, or the provider doesn't support id_tokens as part of the refresh response.");
  auto config = provider.config;
  config["id-token"] = id_token.get<std::string>();
  if (const auto rotated = tokens->value("refresh_token", json()); rotated.is_string() && !rotated.get<std::string>().empty())
    config["refresh-token"] = rotated.get<std::string>();
  if (!provider.file.empty()) {
    auto persisted = update_file(provider.file, [&](json& document) {
      if (!document.contains("users") || !document["users"].is_array()) return;
      for (auto& entry : document["users"])
        if (entry.is_object() && entry.value("name", json()) == provider.user_name && entry.contains("user"))
          entry["user"]["auth-provider"]["config"] = config;
    });
    if (!persisted) return fail("could not persist new tokens: " + persisted.error().message);
  }
  provider.config = std::move(config);
  return id_token.get<std::string>();
}

}  // namespace

Result<bool> id_token_fresh(const std::string& id_token, std::chrono::system_clock::time_point now) {
  const auto first = id_token.find('.');
  const auto second = first == std::string::npos ? first : id_token.find('.', first + 1);
  if (second == std::string::npos || id_token.find('.', second + 1) != std::string::npos)
    return fail("ID Token is not a valid JWT");
  const auto payload = util::base64url_decode(std::string_view(id_token).substr(first + 1, second - first - 1));
  const auto claims = payload ? json::parse(*payload, nullptr, false) : json();
  if (!claims.is_object() || !claims.value("exp", json()).is_number()) return fail("ID Token has no valid exp claim");
  const auto expiry = std::chrono::system_clock::time_point(
      std::chrono::seconds(static_cast<std::int64_t>(claims["exp"].get<double>())));
  return now + k_expiry_margin < expiry;
}

Result<std::string> auth_provider_token(AuthProvider& provider, std::chrono::system_clock::time_point now) {
  if (provider.name == "oidc") return oidc_token(provider, now);
  if (provider.name == "gcp")
    return fail("The gcp auth plugin has been removed.\nPlease use the \"gke-gcloud-auth-plugin\" kubectl/client-go "
                "credential plugin instead.\nSee https://cloud.google.com/blog/products/containers-kubernetes/"
                "kubectl-auth-changes-in-gke for further details");
  if (provider.name == "azure")
    return fail("The azure auth plugin has been removed.\nPlease use the https://github.com/Azure/kubelogin "
                "kubectl/client-go credential plugin instead.\nSee https://kubernetes.io/docs/reference/"
                "access-authn-authz/authentication/#client-go-credential-plugins for further details");
  return fail("no Auth Provider found for name " + util::go_quote(provider.name));
}

}  // namespace kw::kubeconfig
