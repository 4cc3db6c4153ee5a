#include <doctest/doctest.h>

#include <fstream>

#include "core/kubeconfig/auth_provider.hpp"
#include "core/kubeconfig/kubeconfig.hpp"
#include "core/util/base64.hpp"
#include "support/temp_dir.hpp"

using namespace kw::kubeconfig;

namespace {

void write(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

const char* k_first = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev
  cluster:
    server: https://dev.example:6443
    certificate-authority: ca/dev.crt
- name: shared
  cluster:
    server: https://first.example
contexts:
- name: dev
  context: {cluster: dev, user: alice, namespace: team-a}
users:
- name: alice
  user:
    token: alice-token
)";

const char* k_second = R"(apiVersion: v1
kind: Config
current-context: prod
clusters:
- name: shared
  cluster:
    server: https://second.example
- name: prod
  cluster:
    server: https://prod.example
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==
    insecure-skip-tls-verify: false
contexts:
- name: prod
  context: {cluster: prod, user: bob}
- name: dev
  context: {cluster: shared, user: bob}
users:
- name: bob
  user:
    client-certificate-data: Y2VydA==
    client-key-data: a2V5
)";

}  // namespace

TEST_CASE("KUBECONFIG merges files, first file wins for names and current-context") {
  kw::testing::TempDir dir;
  write(dir.path() + "/a", k_first);
  write(dir.path() + "/b", k_second);
  Environment env{dir.path() + "/a:" + dir.path() + "/missing:" + dir.path() + "/b", "/nonexistent"};
  auto config = load({}, env);
  REQUIRE(config.has_value());
  CHECK(config->context_name == "dev");
  CHECK(config->server == "https://dev.example:6443");
  CHECK(config->ca_file == dir.path() + "/ca/dev.crt");  // relative to the file
  CHECK(config->token == "alice-token");
  CHECK(config->namespace_name == "team-a");

  Overrides prod;
  prod.context = "prod";
  auto other = load(prod, env);
  REQUIRE(other.has_value());
  CHECK(other->server == "https://prod.example");
  CHECK(other->ca_data == "-----BEGIN CERTIFICATE-----\n");
  CHECK(other->cert_data == "cert");
  CHECK(other->key_data == "key");
  CHECK(other->namespace_name == "default");
}

TEST_CASE("flags override the kubeconfig") {
  kw::testing::TempDir dir;
  write(dir.path() + "/a", k_first);
  Overrides flags;
  flags.kubeconfig = dir.path() + "/a";
  flags.server = "http://127.0.0.1:1234";
  flags.namespace_name = "other";
  flags.token = "flag-token";
  flags.insecure_skip_tls_verify = true;
  auto config = load(flags, Environment{std::nullopt, ""});
  REQUIRE(config.has_value());
  CHECK(config->server == "http://127.0.0.1:1234");
  CHECK(config->namespace_name == "other");
  CHECK(config->namespace_from_flag);
  CHECK(config->token == "flag-token");
  CHECK(config->insecure_skip_tls_verify);
  CHECK(config->ca_file.empty());
}

TEST_CASE("clear errors for missing pieces") {
  kw::testing::TempDir dir;
  write(dir.path() + "/a", k_first);
  Overrides missing_file;
  missing_file.kubeconfig = dir.path() + "/nope";
  auto a = load(missing_file, Environment{});
  REQUIRE_FALSE(a.has_value());
  CHECK(a.error().message.find("does not exist") != std::string::npos);

  Overrides bad_context;
  bad_context.kubeconfig = dir.path() + "/a";
  bad_context.context = "ghost";
  auto b = load(bad_context, Environment{});
  REQUIRE_FALSE(b.has_value());
  CHECK(b.error().message == "context 'ghost' not found in kubeconfig");

  auto c = load({}, Environment{std::nullopt, dir.path() + "/nohome"});
  REQUIRE_FALSE(c.has_value());
  CHECK(c.error().message.find("--server") != std::string::npos);

  Overrides only_server;
  only_server.server = "http://127.0.0.1:9";
  auto d = load(only_server, Environment{std::nullopt, dir.path() + "/nohome"});
  REQUIRE(d.has_value());
  CHECK(d->namespace_name == "default");
}

