#pragma once
// kubeconfig loading as kubectl does it: the files (--kubeconfig, else KUBECONFIG's
// colon-separated list merged with the first file winning, else ~/.kube/config), the
// context/cluster/user chosen by flags or current-context, command-line overrides on top,
// relative paths resolved against the file that named them, inline *-data decoded, and
// exec credential plugins (client.authentication.k8s.io v1 and v1beta1).
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"

namespace kw::kubeconfig {

struct ExecConfig {
  std::string api_version;  // client.authentication.k8s.io/v1 or /v1beta1
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string install_hint;
  bool provide_cluster_info = false;
  // Never, IfAvailable or Always: whether the plugin may read the terminal (required in v1,
  // IfAvailable by default in v1beta1).
  std::string interactive_mode = "IfAvailable";
};

// A user's auth-provider (client-go's in-tree providers): its name and config map, with where
// it was defined, for a provider that writes refreshed tokens back (oidc).
struct AuthProvider {
  std::string name;
  std::map<std::string, std::string> config;
  std::string user_name;  // the kubeconfig user
  std::string file;       // the kubeconfig file that defines that user
};

// Command-line flags; an unset optional leaves the kubeconfig value alone.
struct Overrides {
  std::optional<std::string> kubeconfig;
  std::optional<std::string> context;
  std::optional<std::string> cluster;
  std::optional<std::string> user;
  std::optional<std::string> namespace_name;
  std::optional<std::string> server;
  std::optional<std::string> token;
  std::optional<std::string> certificate_authority;
  std::optional<std::string> client_certificate;
  std::optional<std::string> client_key;
  std::optional<std::string> tls_server_name;
  std::optional<bool> insecure_skip_tls_verify;
  // --as, --as-group, --as-uid: act as another user (Impersonate-* headers).
  std::optional<std::string> impersonate_user;
  std::vector<std::string> impersonate_groups;
  std::optional<std::string> impersonate_uid;
};

// The parts of the process environment loading depends on (injected for tests).
struct Environment {
  std::optional<std::string> kubeconfig;  // $KUBECONFIG
  std::string home;                       // $HOME
  static Environment from_process();
};

// Everything needed to talk to one API server.
struct RestConfig {
  std::string server;
  std::string ca_file;
  std::string ca_data;  // PEM, decoded
  std::string cert_file;
  std::string cert_data;
  std::string key_file;
  std::string key_data;
  std::string tls_server_name;
  bool insecure_skip_tls_verify = false;
  std::string proxy_url;  // the cluster's proxy-url ("" when unset; see net/client/proxy.hpp)
  std::string token;
  std::string token_file;
  std::string username;
  std::string password;
  std::optional<ExecConfig> exec;
  std::optional<AuthProvider> auth_provider;
  // Impersonation: the user's `as`, `as-groups` and `as-uid`, or the flags.
  std::string impersonate_user;
  std::vector<std::string> impersonate_groups;
  std::string impersonate_uid;
  std::string namespace_name = "default";
  bool namespace_from_flag = false;
  std::string context_name;
  std::vector<std::string> files;  // the kubeconfig files read
};

// A merged kubeconfig document (clusters/users/contexts as JSON, names unique).
struct Merged {
  nlohmann::json clusters = nlohmann::json::object();  // name -> cluster (paths made absolute)
  nlohmann::json users = nlohmann::json::object();
  nlohmann::json contexts = nlohmann::json::object();
  std::string current_context;
  std::vector<std::string> files;
  std::map<std::string, std::string> user_files;  // user name -> the file that defines it
};

// Parses one kubeconfig text; relative paths are resolved against base_dir.
Result<Merged> parse(std::string_view yaml, const std::string& base_dir, const std::string& file_name);
// Adds `next` under `into`: names already present and a set current-context win.
void merge(Merged& into, const Merged& next);

Result<Merged> load_files(const Overrides& overrides, const Environment& env);
Result<RestConfig> resolve(const Merged& merged, const Overrides& overrides);
Result<RestConfig> load(const Overrides& overrides, const Environment& env);

// Runs the exec plugin and returns the credential it printed.
struct ExecCredential {
  std::string token;
  std::string client_certificate_data;
  std::string client_key_data;
};
// The plugin reads the terminal only when interactive (its stdin is /dev/null otherwise);
// interactiveMode Always without a terminal on stdin is an error, as in client-go.
Result<ExecCredential> run_exec_plugin(const ExecConfig& exec, const RestConfig& cluster);
// Whether a plugin with this mode runs interactively given a terminal on stdin or not.
Result<bool> exec_interactive(const ExecConfig& exec, bool stdin_is_terminal);
// Parses the ExecCredential JSON a plugin printed (checked against the requested apiVersion).
Result<ExecCredential> parse_exec_output(std::string_view output, const ExecConfig& exec);

// Rewrites one kubeconfig file through `change` (the document as JSON; a new file starts as an
// empty Config): written to a temporary file with mode 0600, then renamed over it.
Result<void> update_file(const std::string& file, const std::function<void(nlohmann::json&)>& change);

Result<std::string> base64_decode(std::string_view text);
std::string base64_encode(std::string_view bytes);

}  // namespace kw::kubeconfig
