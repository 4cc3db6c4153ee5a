#include "cli/client/api.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>
#include <vector>

#include "core/kubeconfig/auth_provider.hpp"
#include "core/net/client/proxy.hpp"
#include "core/util/go_time.hpp"
#include "core/util/text.hpp"

namespace kw::cli {

void add_connection_flags(CLI::App& command, ConnectionFlags& flags, bool kubeconfig_user) {
  auto& o = flags.overrides;
  command.add_option("--kubeconfig", o.kubeconfig, "Path to the kubeconfig file (default: $KUBECONFIG, ~/.kube/config)");
  command.add_option("--context", o.context, "The kubeconfig context to use");
  command.add_option("--cluster", o.cluster, "The kubeconfig cluster to use");
  if (kubeconfig_user) command.add_option("--user", o.user, "The kubeconfig user to use");
  command.add_option("-n,--namespace", o.namespace_name, "The namespace scope for this request");
  command.add_option("-s,--server", o.server, "The address and port of the Kubernetes API server");
  command.add_option("--token", o.token, "Bearer token for authentication to the API server");
  command.add_option("--certificate-authority", o.certificate_authority, "Path to a cert file for the certificate authority");
  command.add_option("--client-certificate", o.client_certificate, "Path to a client certificate file for TLS");
  command.add_option("--client-key", o.client_key, "Path to a client key file for TLS");
  command.add_option("--tls-server-name", o.tls_server_name, "Server name to use for server certificate validation");
  command.add_option("--as", o.impersonate_user, "Username to impersonate for the operation (a user or a service account)");
  command.add_option("--as-group", o.impersonate_groups, "Group to impersonate for the operation (repeatable)");
  command.add_option("--as-uid", o.impersonate_uid, "UID to impersonate for the operation");
  // Set only when given (=false included), so the kubeconfig's insecure-skip-tls-verify
  // applies otherwise: a flag bound to an optional would always be set.
  command.add_flag_function(
      "--insecure-skip-tls-verify", [&o](std::int64_t count) { o.insecure_skip_tls_verify = count > 0; },
      "Do not check the server's certificate (insecure)");
  command.add_option("--transport", flags.transport, "auto|h2|http1|websocket (websocket applies to watches)")
      ->check(CLI::IsMember({"auto", "h2", "http1", "websocket"}));
  command.add_option("--encoding", flags.encoding, "Wire encoding: auto|json|yaml|protobuf (auto = protobuf for built-in kinds, JSON for tables and custom resources)")
      ->check(CLI::IsMember({"auto", "json", "yaml", "protobuf"}));
  command.add_option("--request-timeout", flags.request_timeout,
                     "How long to wait for a single (non-watch) request: seconds, or a duration such as 1s, 2m or "
                     "3h; 0 = no limit");
}

namespace {

// The limit --request-timeout sets, as client-go reads it: a bare integer is seconds.
Result<std::chrono::nanoseconds> request_timeout_of(const std::string& text) {
  const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
  if (digits && text.size() <= 9) return std::chrono::seconds(std::stoll(text));
  if (!digits)
    if (auto nanos = util::parse_go_duration(text)) return std::chrono::nanoseconds(std::max<std::int64_t>(*nanos, 0));
  return fail("Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a "
              "corresponding time unit (e.g. 1s | 2m | 3h)");
}

}  // namespace

Result<std::unique_ptr<ApiClient>> ApiClient::create(const ConnectionFlags& flags) {
  const auto timeout = request_timeout_of(flags.request_timeout);
  if (!timeout) return std::unexpected(timeout.error());
  auto config = kubeconfig::load(flags.overrides, kubeconfig::Environment::from_process());
  if (!config) return std::unexpected(config.error());
  std::unique_ptr<ApiClient> api(new ApiClient());
  api->m_config = std::move(*config);
  const auto& c = api->m_config;
  net::client::ClientConfig& cc = api->m_client_config;
  cc.url = c.server;
  cc.ca_file = c.ca_file;
  cc.ca_data = c.ca_data;
  cc.cert_file = c.cert_file;
  cc.cert_data = c.cert_data;
  cc.key_file = c.key_file;
  cc.key_data = c.key_data;
  cc.tls_server_name = c.tls_server_name;
  cc.proxy_url = net::client::choose_proxy(c.server, c.proxy_url, net::client::ProxyEnvironment::from_process());
  cc.insecure_skip_tls_verify = c.insecure_skip_tls_verify;
  cc.transport = net::client::parse_transport(flags.transport).value_or(net::client::Transport::Auto);
  cc.request_timeout = std::chrono::duration_cast<decltype(cc.request_timeout)>(*timeout);
  cc.user_agent = "kw/0.1";
  if (c.exec) {
    auto credential = kubeconfig::run_exec_plugin(*c.exec, c);
    if (!credential) return std::unexpected(credential.error());
    api->m_exec_token = credential->token;
    if (!credential->client_certificate_data.empty()) {
      cc.cert_data = credential->client_certificate_data;
      cc.key_data = credential->client_key_data;
      cc.cert_file.clear();
      cc.key_file.clear();
    }
  }
  if (c.auth_provider) {
    auto provider = *c.auth_provider;
    auto token = kubeconfig::auth_provider_token(provider);
    if (!token) return std::unexpected(token.error());
    api->m_exec_token = std::move(*token);
  }
  auto client = net::client::Client::create(cc);
  if (!client) return std::unexpected(client.error());
  api->m_client = std::move(*client);
  return api;
}

Result<std::unique_ptr<ApiClient>> ApiClient::clone() const {
  std::unique_ptr<ApiClient> api(new ApiClient());
  api->m_config = m_config;
  api->m_client_config = m_client_config;
  api->m_exec_token = m_exec_token;
  auto client = net::client::Client::create(m_client_config);
  if (!client) return std::unexpected(client.error());
  api->m_client = std::move(*client);
  return api;
}

net::client::Headers ApiClient::headers(const std::string& accept) const {
  net::client::Headers out{{"Accept", accept}};
  std::string token = !m_exec_token.empty() ? m_exec_token : m_config.token;
  if (token.empty() && !m_config.token_file.empty()) {
    std::ifstream in(m_config.token_file);
    std::ostringstream text;
    text << in.rdbuf();
    token = text.str();
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) token.pop_back();
  }
  if (!token.empty()) out.emplace_back("Authorization", "Bearer " + token);
  else if (!m_config.username.empty())
    out.emplace_back("Authorization", "Basic " + kubeconfig::base64_encode(m_config.username + ":" + m_config.password));
  if (!m_config.impersonate_user.empty()) out.emplace_back("Impersonate-User", m_config.impersonate_user);
  for (const auto& group : m_config.impersonate_groups) out.emplace_back("Impersonate-Group", group);
  if (!m_config.impersonate_uid.empty()) out.emplace_back("Impersonate-Uid", m_config.impersonate_uid);
  return out;
}

