#pragma once
// The admin kubeconfig `kw serve` leaves next to its PKI: cluster, user and context all named
// "kw", credentials inline (base64 *-data fields), so `kubectl --kubeconfig=PATH` works as is.
#include <string>

#include "core/util/error.hpp"
#include "server/auth/pki.hpp"

namespace kw::auth {

// The kubeconfig YAML for `server_url` (e.g. "https://127.0.0.1:6443") with the CA of `pki`
// and its admin client certificate and key.
Result<std::string> admin_kubeconfig_yaml(const std::string& server_url, const PkiFiles& pki);

// Writes admin_kubeconfig_yaml() to `path` with mode 0600 (replacing the file atomically).
Result<void> write_admin_kubeconfig(const std::string& path, const std::string& server_url, const PkiFiles& pki);

}  // namespace kw::auth
