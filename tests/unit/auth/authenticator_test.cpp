// Token file parsing and authentication precedence: front proxy, client certificate, then bearer token,
// then anonymous; a wrong token is a 401 even when anonymous is on.
#include <doctest/doctest.h>

#include "auth_test_support.hpp"
#include "server/auth/authenticator.hpp"
#include "server/auth/token_file.hpp"

namespace kw::auth::test {

namespace {

using Groups = std::vector<std::string>;

net::Request request_with(std::optional<std::string> authorization, std::optional<net::PeerIdentity> peer = {}) {
  net::Request request;
  request.method = "GET";
  request.path = "/api";
  if (authorization) request.headers.push_back({"authorization", *authorization});
  request.peer = std::move(peer);
  return request;
}

Authenticator make(const std::string& token_file, bool client_certs, bool anonymous) {
  auto loaded =
      Authenticator::load({.token_auth_file = token_file, .client_certs = client_certs, .anonymous = anonymous});
  REQUIRE_MESSAGE(loaded, (loaded ? "" : loaded.error().message));
  return std::move(*loaded);
}

std::string error_of(std::string_view text) {
  auto parsed = parse_token_file(text, "tokens.csv");
  REQUIRE_FALSE(parsed);
  return parsed.error().message;
}

constexpr const char* k_tokens =
    "# token,user,uid,groups\n"
    "\n"
    "s3cret,alice,1001,\"devs,ops\"\n"
    "t0ken,bob,1002\n"
    "\"quo,ted\",\"carol \"\"c\"\"\",1003,viewers\r\n"
    "  \n"
    "admintoken,root,0,system:masters\n";

}  // namespace

TEST_CASE("token file: kube-apiserver's CSV with quotes, comments and blank lines") {
  auto parsed = parse_token_file(k_tokens, "tokens.csv");
  REQUIRE_MESSAGE(parsed, (parsed ? "" : parsed.error().message));
  REQUIRE(parsed->size() == 4);
  CHECK((*parsed)[0].token == "s3cret");
  CHECK((*parsed)[0].user.name == "alice");
  CHECK((*parsed)[0].user.uid == "1001");
  CHECK((*parsed)[0].user.groups == Groups{"devs", "ops"});
  CHECK((*parsed)[1].user.name == "bob");
  CHECK((*parsed)[1].user.groups.empty());
  CHECK((*parsed)[2].token == "quo,ted");
  CHECK((*parsed)[2].user.name == "carol \"c\"");
  CHECK((*parsed)[2].user.groups == Groups{"viewers"});
  CHECK((*parsed)[3].user.groups == Groups{"system:masters"});
  CHECK(parse_token_file("", "empty.csv")->empty());
}

TEST_CASE("token file: a bad line is reported with its number") {
  CHECK(error_of("good,alice,1\nonly,two\n") ==
        "token file tokens.csv, line 2: expected at least 3 fields (token, user name, user uid), found 2");
  CHECK(error_of("# c\n,alice,1\n").find("line 2: the token is empty") != std::string::npos);
  CHECK(error_of("tok,,1\n").find("line 1: the user name is empty") != std::string::npos);
  CHECK(error_of("a,b,c\n\n\"open,alice,1\n").find("line 3: a quoted field is not closed") != std::string::npos);
  CHECK(error_of("\"tok\"x,alice,1\n").find("line 1: unexpected text after a closing quote") != std::string::npos);
  CHECK(error_of("to\"k,alice,1\n").find("line 1: a bare \"") != std::string::npos);
  CHECK(error_of("same,alice,1\nother,carol,3\nsame,bob,2\n").find("line 3: the token of line 1 again") !=
        std::string::npos);
}

TEST_CASE("authenticator: load reports a missing or broken token file") {
  auto missing =
      Authenticator::load({.token_auth_file = "/nonexistent/tokens.csv", .client_certs = false, .anonymous = false});
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message.find("/nonexistent/tokens.csv") != std::string::npos);
  TempDir tmp;
  write_text(tmp.file("tokens.csv"), "x,y\n");
  auto broken =
      Authenticator::load({.token_auth_file = tmp.file("tokens.csv"), .client_certs = false, .anonymous = false});
  REQUIRE_FALSE(broken);
  CHECK(broken.error().message.find(tmp.file("tokens.csv") + ", line 1") != std::string::npos);
}

