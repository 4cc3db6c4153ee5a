#pragma once
// The Kubernetes side of the client: kubeconfig + flags -> an authenticated HTTP client,
// API paths for a kind, and the connection flags shared by get and watch.
#include "cli/cli_fwd.hpp"

#include <memory>
#include <set>
#include <string>

#include "cli/print/printers.hpp"
#include "core/kubeconfig/kubeconfig.hpp"
#include "core/net/client/client.hpp"

namespace kw::cli {

struct ConnectionFlags {
  kubeconfig::Overrides overrides;
  std::string transport = "auto";
  std::string encoding = "auto";
  // kubectl's --request-timeout: whole seconds ("30") or a Go duration ("1m30s"); "0" = no limit.
  std::string request_timeout = "0";
};

// `kubeconfig_user` false leaves --user out, for commands whose own --user names a subject
// (create rolebinding), as kubectl's local flag shadows the global one.
void add_connection_flags(CLI::App& command, ConnectionFlags& flags, bool kubeconfig_user = true);

class ApiClient {
 public:
  static Result<std::unique_ptr<ApiClient>> create(const ConnectionFlags& flags);
  // Another client to the same server (for a second concurrent stream).
  Result<std::unique_ptr<ApiClient>> clone() const;

  const kubeconfig::RestConfig& config() const { return m_config; }
  net::client::Transport transport() const { return m_client->config().transport; }

  Result<net::client::Response> get(const std::string& target, const std::string& accept);
  // Any method with an optional body (POST/PUT/PATCH/DELETE for the write verbs).
  Result<net::client::Response> send(const std::string& method, const std::string& target, const std::string& accept,
                                     const std::string& content_type = {}, std::string body = {});
  Result<net::client::StreamEnd> stream(const std::string& target, const std::string& accept,
                                        net::client::StreamHandler& handler);
  void cancel() { m_client->cancel(); }
  bool cancelled() const { return m_client->cancelled(); }

 private:
  ApiClient() = default;
  net::client::Headers headers(const std::string& accept) const;
  // The server's warnings, each distinct one once per process run, as kubectl prints them.
  void print_warnings(const net::client::ResponseHead& head);

  kubeconfig::RestConfig m_config;
  net::client::ClientConfig m_client_config;
  std::string m_exec_token;  // from an exec plugin or an auth-provider: it wins over the kubeconfig token
  std::unique_ptr<net::client::Client> m_client;
  std::set<std::string> m_warned;
};

// "/api/v1/namespaces/ns/pods" or "/apis/apps/v1/deployments" (namespace "" = all).
std::string collection_path(const KindInfo& kind, bool namespaced, const std::string& namespace_name);
std::string url_escape(std::string_view text);
// The message of an error response: its Status message when the body is one.
std::string error_message(const net::client::Response& response);

}  // namespace kw::cli
