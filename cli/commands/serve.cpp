// kw serve: the Kubernetes-compatible API server.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/types.h>

#include "cli/commands/commands.hpp"
#include "core/util/fatal_signal.hpp"
#include "core/util/go_time.hpp"
#include "core/util/host.hpp"
#include "core/net/server/http_server.hpp"
#include "server/auth/authenticator.hpp"
#include "server/auth/authorizer.hpp"
#include "server/auth/kubeconfig_writer.hpp"
#include "server/auth/pki.hpp"
#include "server/auth/oidc.hpp"
#include "server/auth/rbac.hpp"
#include "server/auth/secure_file.hpp"
#include "server/auth/service_account.hpp"
#include "server/admission/plugins.hpp"
#include "server/audit/auditor.hpp"
#include "server/control/namespace_defaults.hpp"
#include "server/control/quota_status.hpp"
#include "server/control/storage_protection.hpp"
#include "server/aggregator/aggregator.hpp"
#include "server/control/node_graph_feed.hpp"
#include "server/control/local_api_services.hpp"
#include "server/control/rbac_controller.hpp"
#include "server/flowcontrol/flow_control.hpp"
#include "server/http/api_server.hpp"
#include "server/registry/registry.hpp"
#include "server/storage/compactor.hpp"
#include "server/storage/etcd3/etcd3_backend.hpp"
#include "server/storage/sqlite/sqlite_backend.hpp"
#include "server/registry/kinds/kind_spec.hpp"

// jemalloc's control interface when kw is linked with it (cli/jemalloc_conf.cpp); null with
// another allocator.
extern "C" int mallctl(const char* name, void* old_value, std::size_t* old_length, void* new_value,
                       std::size_t new_length) __attribute__((weak));

namespace kw::cli {
namespace {

struct ServeOptions {
  std::string etcd_servers;
  std::string etcd_prefix = "/registry";
  std::string etcd_cafile, etcd_certfile, etcd_keyfile;
  std::string data_dir;
  std::string bind_address = "127.0.0.1";
  int secure_port = 6443;
  int insecure_port = 0;
  int compaction_interval_seconds = 300;
  std::string tls_cert_file, tls_private_key_file, client_ca_file;
  std::string proxy_client_cert_file, proxy_client_key_file;
  std::string requestheader_client_ca_file;
  std::vector<std::string> requestheader_allowed_names, requestheader_username_headers, requestheader_group_headers,
      requestheader_extra_headers_prefix;
  std::vector<std::string> tls_sans;
  std::string token_auth_file;
  std::string authorization_mode = "AlwaysAllow";
  std::string authorization_policy_file;
  bool anonymous_auth = false;
  std::vector<std::string> service_account_issuers;
  std::string service_account_signing_key_file;  // "" = DATA/pki/sa.key, generated on first start
  std::vector<std::string> service_account_key_files;
  std::vector<std::string> api_audiences;
  std::string service_account_max_token_expiration;
  bool service_account_extend_token_expiration = true;
  std::string oidc_issuer_url, oidc_client_id, oidc_username_claim = "sub", oidc_groups_claim, oidc_groups_prefix;
  std::optional<std::string> oidc_username_prefix;
  std::vector<std::string> oidc_required_claims;  // key=value
  std::vector<std::string> oidc_signing_algs;
  std::string oidc_ca_file;
  int io_threads = 2;
  int worker_threads = 16;
  int watch_dispatch_threads = 1;
  int max_requests_inflight = 400;
  int max_mutating_requests_inflight = 200;
  bool enable_priority_and_fairness = true;
  int idle_timeout_seconds = 90;
  std::string service_cluster_ip_range = registry::ServiceRanges{}.cluster_ip_range;
  std::string service_node_port_range = "30000-32767";
  std::string advertise_address;
  std::vector<std::string> controllers = {"*"};
  std::string resource_quota_sync_period = "5m0s";
  std::string root_ca_file;
  std::vector<std::string> enable_admission_plugins, disable_admission_plugins;
  std::string admission_control_config_file;
  std::int64_t default_not_ready_toleration_seconds = 300;
  std::int64_t default_unreachable_toleration_seconds = 300;
  std::string audit_policy_file;
  audit::LogOptions audit_log;
  std::string audit_log_format = "json";
  std::string audit_log_mode = "batch";
  std::string audit_log_version = "audit.k8s.io/v1";
};

// The controllers kw runs itself, by kube-controller-manager's names (all on by default).
constexpr std::string_view k_controllers[] = {"clusterrole-aggregation", "namespace",      "pv-protection",
                                              "pvc-protection",          "resourcequota",  "root-ca-cert-publisher",
                                              "serviceaccount"};

std::string known_controllers() {
  std::string known;
  for (auto name : k_controllers) known += (known.empty() ? "" : ", ") + std::string(name);
  return known;
}

// kube-controller-manager's --controllers: `name` on, `-name` off, `*` every default one.
bool controller_enabled(const std::vector<std::string>& list, std::string_view name) {
  bool all = false;
  for (const auto& entry : list) {
    if (entry == name) return true;
    if (entry.size() == name.size() + 1 && entry[0] == '-' && std::string_view(entry).substr(1) == name) return false;
    all = all || entry == "*";
  }
  return all;
}

Result<void> check_controllers(const std::vector<std::string>& list) {
  for (const auto& entry : list) {
    const std::string_view name = entry.starts_with('-') ? std::string_view(entry).substr(1) : std::string_view(entry);
    if (name != "*" && std::ranges::find(k_controllers, name) == std::end(k_controllers))
      return fail("--controllers: \"" + entry + "\" is not in the list of known controllers (" +
                  known_controllers() + ")");
  }
  return {};
}

// kube-apiserver's default --advertise-address: the bind address when it names one host
// address, else the first IPv4 address of an interface that is up and not loopback; "" when
// there is none (the `kubernetes` Service then has no endpoints).
std::string default_advertise_address(const std::string& bind_address) {
  if (bind_address != "0.0.0.0" && bind_address != "::" && !util::is_loopback_host(bind_address))
    return bind_address;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return "";
  std::unique_ptr<ifaddrs, decltype(&::freeifaddrs)> owned(list, &::freeifaddrs);
  for (auto* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET) continue;
    if ((entry->ifa_flags & IFF_UP) == 0 || (entry->ifa_flags & IFF_LOOPBACK) != 0) continue;
    char text[INET_ADDRSTRLEN] = {};
    const auto* address = reinterpret_cast<const sockaddr_in*>(entry->ifa_addr);
    if (::inet_ntop(AF_INET, &address->sin_addr, text, sizeof text) != nullptr) return text;
  }
  return "";
}

// Limits every listener shares: in-flight requests, idle connections.
void apply_limits(const ServeOptions& o, http::ApiServer& api, net::ServerConfig& config) {
  config.admission = api.admission(static_cast<std::size_t>(std::max(0, o.max_requests_inflight)),
                                   static_cast<std::size_t>(std::max(0, o.max_mutating_requests_inflight)));
  config.idle_timeout = std::chrono::seconds(std::max(1, o.idle_timeout_seconds));
  config.admit_body = [&api](const net::Request& head) { return api.admits_body(head); };
}

std::string default_data_dir() {
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) return std::string(xdg) + "/kw";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.local/share/kw";
  return "./kw-data";
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty()) out.push_back(part);
  return out;
}