TEST_CASE("authenticator: bearer header parsing") {
  CHECK(bearer_token("Bearer abc") == "abc");
  CHECK(bearer_token("bearer abc") == "abc");
  CHECK(bearer_token("  BEARER abc  ") == "abc");
  CHECK(bearer_token("Bearer abc extra") == "abc");
  CHECK_FALSE(bearer_token("Basic YWxpY2U6cHc="));
  CHECK_FALSE(bearer_token("Bearer"));
  CHECK_FALSE(bearer_token("Bearer "));
  CHECK_FALSE(bearer_token("Bearerabc"));
}

TEST_CASE("authenticator: WebSocket subprotocol tokens") {
  // "s3cret" in base64url without padding is czNjcmV0.
  CHECK(websocket_protocol_token("base64url.bearer.authorization.k8s.io.czNjcmV0") == "s3cret");
  CHECK(websocket_protocol_token("v4.channel.k8s.io, base64url.bearer.authorization.k8s.io.czNjcmV0 ,x") == "s3cret");
  CHECK(websocket_protocol_token("base64url.bearer.authorization.k8s.io.cXVvLHRlZA") == "quo,ted");
  CHECK_FALSE(websocket_protocol_token("v4.channel.k8s.io"));
  CHECK(websocket_protocol_token("base64url.bearer.authorization.k8s.io.czNj*mV0") == "");
  CHECK(websocket_protocol_token("base64url.bearer.authorization.k8s.io.") == "");
  CHECK(websocket_protocol_token("base64url.bearer.authorization.k8s.io.c") == "");

  TempDir tmp;
  write_text(tmp.file("tokens.csv"), k_tokens);
  const auto authn = make(tmp.file("tokens.csv"), false, true);
  net::Request request = request_with(std::nullopt);
  request.headers.push_back(
      {"sec-websocket-protocol", "v4.channel.k8s.io,base64url.bearer.authorization.k8s.io.czNjcmV0"});
  CHECK(authn.authenticate(request)->name == "system:anonymous");  // only for WebSocket requests
  request.protocol = net::Protocol::websocket;
  CHECK(authn.authenticate(request)->name == "alice");
  request.headers.back().value = "base64url.bearer.authorization.k8s.io.bm9wZQ";  // "nope"
  CHECK_FALSE(authn.authenticate(request));
  request.headers.back().value = "base64url.bearer.authorization.k8s.io.!!";
  CHECK_FALSE(authn.authenticate(request));
  // The Authorization header wins.
  request.headers.insert(request.headers.begin(), {"authorization", "Bearer t0ken"});
  CHECK(authn.authenticate(request)->name == "bob");
}

TEST_CASE("authenticator: certificate, then token, then anonymous") {
  TempDir tmp;
  write_text(tmp.file("tokens.csv"), k_tokens);
  const auto authn = make(tmp.file("tokens.csv"), true, true);
  CHECK(authn.token_count() == 4);
  const net::PeerIdentity admin{.common_name = "kw-admin", .organizations = {"system:masters"}, .by_client_ca = true};

  SUBCASE("a verified client certificate wins over a token") {
    auto user = authn.authenticate(request_with("Bearer s3cret", admin));
    REQUIRE(user);
    CHECK(user->name == "kw-admin");
    CHECK(user->groups == Groups{"system:masters", "system:authenticated"});
  }
  SUBCASE("a token user gets its groups and uid") {
    auto user = authn.authenticate(request_with("Bearer s3cret"));
    REQUIRE(user);
    CHECK(user->name == "alice");
    CHECK(user->uid == "1001");
    CHECK(user->groups == Groups{"devs", "ops", "system:authenticated"});
    auto quoted = authn.authenticate(request_with("Bearer quo,ted"));
    REQUIRE(quoted);
    CHECK(quoted->name == "carol \"c\"");
  }
  SUBCASE("a wrong token is refused even with anonymous on") {
    CHECK_FALSE(authn.authenticate(request_with("Bearer nope")));
    CHECK_FALSE(authn.authenticate(request_with("Bearer s3cre")));
    CHECK_FALSE(authn.authenticate(request_with("Bearer s3cretx")));
  }
  SUBCASE("no credentials (or another scheme) is anonymous") {
    for (auto header : {std::optional<std::string>{}, std::optional<std::string>{"Basic YWxpY2U6cHc="}}) {
      auto user = authn.authenticate(request_with(header));
      REQUIRE(user);
      CHECK(user->name == "system:anonymous");
      CHECK(user->groups == Groups{"system:unauthenticated"});
    }
  }
  SUBCASE("a certificate without a common name does not authenticate") {
    auto user =
        authn.authenticate(request_with("Bearer t0ken", net::PeerIdentity{.common_name = "", .organizations = {"x"}, .by_client_ca = true}));
    REQUIRE(user);
    CHECK(user->name == "bob");
  }
}

