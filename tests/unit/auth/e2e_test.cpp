// End to end through the real transport: TLS from ensure_pki with the CA as client CA, a
// handler that authenticates and authorizes every request, driven by curl and kubectl.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "auth_test_support.hpp"
#include "core/net/server/http_server.hpp"
#include "server/auth/authenticator.hpp"
#include "server/auth/authorizer.hpp"
#include "server/auth/kubeconfig_writer.hpp"
#include "server/auth/pki.hpp"
#include "server/auth/status.hpp"

namespace kw::auth::test {

namespace {

constexpr const char* k_e2e_tokens = "s3cret,alice,1001,\"devs,ops\"\nb0b,bob,1002\n";
constexpr const char* k_e2e_policy =
    R"({"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "nonResourcePath": "*"}})"
    "\n"
    R"({"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "*", "readonly": true, "nonResourcePath": "/whoami"}})"
    "\n";

void reply(net::ResponseStream& stream, int status, const std::string& type, const std::string& body) {
  stream.begin(net::ResponseHead{.status = status,
                                 .headers = {{"content-type", type}, {"content-length", std::to_string(body.size())}},
                                 .binary_messages = false});
  stream.write(body);
  stream.finish();
}

std::string describe(const UserInfo& user) {
  std::string groups;
  for (const auto& group : user.groups) groups += (groups.empty() ? "" : ",") + group;
  return "user=" + user.name + " groups=" + groups;
}

struct Fixture {
  TempDir tmp;
  PkiFiles pki;
  std::shared_ptr<const Authenticator> authn;
  std::shared_ptr<const Authorizer> authz;
  std::unique_ptr<net::HttpServer> server;
  std::string base;

  Fixture() {
    auto files = ensure_pki(tmp.file("pki"), {"kw.example.com"});
    REQUIRE_MESSAGE(files, (files ? "" : files.error().message));
    pki = *files;
    write_text(tmp.file("tokens.csv"), k_e2e_tokens);
    write_text(tmp.file("policy.jsonl"), k_e2e_policy);
    auto loaded_authn =
        Authenticator::load({.token_auth_file = tmp.file("tokens.csv"), .client_certs = true, .anonymous = false});
    REQUIRE(loaded_authn);
    authn = std::make_shared<const Authenticator>(std::move(*loaded_authn));
    auto loaded_authz = Authorizer::load({.mode = "ABAC", .policy_file = tmp.file("policy.jsonl"), .rbac = nullptr});
    REQUIRE(loaded_authz);
    authz = std::make_shared<const Authorizer>(std::move(*loaded_authz));

    net::ServerConfig config;
    config.tls =
        net::TlsConfig{.cert_file = pki.serving_cert, .key_file = pki.serving_key, .client_ca_file = pki.ca_cert};
    config.worker_threads = 2;
    auto started = net::start_http_server(
        config, [authn = authn, authz = authz](net::Request request, std::shared_ptr<net::ResponseStream> stream) {
          const auto user = authn->authenticate(request);
          if (!user) return reply(*stream, 401, "application/json", unauthorized_status().dump());
          const Attributes attributes = non_resource_attributes(*user, request.method, request.path);
          const Decision decision = authz->authorize(attributes);
          if (!decision.allowed) return reply(*stream, 403, "application/json", forbidden_status(attributes).dump());
          reply(*stream, 200, "text/plain", describe(*user));
        });
    REQUIRE_MESSAGE(started, (started ? "" : started.error().message));
    server = std::move(*started);
    base = "https://127.0.0.1:" + std::to_string(server->port());
  }

  // curl verifying the server against our CA (no -k), printing the body then " <code>".
  CommandResult curl(const std::string& args, const std::string& path = "/whoami") const {
    return run_command("timeout 20 curl -sS --cacert " + pki.ca_cert + " -w ' %{http_code}' " + args + " " + base +
                       path);
  }
};

}  // namespace

TEST_CASE("e2e: the admin client certificate is user kw-admin in system:masters") {
  Fixture f;
  const auto result = f.curl("--cert " + f.pki.admin_cert + " --key " + f.pki.admin_key, "/");
  CHECK(result.exit_code == 0);
  CHECK(result.output == "user=kw-admin groups=system:masters,system:authenticated 200");
  // HTTP/1.1 as well as h2, and the DNS SAN through --resolve.
  const auto h1 =
      run_command("timeout 20 curl --http1.1 -sS --cacert " + f.pki.ca_cert + " --cert " + f.pki.admin_cert +
                  " --key " + f.pki.admin_key + " --resolve kw.example.com:" + std::to_string(f.server->port()) +
                  ":127.0.0.1 https://kw.example.com:" + std::to_string(f.server->port()) + "/anything");
  CHECK(h1.exit_code == 0);
  CHECK(h1.output == "user=kw-admin groups=system:masters,system:authenticated");
}

TEST_CASE("e2e: bearer tokens, their absence, and authorization") {
  Fixture f;
  CHECK(f.curl("-H 'Authorization: Bearer s3cret'", "/anything").output ==
        "user=alice groups=devs,ops,system:authenticated 200");
  CHECK(f.curl("-H 'Authorization: Bearer b0b'").output == "user=bob groups=system:authenticated 200");

  const auto forbidden = f.curl("-H 'Authorization: Bearer b0b'", "/secret");
  REQUIRE(forbidden.output.ends_with(" 403"));
  const auto body = nlohmann::json::parse(forbidden.output.substr(0, forbidden.output.size() - 4));
  CHECK(body["message"] == "forbidden: User \"bob\" cannot get path \"/secret\"");
  CHECK(body["reason"] == "Forbidden");

  for (const std::string args : {"", "-H 'Authorization: Bearer wrong'", "-H 'Authorization: Basic YTpi'"}) {
    CAPTURE(args);
    const auto result = f.curl(args);
    REQUIRE(result.output.ends_with(" 401"));
    CHECK(nlohmann::json::parse(result.output.substr(0, result.output.size() - 4)) == unauthorized_status());
  }
  // A client certificate from another CA is not trusted: the handshake fails or it is anonymous (401).
  TempDir other;
  auto foreign = ensure_pki(other.file("pki"), {});
  REQUIRE(foreign);
  const auto rejected = f.curl("--cert " + foreign->admin_cert + " --key " + foreign->admin_key);
  CHECK((rejected.exit_code != 0 || rejected.output.ends_with(" 401")));
  CHECK(rejected.output.find("kw-admin") == std::string::npos);
}

TEST_CASE("e2e: kubectl uses the written admin kubeconfig as is") {
  Fixture f;
  const std::string kubeconfig = f.tmp.file("admin.kubeconfig");
  REQUIRE(write_admin_kubeconfig(kubeconfig, f.base, f.pki));
  const auto result = run_command("timeout 30 kubectl --kubeconfig=" + kubeconfig +
                                  " --cache-dir=" + f.tmp.file("kube-cache") + " get --raw /whoami 2>&1");
  CHECK(result.exit_code == 0);
  CHECK(result.output == "user=kw-admin groups=system:masters,system:authenticated");
  const auto context = run_command("timeout 30 kubectl --kubeconfig=" + kubeconfig + " config current-context 2>&1");
  CHECK(context.output == "kw\n");
}

}  // namespace kw::auth::test