namespace {

// The texts of the code-299 warnings in one Warning header (RFC 7234: `299 AGENT "TEXT"
// [DATE]`, several separated by commas), which kubectl prints as "Warning: TEXT".
std::vector<std::string> warning_texts(std::string_view header) {
  std::vector<std::string> out;
  std::size_t i = 0;
  auto skip_spaces = [&] {
    while (i < header.size() && (header[i] == ' ' || header[i] == '\t')) ++i;
  };
  auto quoted = [&](std::string* text) {
    if (i >= header.size() || header[i] != '"') return false;
    for (++i; i < header.size() && header[i] != '"'; ++i) {
      if (header[i] == '\\' && i + 1 < header.size()) ++i;
      if (text) *text += header[i];
    }
    if (i >= header.size()) return false;
    ++i;
    return true;
  };
  while (i < header.size()) {
    skip_spaces();
    const std::size_t code_start = i;
    while (i < header.size() && std::isdigit(static_cast<unsigned char>(header[i]))) ++i;
    const std::string_view code = header.substr(code_start, i - code_start);
    skip_spaces();
    while (i < header.size() && header[i] != ' ') ++i;  // the agent
    skip_spaces();
    std::string text;
    if (code.size() != 3 || !quoted(&text)) break;
    skip_spaces();
    if (i < header.size() && header[i] == '"' && !quoted(nullptr)) break;  // a date
    skip_spaces();
    if (code == "299" && !text.empty()) out.push_back(std::move(text));
    if (i < header.size() && header[i] != ',') break;
    ++i;
  }
  return out;
}

}  // namespace

Result<net::client::Response> ApiClient::get(const std::string& target, const std::string& accept) {
  net::client::Request request{.method = "GET", .target = target, .headers = headers(accept), .body = {}, .streaming = false};
  auto response = m_client->request(request);
  if (response) print_warnings(response->head);
  return response;
}

Result<net::client::Response> ApiClient::send(const std::string& method, const std::string& target,
                                              const std::string& accept, const std::string& content_type,
                                              std::string body) {
  net::client::Headers request_headers = headers(accept);
  if (!content_type.empty()) request_headers.emplace_back("Content-Type", content_type);
  net::client::Request request{
      .method = method, .target = target, .headers = std::move(request_headers), .body = std::move(body), .streaming = false};
  auto response = m_client->request(request);
  if (response) print_warnings(response->head);
  return response;
}

void ApiClient::print_warnings(const net::client::ResponseHead& head) {
  for (const auto& [name, value] : head.headers)
    if (name == "warning")
      for (auto& text : warning_texts(value))
        if (m_warned.insert(text).second) std::cerr << "Warning: " << text << '\n';
}

Result<net::client::StreamEnd> ApiClient::stream(const std::string& target, const std::string& accept,
                                                 net::client::StreamHandler& handler) {
  net::client::Request request{.method = "GET", .target = target, .headers = headers(accept), .body = {}, .streaming = true};
  return m_client->stream(request, handler);
}

std::string url_escape(std::string_view text) { return util::percent_encode(text); }

std::string collection_path(const KindInfo& kind, bool namespaced, const std::string& namespace_name) {
  std::string path = kind.group.empty() ? "/api/" + kind.api_version : "/apis/" + kind.api_version;
  if (namespaced && !namespace_name.empty()) path += "/namespaces/" + url_escape(namespace_name);
  return path + "/" + (kind.info ? kind.info->plural : std::string());
}

std::string error_message(const net::client::Response& response) {
  auto body = nlohmann::json::parse(response.body, nullptr, false);
  if (body.is_object() && body.value("kind", "") == "Status" && body.contains("message"))
    return body.value("message", "");
  std::string text = response.body.substr(0, 200);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return "the server returned HTTP " + std::to_string(response.head.status) + (text.empty() ? "" : ": " + text);
}

}  // namespace kw::cli