storage::Result<std::unique_ptr<storage::Backend>> open_backend(const ServeOptions& o) {
  if (!o.etcd_servers.empty()) {
    storage::Etcd3Options etcd;
    etcd.endpoints = split_commas(o.etcd_servers);
    etcd.ca_file = o.etcd_cafile;
    etcd.cert_file = o.etcd_certfile;
    etcd.key_file = o.etcd_keyfile;
    return storage::open_etcd3_backend(etcd);
  }
  storage::SqliteOptions sqlite;
  sqlite.data_dir = o.data_dir;
  return storage::open_sqlite_backend(sqlite);
}

// "90s", "30m", "24h" or a number of seconds: kube's Go duration flags in the units they take.
std::optional<std::chrono::seconds> parse_duration(const std::string& text) {
  if (text.empty()) return std::chrono::seconds(0);
  std::size_t used = 0;
  long long value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const std::string unit = text.substr(used);
  if (value < 0) return std::nullopt;
  if (unit.empty() || unit == "s") return std::chrono::seconds(value);
  if (unit == "m") return std::chrono::seconds(value * 60);
  if (unit == "h") return std::chrono::seconds(value * 3600);
  return std::nullopt;
}

// The ServiceAccount token issuer: the flags' keys, or a signing key of its own in the data
// dir, generated on first start so that tokens work out of the box: ECDSA P-256 (ES256), as
// kw's serving certificates are, made at once where an RSA key's prime search can hold up the
// first start for a second.
Result<std::shared_ptr<auth::ServiceAccountTokens>> load_service_accounts(const ServeOptions& o) {
  auth::ServiceAccountConfig config;
  config.issuers = o.service_account_issuers;
  if (config.issuers.empty()) config.issuers.push_back("https://kubernetes.default.svc.cluster.local");
  config.signing_key_file = o.service_account_signing_key_file;
  if (config.signing_key_file.empty()) {
    const std::string dir = o.data_dir + "/pki";
    config.signing_key_file = dir + "/sa.key";
    if (!std::filesystem::exists(config.signing_key_file)) {
      if (auto made = auth::ensure_private_dir(dir, 0700); !made) return std::unexpected(made.error());
      if (auto generated = auth::SigningKey::generate(config.signing_key_file, auth::SigningKey::Kind::ecdsa_p256);
          !generated)
        return std::unexpected(generated.error());
    }
  }
  config.key_files = o.service_account_key_files;
  if (!config.key_files.empty() && std::ranges::find(config.key_files, config.signing_key_file) == config.key_files.end() &&
      o.service_account_signing_key_file.empty())
    config.key_files.push_back(config.signing_key_file);
  for (const auto& audiences : o.api_audiences)
    for (const auto& one : split_commas(audiences)) config.api_audiences.push_back(one);
  const auto max = parse_duration(o.service_account_max_token_expiration);
  if (!max) return fail("--service-account-max-token-expiration: \"" + o.service_account_max_token_expiration +
                        "\" is not a duration (such as 3600, 90m or 24h)");
  config.max_expiration = *max;
  config.extend_expiration = o.service_account_extend_token_expiration;
  auto tokens = auth::ServiceAccountTokens::load(config);
  if (!tokens) return fail("service account tokens: " + tokens.error().message);
  return *tokens;
}

// What ServiceAccount token checks read: the cached object, else storage (a Pod created a
// moment ago may not be in the cache yet).
auth::ObjectLookup stored_object_lookup(registry::Registry& registry) {
  return [&registry](std::string_view plural, const std::string& ns,
                     const std::string& name) -> std::optional<nlohmann::json> {
    const auto table = registry.resources();
    const auto* info = table->find_plural("", "v1", std::string(plural));
    if (info == nullptr) return std::nullopt;
    auto found = registry.get(*info, ns, name, "0");
    if (!found && found.error().code == 404) found = registry.get(*info, ns, name, "");
    if (!found) return std::nullopt;
    return std::move(*found);
  };
}

