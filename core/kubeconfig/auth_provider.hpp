#pragma once
// A kubeconfig user's auth-provider, as kubectl 1.26+ keeps client-go's in-tree providers:
//   - "oidc": the config's id-token while it is valid for 10 s more; otherwise a new one from
//     the issuer's token endpoint (found through its discovery document) for the
//     refresh-token, with client-id and client-secret, and the new tokens written back to the
//     kubeconfig file that defines the user;
//   - "gcp" and "azure": removed from kubectl; refused with its words and the plugin to use;
//   - any other name: unknown.
#include <chrono>
#include <string>

#include "core/kubeconfig/kubeconfig.hpp"
#include "core/util/error.hpp"

namespace kw::kubeconfig {

// The bearer token the provider gives; `provider.config` takes refreshed tokens.
Result<std::string> auth_provider_token(AuthProvider& provider,
                                        std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

// Whether an ID token (a JWT) is valid at `now` plus 10 s by its exp claim; an error when it
// is not a JWT with a numeric exp.
Result<bool> id_token_fresh(const std::string& id_token, std::chrono::system_clock::time_point now);

}  // namespace kw::kubeconfig