TEST_CASE("authenticator: each source only when enabled") {
  TempDir tmp;
  write_text(tmp.file("tokens.csv"), k_tokens);
  const net::PeerIdentity admin{.common_name = "kw-admin", .organizations = {"system:masters"}, .by_client_ca = true};

  const auto no_certs = make(tmp.file("tokens.csv"), false, false);
  CHECK_FALSE(no_certs.authenticate(request_with(std::nullopt, admin)));
  CHECK_FALSE(no_certs.authenticate(request_with(std::nullopt)));
  CHECK(no_certs.authenticate(request_with("Bearer t0ken"))->name == "bob");

  // Without a token file, bearer tokens are not looked at (kube: no authenticator claims them).
  const auto certs_only = make("", true, false);
  CHECK(certs_only.authenticate(request_with(std::nullopt, admin))->name == "kw-admin");
  CHECK_FALSE(certs_only.authenticate(request_with("Bearer s3cret")));
  const auto anonymous_only = make("", false, true);
  CHECK(anonymous_only.authenticate(request_with("Bearer s3cret"))->name == "system:anonymous");
}

TEST_CASE("authenticator: a front proxy names the user in its headers") {
  RequestHeaderConfig proxy_config{.allowed_names = {"front-proxy"},
                                   .username_headers = {"X-Remote-User", "X-Other-User"},
                                   .group_headers = {"X-Remote-Group"},
                                   .extra_headers_prefixes = {"X-Remote-Extra-"}};
  auto loaded = Authenticator::load({.token_auth_file = "", .client_certs = true, .anonymous = true, .request_header = proxy_config});
  REQUIRE(loaded);
  const Authenticator& authn = *loaded;
  const net::PeerIdentity proxy{.common_name = "front-proxy", .organizations = {}, .by_request_header_ca = true};
  auto request = request_with(std::nullopt, proxy);

  SUBCASE("user, groups and extra from the headers") {
    request.headers.push_back({"x-other-user", "ignored"});
    request.headers.push_back({"x-remote-user", "alice"});
    request.headers.push_back({"x-remote-group", "devs"});
    request.headers.push_back({"x-remote-group", ""});
    request.headers.push_back({"x-remote-group", "ops"});
    request.headers.push_back({"x-remote-extra-scopes%2fa", "x"});
    request.headers.push_back({"x-remote-extra-Team", "t1"});
    auto user = authn.authenticate(request);
    REQUIRE(user);
    CHECK(user->name == "alice");
    CHECK(user->groups == Groups{"devs", "ops", "system:authenticated"});
    CHECK(user->extra == std::map<std::string, std::vector<std::string>>{{"scopes/a", {"x"}}, {"team", {"t1"}}});
  }
  SUBCASE("the second username header when the first is missing") {
    request.headers.push_back({"x-other-user", "bob"});
    CHECK(authn.authenticate(request)->name == "bob");
  }
  SUBCASE("a proxy naming no user is refused, anonymous or not") {
    CHECK_FALSE(authn.authenticate(request));
  }
  SUBCASE("a proxy whose name is not allowed is refused") {
    auto other = request_with(std::nullopt, net::PeerIdentity{.common_name = "other", .organizations = {},
                                                              .by_request_header_ca = true});
    other.headers.push_back({"x-remote-user", "alice"});
    CHECK_FALSE(authn.authenticate(other));
    other.headers.push_back({"authorization", "Bearer unknown"});
    CHECK_FALSE(authn.authenticate(other));
  }
  SUBCASE("a user's own certificate ignores the headers") {
    auto own = request_with(std::nullopt, net::PeerIdentity{.common_name = "carol", .organizations = {"qa"},
                                                            .by_client_ca = true});
    own.headers.push_back({"x-remote-user", "mallory"});
    CHECK(authn.authenticate(own)->name == "carol");
  }
  SUBCASE("without --requestheader-client-ca-file the headers mean nothing") {
    auto plain = Authenticator::load({.token_auth_file = "", .client_certs = true, .anonymous = true});
    REQUIRE(plain);
    request.headers.push_back({"x-remote-user", "alice"});
    CHECK(plain->authenticate(request)->name == "system:anonymous");
  }
}

TEST_CASE("authenticator: system:authenticated is added once") {
  TempDir tmp;
  write_text(tmp.file("tokens.csv"), "tok,svc,9,\"system:authenticated,team\"\n");
  const auto authn = make(tmp.file("tokens.csv"), false, false);
  auto user = authn.authenticate(request_with("Bearer tok"));
  REQUIRE(user);
  CHECK(user->groups == Groups{"system:authenticated", "team"});
}

}  // namespace kw::auth::test