TEST_CASE("exec credential plugin v1 runs with env and returns a token") {
  kw::testing::TempDir dir;
  const std::string script = dir.path() + "/plugin.sh";
  write(script,
        "#!/bin/sh\n"
        "case \"$KUBERNETES_EXEC_INFO\" in *ExecCredential*) ;; *) exit 3;; esac\n"
        "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",'\n"
        "echo \"\\\"status\\\":{\\\"token\\\":\\\"$PLUGIN_TOKEN-$1\\\"}}\"\n");
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  write(dir.path() + "/config", R"(apiVersion: v1
current-context: c
clusters: [{name: k, cluster: {server: "http://127.0.0.1:1"}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./plugin.sh
      args: [arg1]
      env: [{name: PLUGIN_TOKEN, value: secret}]
      interactiveMode: Never
)");
  Overrides flags;
  flags.kubeconfig = dir.path() + "/config";
  auto config = load(flags, Environment{});
  REQUIRE(config.has_value());
  REQUIRE(config->exec.has_value());
  CHECK(config->exec->command == script);
  auto credential = run_exec_plugin(*config->exec, *config);
  REQUIRE(credential.has_value());
  CHECK(credential->token == "secret-arg1");

  ExecConfig beta{.api_version = "client.authentication.k8s.io/v1beta1", .command = "x"};
  CHECK_FALSE(parse_exec_output(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t"}})", beta).has_value());
  auto cert = parse_exec_output(R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"clientCertificateData":"C","clientKeyData":"K"}})", beta);
  REQUIRE(cert.has_value());
  CHECK(cert->client_key_data == "K");
}

TEST_CASE("an exec plugin's output with members of the wrong type is an error, not an exception") {
  ExecConfig v1{.api_version = "client.authentication.k8s.io/v1", .command = "plugin"};
  auto output = [](std::string_view api_version, std::string_view status) {
    return R"({"apiVersion":)" + std::string(api_version) + R"(,"kind":"ExecCredential","status":)" + std::string(status) + "}";
  };
  const std::string v1_name = R"("client.authentication.k8s.io/v1")";
  auto object_version = parse_exec_output(output(R"({"token":"t"})", R"({"token":"t"})"), v1);
  REQUIRE_FALSE(object_version.has_value());
  CHECK(object_version.error().message == "exec plugin 'plugin' printed an ExecCredential that cannot be decoded: object where apiVersion should be a string");
  auto number_token = parse_exec_output(output(v1_name, R"({"token":7})"), v1);
  REQUIRE_FALSE(number_token.has_value());
  CHECK(number_token.error().message == "exec plugin 'plugin' printed an ExecCredential that cannot be decoded: number where token should be a string");
  auto list_status = parse_exec_output(output(v1_name, R"(["t"])"), v1);
  REQUIRE_FALSE(list_status.has_value());
  CHECK(list_status.error().message == "exec plugin 'plugin' printed an ExecCredential whose status is not an object");
  auto null_members = parse_exec_output(output(v1_name, R"({"token":"t","clientKeyData":null})"), v1);
  REQUIRE(null_members.has_value());
  CHECK(null_members->token == "t");
}

TEST_CASE("exec interactiveMode and proxy-url follow client-go") {
  kw::testing::TempDir dir;
  auto config_with = [&](const std::string& exec_extra, const std::string& cluster_extra) {
    write(dir.path() + "/config", "apiVersion: v1\ncurrent-context: c\n"
                                  "clusters: [{name: k, cluster: {server: \"https://127.0.0.1:1\"" + cluster_extra + "}}]\n"
                                  "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
                                  "users: [{name: u, user: {exec: {command: p" + exec_extra + "}}}]\n");
    Overrides flags;
    flags.kubeconfig = dir.path() + "/config";
    return load(flags, Environment{});
  };
  auto v1_without_mode = config_with(", apiVersion: client.authentication.k8s.io/v1", "");
  REQUIRE_FALSE(v1_without_mode.has_value());
  CHECK(v1_without_mode.error().message.find("interactiveMode must be specified") != std::string::npos);
  auto bad_mode = config_with(", apiVersion: client.authentication.k8s.io/v1, interactiveMode: Sometimes", "");
  REQUIRE_FALSE(bad_mode.has_value());
  CHECK(bad_mode.error().message.find("invalid interactiveMode 'Sometimes'") != std::string::npos);
  auto beta = config_with(", apiVersion: client.authentication.k8s.io/v1beta1", ", proxy-url: \"http://proxy:3128\"");
  REQUIRE(beta.has_value());
  CHECK(beta->exec->interactive_mode == "IfAvailable");
  CHECK(beta->proxy_url == "http://proxy:3128");
  CHECK(*exec_interactive(beta->exec.value(), true));
  CHECK_FALSE(*exec_interactive(beta->exec.value(), false));
  ExecConfig always{.api_version = "client.authentication.k8s.io/v1", .command = "p", .interactive_mode = "Always"};
  CHECK(*exec_interactive(always, true));
  auto no_terminal = exec_interactive(always, false);
  REQUIRE_FALSE(no_terminal.has_value());
  CHECK(no_terminal.error().message.find("standard input is not a terminal") != std::string::npos);
  ExecConfig never{.api_version = "client.authentication.k8s.io/v1", .command = "p", .interactive_mode = "Never"};
  CHECK_FALSE(*exec_interactive(never, true));
}