// The audit log: --audit-policy-file says what is recorded, --audit-log-path where. Null when
// either is missing (kube-apiserver records nothing then either).
Result<std::unique_ptr<audit::Auditor>> start_audit(const ServeOptions& o) {
  if (o.audit_log.path.empty()) {
    if (!o.audit_policy_file.empty())
      std::cerr << "kw serve: --audit-policy-file without --audit-log-path: no audit events are written\n";
    return nullptr;
  }
  if (o.audit_policy_file.empty()) {
    std::cerr << "kw serve: no audit policy file provided, no events will be recorded for log backend\n";
    return nullptr;
  }
  if (o.audit_log_version != "audit.k8s.io/v1")
    return fail("--audit-log-version: " + o.audit_log_version + " is not supported (audit.k8s.io/v1)");
  auto options = o.audit_log;
  auto mode = audit::parse_log_mode(o.audit_log_mode);
  if (!mode) return std::unexpected(mode.error());
  options.mode = *mode;
  options.legacy_format = o.audit_log_format == "legacy";
  if (auto checked = audit::check_log_options(options, o.audit_log_format); !checked)
    return std::unexpected(checked.error());
  auto policy = audit::Policy::load(o.audit_policy_file);
  if (!policy) return fail("loading audit policy file: " + policy.error().message);
  auto log = audit::LogBackend::open(std::move(options));
  if (!log) return fail("audit log: " + log.error().message);
  return std::make_unique<audit::Auditor>(std::move(*policy), std::move(*log));
}

// The stack size of threads started after this call (pthread's default attributes).
Result<void> with_deep_object_stacks() {
  constexpr std::size_t k_stack_bytes = 64 * 1024 * 1024;
  pthread_attr_t attributes;
  if (pthread_attr_init(&attributes) != 0) return fail("cannot read the default thread attributes");
  const int set = pthread_attr_setstacksize(&attributes, k_stack_bytes);
  const int made_default = set == 0 ? pthread_setattr_default_np(&attributes) : set;
  pthread_attr_destroy(&attributes);
  if (made_default != 0) return fail("cannot set a 64 MiB default thread stack: " + std::string(std::strerror(made_default)));
  return {};
}

// Freed pages go back to the kernel within a second instead of over jemalloc's 10 s decay, so
// the pages of a burst of large requests (refused 3 MiB bodies, deep documents, alias bombs) do
// not stay resident (with one arena: cli/jemalloc_conf.cpp). Returning them at once (a decay of
// 0) cost the simulated 1,000-node cluster 12% more server CPU and twice its write latency (page
// faults and madvise calls on every large free); a second costs about 3%.
void return_freed_pages_soon() {
  if (mallctl == nullptr) return;
  const std::pair<const char*, ssize_t> decays[] = {{"dirty_decay_ms", 1000}, {"muzzy_decay_ms", 0}};
  for (auto [field, value] : decays) {  // arenas made later
    const auto name = std::string("arenas.") + field;
    mallctl(name.c_str(), nullptr, nullptr, &value, sizeof value);
  }
  unsigned arenas = 0;
  std::size_t length = sizeof arenas;
  if (mallctl("arenas.narenas", &arenas, &length, nullptr, 0) != 0) return;
  for (unsigned i = 0; i < arenas; ++i)  // arenas made already; one not yet in use refuses
    for (auto [field, value] : decays) {
      const auto name = "arena." + std::to_string(i) + "." + field;
      mallctl(name.c_str(), nullptr, nullptr, &value, sizeof value);
    }
}

// Blocks SIGINT/SIGTERM in every thread (started after this) and waits for one.
int wait_for_signal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  int signal = 0;
  sigwait(&set, &signal);
  return signal;
}

// Every value of a repeatable, comma-separated flag (kube's string slices).
std::vector<std::string> flag_values(const std::vector<std::string>& given) {
  std::vector<std::string> out;
  for (const auto& one : given)
    for (auto& value : split_commas(one)) out.push_back(std::move(value));
  return out;
}

// The front-proxy authentication of --requestheader-client-ca-file; none without it.
std::optional<auth::RequestHeaderConfig> request_header_config(const ServeOptions& o) {
  if (o.requestheader_client_ca_file.empty()) return std::nullopt;
  return auth::RequestHeaderConfig{.allowed_names = flag_values(o.requestheader_allowed_names),
                                   .username_headers = flag_values(o.requestheader_username_headers),
                                   .group_headers = flag_values(o.requestheader_group_headers),
                                   .extra_headers_prefixes = flag_values(o.requestheader_extra_headers_prefix)};
}

Result<std::string> read_pem(const std::string& path, const char* what) {
  std::ifstream in(path);
  if (!in) return fail("cannot read the " + std::string(what) + " " + path + " for extension-apiserver-authentication");
  std::stringstream pem;
  pem << in.rdbuf();
  return pem.str();
}

// A string slice as kube writes it into the ConfigMap: a JSON array, [] when the flag was not given.
std::string json_string_slice(const std::vector<std::string>& values) {
  return nlohmann::json(values).dump();
}

// kube-system/extension-apiserver-authentication: the CA that signs client certificates and the
// front-proxy settings, for components (kube-controller-manager, kube-scheduler, aggregated
// servers) that authenticate their own clients the way this server does.
Result<void> publish_authentication(const ServeOptions& o, const std::string& client_ca, registry::Registry& registry) {
  auto client_pem = read_pem(client_ca, "client CA");
  if (!client_pem) return std::unexpected(client_pem.error());
  nlohmann::json data = {{"client-ca-file", *client_pem}};
  if (auto proxy = request_header_config(o)) {
    auto proxy_pem = read_pem(o.requestheader_client_ca_file, "request-header CA");
    if (!proxy_pem) return std::unexpected(proxy_pem.error());
    data["requestheader-client-ca-file"] = *proxy_pem;
    data["requestheader-allowed-names"] = json_string_slice(proxy->allowed_names);
    data["requestheader-username-headers"] = json_string_slice(proxy->username_headers);
    data["requestheader-group-headers"] = json_string_slice(proxy->group_headers);
    data["requestheader-extra-headers-prefix"] = json_string_slice(proxy->extra_headers_prefixes);
  }
  const auto* configmaps = registry.resources()->find_plural("", "v1", "configmaps");
  if (configmaps == nullptr) return {};
  const nlohmann::json object = {{"apiVersion", "v1"},
                                 {"kind", "ConfigMap"},
                                 {"metadata", {{"name", "extension-apiserver-authentication"}, {"namespace", "kube-system"}}},
                                 {"data", std::move(data)}};
  if (auto kept = registry.reconcile_owned(*configmaps, "kube-system", object, {"data"}); !kept)
    return fail("cannot write kube-system/extension-apiserver-authentication: " + kept.error().message);
  return {};
}

