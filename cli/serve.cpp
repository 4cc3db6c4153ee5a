// kw serve: the Kubernetes-compatible API server.
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "core/net/server/http_server.hpp"
#include "server/http/api_server.hpp"
#include "server/registry/registry.hpp"
#include "server/storage/etcd3/etcd3_backend.hpp"
#include "server/storage/sqlite/sqlite_backend.hpp"

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
  int io_threads = 2;
  int worker_threads = 16;
};

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

int run_serve(const ServeOptions& o) {
  // Signals are taken by sigwait on the main thread only.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  // 1. Storage: etcd when --etcd is given, else the embedded store in the data dir.
  auto backend = open_backend(o);
  if (!backend) {
    std::cerr << "kw serve: cannot open storage: " << backend.error().message << "\n";
    return 1;
  }
  if (auto healthy = (*backend)->health(); !healthy) {
    std::cerr << "kw serve: storage is not healthy: " << healthy.error().message << "\n";
    return 1;
  }
  // 2. Registry and watch caches (one per resource), default namespaces.
  registry::RegistryOptions registry_options;
  registry_options.prefix = o.etcd_servers.empty() ? "/registry" : o.etcd_prefix;
  registry::Registry registry(**backend, api::ResourceTable::builtin(), registry_options);
  if (auto started = registry.start(); !started) {
    std::cerr << "kw serve: cannot start the watch caches: " << started.error().message << "\n";
    return 1;
  }
  // 3. The API handler and its listeners.
  http::ApiServer api(registry, {});
  auto handler = [&api](net::Request request, std::shared_ptr<net::ResponseStream> stream) {
    api.handle(std::move(request), std::move(stream));
  };
  std::vector<std::unique_ptr<net::HttpServer>> servers;
  if (o.insecure_port > 0) {
    net::ServerConfig config;
    config.address = "127.0.0.1";  // cleartext never leaves the machine
    config.port = static_cast<std::uint16_t>(o.insecure_port);
    config.io_threads = o.io_threads;
    config.worker_threads = o.worker_threads;
    auto server = net::start_http_server(config, handler);
    if (!server) {
      std::cerr << "kw serve: cannot listen on 127.0.0.1:" << o.insecure_port << ": " << server.error().message << "\n";
      return 1;
    }
    std::cout << "kw serve: serving HTTP/1.1 and h2c on http://127.0.0.1:" << (*server)->port() << "\n";
    std::cout << "  try: kubectl --server=http://127.0.0.1:" << (*server)->port() << " get pods -w\n";
    servers.push_back(std::move(*server));
  }
  if (servers.empty()) {
    std::cerr << "kw serve: nothing to serve: pass --insecure-port\n";
    return 1;
  }
  std::cout.flush();
  // 4. Periodic compaction of storage history.
  // 5. Wait for SIGINT/SIGTERM, then drain: stop accepting, finish in-flight, close watches.
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
  serve->add_option("--insecure-port", options->insecure_port,
                    "cleartext HTTP/1.1 + h2c port on 127.0.0.1 (0 = off)")->capture_default_str();
  serve->add_option("--etcd-compaction-interval", options->compaction_interval_seconds,
                    "seconds between storage compactions (0 = never)")->capture_default_str();
  serve->add_option("--io-threads", options->io_threads, "network threads")->capture_default_str();
  serve->add_option("--worker-threads", options->worker_threads, "request handler threads")->capture_default_str();
  serve->callback([options, exit_code] { *exit_code = run_serve(*options); });
}

}  // namespace kw::cli