TEST_CASE("the kubeconfig's insecure-skip-tls-verify, CA, server name and client cert are read") {
  kw::testing::TempDir dir;
  write(dir.path() + "/config", R"(apiVersion: v1
current-context: c
clusters:
- name: k
  cluster: {server: "https://10.0.0.1:6443", insecure-skip-tls-verify: true, tls-server-name: api.internal}
- name: ca
  cluster: {server: "https://10.0.0.2:6443", certificate-authority: ca.pem}
contexts:
- {name: c, context: {cluster: k, user: u, namespace: web}}
- {name: d, context: {cluster: ca, user: u}}
users:
- name: u
  user: {client-certificate-data: Q0VSVA==, client-key: key.pem, tokenFile: tok}
)");
  Overrides flags;
  flags.kubeconfig = dir.path() + "/config";
  auto insecure = load(flags, Environment{});
  REQUIRE(insecure.has_value());
  CHECK(insecure->insecure_skip_tls_verify);
  CHECK(insecure->tls_server_name == "api.internal");
  CHECK(insecure->namespace_name == "web");
  CHECK(insecure->cert_data == "CERT");
  CHECK(insecure->key_file == dir.path() + "/key.pem");
  CHECK(insecure->token_file == dir.path() + "/tok");
  flags.context = "d";
  auto with_ca = load(flags, Environment{});
  REQUIRE(with_ca.has_value());
  CHECK_FALSE(with_ca->insecure_skip_tls_verify);
  CHECK(with_ca->ca_file == dir.path() + "/ca.pem");
  CHECK(with_ca->namespace_name == "default");
}

TEST_CASE("base64 round trip") {
  for (std::string text : {"", "a", "ab", "abc", "abcd", "hello world!"}) {
    auto decoded = base64_decode(base64_encode(text));
    REQUIRE(decoded.has_value());
    CHECK(*decoded == text);
  }
  CHECK_FALSE(base64_decode("@@").has_value());
}

TEST_CASE("an auth-provider is read with its config and the file that defines its user") {
  kw::testing::TempDir dir;
  const std::string file = dir.path() + "/config";
  write(file, R"(
apiVersion: v1
kind: Config
current-context: c
clusters: [{name: k, cluster: {server: "https://127.0.0.1:6443"}}]
contexts: [{name: c, context: {cluster: k, user: jane}}]
users:
- name: jane
  user:
    auth-provider:
      name: oidc
      config: {client-id: kw, idp-issuer-url: "https://issuer.example", id-token: abc}
)");
  kw::kubeconfig::Overrides flags;
  flags.kubeconfig = file;
  auto config = kw::kubeconfig::load(flags, {});
  REQUIRE(config.has_value());
  REQUIRE(config->auth_provider);
  CHECK(config->auth_provider->name == "oidc");
  CHECK(config->auth_provider->config.at("client-id") == "kw");
  CHECK(config->auth_provider->user_name == "jane");
  CHECK(config->auth_provider->file == file);
  flags.token = "explicit";  // --token wins over the provider
  auto overridden = kw::kubeconfig::load(flags, {});
  REQUIRE(overridden.has_value());
  CHECK_FALSE(overridden->auth_provider);
}

TEST_CASE("an ID token is fresh until 10 s before its exp claim") {
  using kw::kubeconfig::id_token_fresh;
  const auto jwt = [](const std::string& claims) {
    return kw::util::base64url_encode(R"({"alg":"RS256"})") + "." + kw::util::base64url_encode(claims) + ".sig";
  };
  const auto at = std::chrono::system_clock::time_point(std::chrono::seconds(1000));
  CHECK(id_token_fresh(jwt(R"({"exp":1011})"), at).value());
  CHECK_FALSE(id_token_fresh(jwt(R"({"exp":1010})"), at).value());
  CHECK_FALSE(id_token_fresh(jwt(R"({"exp":900})"), at).value());
  CHECK_FALSE(id_token_fresh("not-a-jwt", at).has_value());
  CHECK_FALSE(id_token_fresh(jwt(R"({"sub":"x"})"), at).has_value());
}