// The TLS listener: the given serving certificate, or one from a CA generated in the data
// dir on first start; writes DIR/admin.kubeconfig for the generated admin credential and
// publishes the client CA it verifies with.
Result<std::unique_ptr<net::HttpServer>> serve_secure(const ServeOptions& o, const auth::PkiFiles& pki,
                                                      http::ApiServer& api, registry::Registry& registry,
                                                      net::Handler handler) {
  net::ServerConfig config;
  apply_limits(o, api, config);
  config.address = o.bind_address;
  config.port = static_cast<std::uint16_t>(o.secure_port);
  config.io_threads = o.io_threads;
  config.worker_threads = o.worker_threads;
  net::TlsConfig tls;
  tls.cert_file = o.tls_cert_file.empty() ? pki.serving_cert : o.tls_cert_file;
  tls.key_file = o.tls_private_key_file.empty() ? pki.serving_key : o.tls_private_key_file;
  tls.client_ca_file = o.client_ca_file.empty() ? pki.ca_cert : o.client_ca_file;
  tls.request_header_ca_file = o.requestheader_client_ca_file;
  config.tls = tls;
  auto server = net::start_http_server(config, std::move(handler));
  if (!server) return fail("cannot listen on " + o.bind_address + ":" + std::to_string(o.secure_port) + ": " +
                           server.error().message);
  const std::string host = o.bind_address == "0.0.0.0" || o.bind_address == "::" ? "127.0.0.1" : o.bind_address;
  const std::string url = "https://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
                          std::to_string((*server)->port());
  const std::string kubeconfig = o.data_dir + "/admin.kubeconfig";
  if (auto written = auth::write_admin_kubeconfig(kubeconfig, url, pki); !written)
    return std::unexpected(written.error());
  if (auto published = publish_authentication(o, tls.client_ca_file, registry); !published)
    std::cerr << "kw serve: " << published.error().message << "\n";
  std::cout << "kw serve: serving h2 and HTTP/1.1 (TLS) on " << url << "\n"
            << "  admin kubeconfig: " << kubeconfig << "\n"
            << "  try: kubectl --kubeconfig=" << kubeconfig << " get pods -w\n"
            << "   or: kw get pods -w --kubeconfig=" << kubeconfig << "\n";
  return server;
}

// The generated CA and certificates in the data dir (made on first start) for the secure port.
Result<auth::PkiFiles> serving_pki(const ServeOptions& o) {
  std::vector<std::string> sans = o.tls_sans;
  if (o.bind_address != "0.0.0.0" && o.bind_address != "::") sans.push_back(o.bind_address);
  return auth::ensure_pki(o.data_dir + "/pki", sans);
}

// What clients in pods verify the server with (kube-root-ca.crt): --root-ca-file, else the CA
// of the generated serving certificate, else the given serving certificate itself.
Result<std::string> root_ca(const ServeOptions& o, const auth::PkiFiles* pki) {
  std::string file = o.root_ca_file;
  if (file.empty() && pki != nullptr) file = o.tls_cert_file.empty() ? pki->ca_cert : o.tls_cert_file;
  if (file.empty()) return std::string();
  std::ifstream in(file, std::ios::binary);
  std::stringstream bytes;
  if (!(bytes << in.rdbuf())) return fail("cannot read the root CA " + file);
  return bytes.str();
}

int run_serve(const ServeOptions& o) {
  // A crash says where it happened before the process dies of it.
  const auto crash_report = util::report_fatal_signals();
  // Signals are taken by sigwait on the main thread only.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  // The allocator asks for transparent huge pages so that short client commands start with
  // few page faults (cli/jemalloc_conf.cpp). A long-lived server gains nothing from that and
  // would keep a mostly empty 2 MiB page per allocator arena (idle RSS 15 -> 47 MiB), so the
  // server turns huge pages off for the rest of its life.
  ::prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
  return_freed_pages_soon();
  // Objects may nest 10,000 levels deep (kube-apiserver's limit), and the walks over them
  // (decoding, merging, field sets, encoding) recurse per level: every thread started from here
  // on gets a stack that holds such a walk. Only the pages a walk touches are ever committed.
  if (auto stack = with_deep_object_stacks(); !stack) std::cerr << "kw serve: " << stack.error().message << "\n";
  if (auto known = check_controllers(o.controllers); !known) {
    std::cerr << "kw serve: " << known.error().message << "\n";
    return 1;
  }

  // 1. Who may do what: client certificates, token file and ServiceAccount tokens, then the
  //    authorization mode.
  auto service_accounts = load_service_accounts(o);
  if (!service_accounts) {
    std::cerr << "kw serve: " << service_accounts.error().message << "\n";
    return 1;
  }
  std::shared_ptr<auth::OidcAuthenticator> oidc;
  if (!o.oidc_issuer_url.empty()) {
    auth::OidcConfig config{.issuer_url = o.oidc_issuer_url,
                            .client_id = o.oidc_client_id,
                            .username_claim = o.oidc_username_claim,
                            .username_prefix = o.oidc_username_prefix,
                            .groups_claim = o.oidc_groups_claim,
                            .groups_prefix = o.oidc_groups_prefix,
                            .required_claims = {},
                            .signing_algs = {"RS256"},
                            .ca_file = o.oidc_ca_file};
    for (const auto& pair : o.oidc_required_claims) {
      const auto eq = pair.find('=');
      if (eq == std::string::npos) {
        std::cerr << "kw serve: --oidc-required-claim: \"" << pair << "\" is not key=value\n";
        return 1;
      }
      config.required_claims.emplace_back(pair.substr(0, eq), pair.substr(eq + 1));
    }
    if (!o.oidc_signing_algs.empty()) {
      config.signing_algs.clear();
      for (const auto& algs : o.oidc_signing_algs)
        for (const auto& alg : split_commas(algs)) config.signing_algs.push_back(alg);
    }
    auto started = auth::OidcAuthenticator::start(std::move(config));
    if (!started) {
      std::cerr << "kw serve: " << started.error().message << "\n";
      return 1;
    }
    oidc = std::move(*started);
  }
  auto authenticator = auth::Authenticator::load({.token_auth_file = o.token_auth_file,
                                                  .client_certs = true,
                                                  .anonymous = o.anonymous_auth,
                                                  .request_header = request_header_config(o),
                                                  .service_accounts = *service_accounts,
                                                  .oidc = oidc});
  if (!authenticator) {
    std::cerr << "kw serve: " << authenticator.error().message << "\n";
    return 1;
  }
  // RBAC reads the policy the RbacController keeps (started with the registry, below).
  auto rbac_policy = std::make_shared<auth::RbacPolicy>();
  // Node reads the graph NodeGraphFeed keeps (also started with the registry).
  auto node_graph = std::make_shared<auth::NodeGraph>();
  auto authorizer = auth::Authorizer::load({.mode = o.authorization_mode,
                                            .policy_file = o.authorization_policy_file,
                                            .rbac = rbac_policy,
                                            .node_graph = node_graph,
                                            .node_rules = control::bootstrap_cluster_role_rules("system:node")});
  if (!authorizer) {
    std::cerr << "kw serve: " << authorizer.error().message << "\n";
    return 1;
  }
  std::optional<auth::PkiFiles> pki;
  if (o.secure_port > 0) {
    auto made = serving_pki(o);
    if (!made) {
      std::cerr << "kw serve: " << made.error().message << "\n";
      return 1;
    }
    pki = std::move(*made);
  }
  // 2. Storage: etcd when --etcd is given, else the embedded store in the data dir.
  auto backend = open_backend(o);
  if (!backend) {
    std::cerr << "kw serve: cannot open storage: " << backend.error().message << "\n";
    return 1;
  }
  if (auto healthy = (*backend)->health(); !healthy) {
    std::cerr << "kw serve: storage is not healthy: " << healthy.error().message << "\n";
    return 1;
  }
  // 3. Registry and watch caches (one per resource), default namespaces.
  registry::RegistryOptions registry_options;
  registry_options.prefix = o.etcd_servers.empty() ? "/registry" : o.etcd_prefix;
  registry_options.watch_dispatch_threads = o.watch_dispatch_threads;  // 1..64, checked by CLI11
  registry_options.services.cluster_ip_range = o.service_cluster_ip_range;
  const auto node_ports = registry::parse_port_range(o.service_node_port_range);
  if (!node_ports) {
    std::cerr << "kw serve: --service-node-port-range: \"" << o.service_node_port_range
              << "\" is not a port range (FIRST-LAST or FIRST+COUNT)\n";
    return 1;
  }
  registry_options.services.node_port_first = node_ports->first;
  registry_options.services.node_port_last = node_ports->second;
  registry_options.kubernetes_service_port = o.secure_port;
  registry_options.namespace_controller = controller_enabled(o.controllers, "namespace");
  registry_options.advertise_address =
      o.advertise_address.empty() ? default_advertise_address(o.bind_address) : o.advertise_address;
  registry::Registry registry(**backend, kinds::builtin_table(), registry_options);
  if (auto started = registry.start(); !started) {
    std::cerr << "kw serve: cannot start the watch caches: " << started.error().message << "\n";
    return 1;
  }
  // RBAC's escalation check on roles and bindings, which Kubernetes makes before admission,
  // then the built-in admission plugins.
  registry.add_admission_check(control::rbac_escalation_check(rbac_policy, *authorizer));
  admission::PluginConfigurations plugin_configurations;
  if (!o.admission_control_config_file.empty()) {
    auto read = admission::read_admission_configuration(o.admission_control_config_file);
    if (!read) {
      std::cerr << "kw serve: " << read.error().message << "\n";
      return 1;
    }
    plugin_configurations = std::move(*read);
  }
  auto plugins = admission::install(registry, {.enable = o.enable_admission_plugins,
                                               .disable = o.disable_admission_plugins,
                                               .toleration_seconds = {.not_ready = o.default_not_ready_toleration_seconds,
                                                                      .unreachable = o.default_unreachable_toleration_seconds},
                                               .authorizer = &*authorizer,
                                               .configurations = std::move(plugin_configurations)});
  if (!plugins) {
    std::cerr << "kw serve: " << plugins.error().message << "\n";
    return 1;
  }
  for (const auto& name : plugins->unavailable)
    std::cerr << "kw serve: admission plugin " << name << " is not available in kw; it does not run\n";
  // The server's own objects go through the whole admission chain, as kube-apiserver's
  // post-start hooks write them; the RBAC bootstrap policy needs its namespaces.
  if (auto written = registry.bootstrap(); !written) {
    std::cerr << "kw serve: cannot write the bootstrap objects: " << written.error().message << "\n";
    return 1;
  }
  // The bootstrap RBAC policy, the policy RBAC reads and ClusterRole aggregation.
  auto rbac = control::RbacController::start(registry, rbac_policy,
                                             controller_enabled(o.controllers, "clusterrole-aggregation"));
  if (!rbac) {
    std::cerr << "kw serve: " << rbac.error().message << "\n";
    return 1;
  }
  std::unique_ptr<control::NodeGraphFeed> node_graph_feed;
  if (authorizer->uses("Node")) {
    auto fed = control::NodeGraphFeed::start(registry, node_graph);
    if (!fed) {
      std::cerr << "kw serve: " << fed.error().message << "\n";
      return 1;
    }
    node_graph_feed = std::move(*fed);
  }
  auto ca_for_pods = root_ca(o, pki ? &*pki : nullptr);
  if (!ca_for_pods) {
    std::cerr << "kw serve: " << ca_for_pods.error().message << "\n";
    return 1;
  }
  auto namespace_defaults = control::NamespaceDefaults::start(
      registry, {.service_accounts = controller_enabled(o.controllers, "serviceaccount"),
                 .root_ca = controller_enabled(o.controllers, "root-ca-cert-publisher") ? *ca_for_pods : ""});
  if (!namespace_defaults) {
    std::cerr << "kw serve: " << namespace_defaults.error().message << "\n";
    return 1;
  }
  auto storage_protection = control::StorageProtection::start(
      registry, {.claims = controller_enabled(o.controllers, "pvc-protection"),
                 .volumes = controller_enabled(o.controllers, "pv-protection")});
  if (!storage_protection) {
    std::cerr << "kw serve: " << storage_protection.error().message << "\n";
    return 1;
  }
  std::unique_ptr<control::QuotaStatus> quota_status;
  if (controller_enabled(o.controllers, "resourcequota")) {
    const auto period = util::parse_go_duration(o.resource_quota_sync_period);
    if (!period || *period <= 0) {
      std::cerr << "kw serve: --resource-quota-sync-period: \"" << o.resource_quota_sync_period
                << "\" is not a positive duration (such as 5m0s or 30s)\n";
      return 1;
    }
    auto started = control::QuotaStatus::start(
        registry, {.sync_period = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::nanoseconds(*period))});
    if (!started) {
      std::cerr << "kw serve: " << started.error().message << "\n";
      return 1;
    }
    quota_status = std::move(*started);
  }
  // 4. The audit log, then the listeners: TLS on the secure port (authenticated), cleartext on
  //    loopback (trusted). The log outlives them, so that every answer's events are written.
  auto auditor = start_audit(o);
  if (!auditor) {
    std::cerr << "kw serve: " << auditor.error().message << "\n";
    return 1;
  }
  std::vector<std::unique_ptr<net::HttpServer>> servers;
  (*service_accounts)->set_lookup(stored_object_lookup(registry));
  // The APIServices of what kw serves itself, and the availability of local ones.
  auto local_api_services = control::LocalApiServices::start(registry);
  if (!local_api_services) {
    std::cerr << "kw serve: " << local_api_services.error().message << "\n";
    return 1;
  }
  // APIServices served by other API servers (kube-aggregator).
  auto aggregator = aggregator::Aggregator::start(
      registry, {.client_cert_file = o.proxy_client_cert_file, .client_key_file = o.proxy_client_key_file});
  if (!aggregator) {
    std::cerr << "kw serve: " << aggregator.error().message << "\n";
    return 1;
  }
  // API priority and fairness, shared by the listeners: the server's concurrency limit is the
  // sum of the two in-flight limits (kube's), the FlowSchemas and levels are followed live.
  std::unique_ptr<flowcontrol::FlowControl> flow_control;
  if (o.enable_priority_and_fairness) {
    const int limit = std::max(1, std::max(0, o.max_requests_inflight) + std::max(0, o.max_mutating_requests_inflight));
    // Requests wait up to a quarter of kube's 60 s request timeout in their queues.
    auto started = flowcontrol::FlowControl::start(
        registry, {.server_concurrency_limit = limit, .request_wait_limit = std::chrono::seconds(15)});
    if (!started) {
      std::cerr << "kw serve: " << started.error().message << "\n";
      return 1;
    }
    flow_control = std::move(*started);
  }
  http::ApiServer secure_api(registry, {.authenticator = &*authenticator,
                                        .authorizer = &*authorizer,
                                        .service_accounts = service_accounts->get(),
                                        .auditor = auditor->get(),
                                        .aggregator = aggregator->get(),
                                        .flow_control = flow_control.get()});
  http::ApiServer local_api(registry, {.service_accounts = service_accounts->get(),
                                       .auditor = auditor->get(),
                                       .aggregator = aggregator->get(),
                                       .flow_control = flow_control.get()});
  auto handler_for = [](http::ApiServer& api) {
    return [&api](net::Request request, std::shared_ptr<net::ResponseStream> stream) {
      api.handle(std::move(request), std::move(stream));
    };
  };
  if (o.secure_port > 0) {
    auto served = serve_secure(o, *pki, secure_api, registry, handler_for(secure_api));
    if (!served) {
      std::cerr << "kw serve: " << served.error().message << "\n";
      return 1;
    }
    servers.push_back(std::move(*served));
  }
  if (o.insecure_port > 0) {
    net::ServerConfig config;
    apply_limits(o, local_api, config);
    config.address = "127.0.0.1";  // cleartext never leaves the machine
    config.port = static_cast<std::uint16_t>(o.insecure_port);
    config.io_threads = o.io_threads;
    config.worker_threads = o.worker_threads;
    auto server = net::start_http_server(config, handler_for(local_api));
    if (!server) {
      std::cerr << "kw serve: cannot listen on 127.0.0.1:" << o.insecure_port << ": " << server.error().message << "\n";
      return 1;
    }
    std::cout << "kw serve: serving HTTP/1.1 and h2c on http://127.0.0.1:" << (*server)->port() << "\n";
    std::cout << "  try: kubectl --server=http://127.0.0.1:" << (*server)->port() << " get pods -w\n";
    servers.push_back(std::move(*server));
  }
  if (servers.empty()) {
    std::cerr << "kw serve: nothing to serve: --secure-port and --insecure-port are both 0\n";
    return 1;
  }
  std::cout.flush();
  // 5. Periodic compaction of storage history (coordinated between servers on one etcd).
  storage::Compactor compactor(**backend, std::chrono::seconds(o.compaction_interval_seconds));
  // 6. Wait for SIGINT/SIGTERM, then drain: stop accepting, finish in-flight, close watches.
  const int signal = wait_for_signal();
  std::cerr << "kw serve: " << (signal == SIGTERM ? "SIGTERM" : "SIGINT") << " received, shutting down\n";
  for (auto& server : servers) server->shutdown(std::chrono::seconds(5));
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<ServeOptions>();
  options->data_dir = default_data_dir();
  auto* serve = app.add_subcommand("serve", "Run a Kubernetes-compatible API server");
  serve->add_option("--etcd", options->etcd_servers, "etcd v3 endpoints (URL[,URL...]); empty = embedded store");
  serve->add_option("--etcd-prefix", options->etcd_prefix, "key prefix in etcd")->capture_default_str();
  serve->add_option("--etcd-cafile", options->etcd_cafile, "CA bundle to verify etcd's certificate");
  serve->add_option("--etcd-certfile", options->etcd_certfile, "client certificate for etcd");
  serve->add_option("--etcd-keyfile", options->etcd_keyfile, "client key for etcd");
  serve->add_option("--data-dir", options->data_dir, "embedded store and generated credentials")->capture_default_str();
  serve->add_option("--bind-address", options->bind_address, "address of the secure port")->capture_default_str();
  serve->add_option("--secure-port", options->secure_port, "TLS port (0 = off)")->capture_default_str();
  serve->add_option("--advertise-address", options->advertise_address,
                    "the address the `kubernetes` Service's endpoints name (default: the bind address, or the "
                    "first non-loopback IPv4 address)");
  serve->add_option("--service-cluster-ip-range", options->service_cluster_ip_range,
                    "CIDR Services' cluster IPs are drawn from")->capture_default_str();
  serve->add_option("--service-node-port-range", options->service_node_port_range,
                    "ports NodePort and LoadBalancer Services' node ports are drawn from")->capture_default_str();
  serve->add_option("--insecure-port", options->insecure_port,
                    "cleartext HTTP/1.1 + h2c port on 127.0.0.1 (0 = off)")->capture_default_str();
  serve->add_option("--tls-cert-file", options->tls_cert_file, "serving certificate (default: generated in the data dir)");
  serve->add_option("--tls-private-key-file", options->tls_private_key_file, "key of --tls-cert-file");
  serve->add_option("--tls-san", options->tls_sans, "extra subject alternative names of the generated certificate");
  serve->add_option("--proxy-client-cert-file", options->proxy_client_cert_file,
                    "client certificate kw presents to aggregated API servers (APIServices with a service)");
  serve->add_option("--proxy-client-key-file", options->proxy_client_key_file,
                    "private key of --proxy-client-cert-file");
  serve->add_option("--client-ca-file", options->client_ca_file,
                    "CA that signs client certificates (CN = user, O = groups); default: the generated CA");
  serve->add_option("--requestheader-client-ca-file", options->requestheader_client_ca_file,
                    "CA that signs front proxies' client certificates; such a proxy names the user in the "
                    "--requestheader-*-headers");
  serve->add_option("--requestheader-allowed-names", options->requestheader_allowed_names,
                    "CNs a front proxy's certificate may have (comma-separated; default: any)");
  serve->add_option("--requestheader-username-headers", options->requestheader_username_headers,
                    "headers that name the user, the first with a value wins (e.g. X-Remote-User)");
  serve->add_option("--requestheader-group-headers", options->requestheader_group_headers,
                    "headers whose values are the user's groups (e.g. X-Remote-Group)");
  serve->add_option("--requestheader-extra-headers-prefix", options->requestheader_extra_headers_prefix,
                    "header prefixes of the user's extra values (e.g. X-Remote-Extra-)");
  serve->add_option("--token-auth-file", options->token_auth_file, "bearer tokens, kube-apiserver's CSV format");
  serve->add_option("--authorization-mode", options->authorization_mode,
                    "Node, RBAC, ABAC, AlwaysAllow or AlwaysDeny (comma-separated, tried in order)")->capture_default_str();
  serve->add_option("--authorization-policy-file", options->authorization_policy_file, "ABAC policy (JSON lines)");
  serve->add_flag("--anonymous-auth", options->anonymous_auth, "serve requests without credentials as system:anonymous");
  serve->add_option("--service-account-issuer", options->service_account_issuers,
                    "iss of ServiceAccount tokens (repeatable; the first is written into new tokens; default "
                    "https://kubernetes.default.svc.cluster.local)");
  serve->add_option("--service-account-signing-key-file", options->service_account_signing_key_file,
                    "private key (RSA or ECDSA PEM) that signs ServiceAccount tokens (default: DATA_DIR/pki/sa.key, "
                    "generated)");
  serve->add_option("--service-account-key-file", options->service_account_key_files,
                    "PEM public keys, certificates or private keys that verify ServiceAccount tokens (repeatable)");
  serve->add_option("--api-audiences", options->api_audiences,
                    "audiences of this API (comma-separated; default: the issuers)");
  serve->add_option("--service-account-max-token-expiration", options->service_account_max_token_expiration,
                    "longest lifetime a TokenRequest gets (3600, 90m, 24h; default: no cap)");
  serve->add_option("--service-account-extend-token-expiration", options->service_account_extend_token_expiration,
                    "a Pod's token asked for 3607 s lives a year and counts as stale after 3607 s")
      ->capture_default_str();
  serve->add_option("--oidc-issuer-url", options->oidc_issuer_url,
                    "accept OpenID Connect ID tokens of this issuer (https; keys from its discovery document)");
  serve->add_option("--oidc-client-id", options->oidc_client_id, "the audience ID tokens must carry");
  serve->add_option("--oidc-username-claim", options->oidc_username_claim, "the claim naming the user")
      ->capture_default_str();
  serve->add_option("--oidc-username-prefix", options->oidc_username_prefix,
                    "prefix of OIDC user names (default ISSUER# unless the claim is email; - for none)");
  serve->add_option("--oidc-groups-claim", options->oidc_groups_claim, "the claim listing the user's groups");
  serve->add_option("--oidc-groups-prefix", options->oidc_groups_prefix, "prefix of OIDC group names");
  serve->add_option("--oidc-required-claim", options->oidc_required_claims, "key=value a token must carry (repeatable)");
  serve->add_option("--oidc-signing-algs", options->oidc_signing_algs, "accepted JWS algorithms (default RS256)");
  serve->add_option("--oidc-ca-file", options->oidc_ca_file, "CA bundle for the issuer's TLS certificate");
  serve->add_option("--etcd-compaction-interval", options->compaction_interval_seconds,
                    "seconds between storage compactions (0 = never)")->capture_default_str();
  serve->add_option("--io-threads", options->io_threads, "network threads")->capture_default_str();
  serve->add_option("--worker-threads", options->worker_threads,
                    "request handler threads always running; while all are blocked (a slow webhook or store), "
                    "more start, up to 256")
      ->capture_default_str();
  serve->add_option("--watch-dispatch-threads", options->watch_dispatch_threads,
                    "threads that hand each watch event to a resource's watchers (worth more than 1 only with "
                    "thousands of watchers and cores to spare)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  serve->add_option("--max-requests-inflight", options->max_requests_inflight,
                    "read-only requests (get, list) queued or running at once, per listener; over it: 429 "
                    "(watches are exempt; 0 = no limit). With priority and fairness, part of the server's "
                    "concurrency limit instead")
      ->capture_default_str();
  serve->add_option("--max-mutating-requests-inflight", options->max_mutating_requests_inflight,
                    "mutating requests (create, update, patch, delete) queued or running at once, per listener; "
                    "over it: 429 (0 = no limit). With priority and fairness, part of the server's concurrency "
                    "limit instead")
      ->capture_default_str();
  serve->add_option("--enable-priority-and-fairness", options->enable_priority_and_fairness,
                    "admit requests by API priority and fairness (FlowSchemas, PriorityLevelConfigurations) "
                    "within a concurrency limit of --max-requests-inflight + --max-mutating-requests-inflight, "
                    "instead of the two in-flight limits")
      ->capture_default_str();
  serve->add_option("--idle-timeout-seconds", options->idle_timeout_seconds,
                    "close keep-alive connections idle this long (HTTP/2: GOAWAY first)")
      ->capture_default_str();
  serve->add_option("--controllers", options->controllers,
                    "the controllers kw runs itself: '*' for all, NAME to enable, -NAME to disable (" +
                        known_controllers() + ")")
      ->delimiter(',')
      ->capture_default_str();
  serve->add_option("--resource-quota-sync-period", options->resource_quota_sync_period,
                    "how often the resourcequota controller recounts every quota's usage (a Go duration)")
      ->capture_default_str();
  serve->add_option("--root-ca-file", options->root_ca_file,
                    "CA bundle published to every namespace as ConfigMap kube-root-ca.crt (default: the serving CA)");
  serve->add_option("--enable-admission-plugins", options->enable_admission_plugins,
                    "admission plugins to run besides the default ones")
      ->delimiter(',');
  serve->add_option("--disable-admission-plugins", options->disable_admission_plugins,
                    "admission plugins not to run, even default ones")
      ->delimiter(',');
  serve->add_option("--admission-control-config-file", options->admission_control_config_file,
                    "an AdmissionConfiguration with the admission plugins' settings (PodSecurity)")
      ->check(CLI::ExistingFile);
  serve->add_option("--default-not-ready-toleration-seconds", options->default_not_ready_toleration_seconds,
                    "tolerationSeconds of the not-ready:NoExecute toleration added to pods without one")
      ->capture_default_str();
  serve->add_option("--default-unreachable-toleration-seconds", options->default_unreachable_toleration_seconds,
                    "tolerationSeconds of the unreachable:NoExecute toleration added to pods without one")
      ->capture_default_str();
  serve->add_option("--audit-policy-file", options->audit_policy_file,
                    "audit.k8s.io/v1 Policy: which requests the audit log records, and at which level");
  serve->add_option("--audit-log-path", options->audit_log.path,
                    "write audit events to this file ('-' = standard output); needs --audit-policy-file");
  serve->add_option("--audit-log-maxage", options->audit_log.max_age_days,
                    "days to keep rotated audit log files (0 = no limit)")
      ->capture_default_str();
  serve->add_option("--audit-log-maxbackup", options->audit_log.max_backups,
                    "rotated audit log files to keep (0 = no limit)")
      ->capture_default_str();
  serve->add_option("--audit-log-maxsize", options->audit_log.max_size_mb,
                    "megabytes an audit log file grows to before it is rotated (0 = 100)")
      ->capture_default_str();
  serve->add_flag("--audit-log-compress", options->audit_log.compress, "gzip rotated audit log files");
  serve->add_option("--audit-log-format", options->audit_log_format,
                    "json (one audit.k8s.io/v1 Event per line) or legacy (one line of text per event)")
      ->capture_default_str();
  serve->add_option("--audit-log-mode", options->audit_log_mode,
                    "batch: requests hand events to the writer and never wait (a full buffer drops them); "
                    "blocking, blocking-strict: requests wait until their events are written")
      ->capture_default_str();
  serve->add_option("--audit-log-batch-buffer-size", options->audit_log.buffer_size,
                    "events waiting for the audit log writer before new ones are dropped (batch mode)")
      ->capture_default_str();
  serve->add_option("--audit-log-version", options->audit_log_version, "API version of the events written")
      ->capture_default_str();
  serve->callback([options, exit_code] { *exit_code = run_serve(*options); });
}

}  // namespace kw::cli
