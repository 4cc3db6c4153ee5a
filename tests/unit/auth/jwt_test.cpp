// JWS signing and verification with RSA and ECDSA keys, kube's key ids and JWKs, base64.
#include <doctest/doctest.h>

#include "core/util/base64.hpp"
#include "server/auth/jwt.hpp"
#include "server/auth/secure_file.hpp"
#include "server/auth/x509.hpp"
#include "auth_test_support.hpp"

namespace kw::auth::test {

namespace {

using nlohmann::json;

std::string ec_key_file(TempDir& tmp, const std::string& name) {
  auto key = x509::generate_key();
  REQUIRE(key);
  const std::string path = tmp.file(name);
  REQUIRE(write_file_atomic(path, x509::to_pem(key->get()), 0600));
  return path;
}

}  // namespace

TEST_CASE("base64: standard and URL alphabets") {
  CHECK(util::base64_encode("") == "");
  CHECK(util::base64_encode("f") == "Zg==");
  CHECK(util::base64_encode("fo") == "Zm8=");
  CHECK(util::base64_encode("foo") == "Zm9v");
  CHECK(util::base64url_encode("\xfb\xff") == "-_8");
  CHECK(util::base64url_decode("-_8") == std::string("\xfb\xff"));
  CHECK_FALSE(util::base64url_decode("-_8=").has_value());
  CHECK_FALSE(util::base64url_decode("a+b").has_value());
  CHECK(util::base64_decode("Zm8=") == std::string("fo"));
  CHECK(util::base64_decode("Zm8") == std::string("fo"));
  CHECK_FALSE(util::base64_decode("Z").has_value());
}

TEST_CASE("jwt: RS256 and ES256 tokens verify with their keys only") {
  TempDir tmp;
  auto rsa = SigningKey::generate(tmp.file("sa.key"), SigningKey::Kind::rsa_2048);
  REQUIRE_MESSAGE(rsa, (rsa ? "" : rsa.error().message));
  auto ec = SigningKey::load(ec_key_file(tmp, "ec.key"));
  REQUIRE_MESSAGE(ec, (ec ? "" : ec.error().message));
  CHECK(rsa->public_key().algorithm() == "RS256");
  CHECK(ec->public_key().algorithm() == "ES256");

  const json claims = {{"iss", "https://issuer"}, {"sub", "system:serviceaccount:a:b"}, {"aud", {"x"}}};
  auto rsa_token = rsa->sign(claims);
  auto ec_token = ec->sign(claims);
  REQUIRE(rsa_token);
  REQUIRE(ec_token);
  auto both = load_public_keys({tmp.file("sa.key"), tmp.file("ec.key")});
  REQUIRE_MESSAGE(both, (both ? "" : both.error().message));
  CHECK(both->size() == 2);
  CHECK(verify(*rsa_token, *both) == claims);
  CHECK(verify(*ec_token, *both) == claims);
  auto only_ec = load_public_keys({tmp.file("ec.key")});
  REQUIRE(only_ec);
  CHECK_FALSE(verify(*rsa_token, *only_ec).has_value());

  // The header names the algorithm and kube's key id; any change to the payload breaks it.
  const auto dot = rsa_token->find('.');
  CHECK(json::parse(*util::base64url_decode(rsa_token->substr(0, dot))) ==
        json{{"alg", "RS256"}, {"kid", rsa->public_key().key_id()}});
  std::string tampered = *rsa_token;
  tampered[dot + 5] = tampered[dot + 5] == 'A' ? 'B' : 'A';
  CHECK_FALSE(verify(tampered, *both).has_value());
  CHECK_FALSE(verify("not.a.token", *both).has_value());
  CHECK_FALSE(verify("", *both).has_value());
  CHECK(unverified_claims(*rsa_token) == claims);
  CHECK_FALSE(unverified_claims("x.y").has_value());

  // kid: base64url(SHA-256(DER SubjectPublicKeyInfo)), 43 characters.
  CHECK(rsa->public_key().key_id().size() == 43);
  const json jwk = rsa->public_key().jwk();
  CHECK(jwk["kty"] == "RSA");
  CHECK(jwk["e"] == "AQAB");
  CHECK(jwk["use"] == "sig");
  const json ec_jwk = ec->public_key().jwk();
  CHECK(ec_jwk["crv"] == "P-256");
  CHECK(ec_jwk["x"].get<std::string>().size() == 43);  // 32 bytes, unpadded
}

TEST_CASE("jwt: key files with certificates, public keys, and nothing usable") {
  TempDir tmp;
  auto key = x509::generate_key();
  REQUIRE(key);
  x509::CertSpec spec;
  spec.common_name = "signer";
  spec.usage = x509::Usage::ca;
  auto cert = x509::issue(spec, key->get(), nullptr, key->get());
  REQUIRE(cert);
  write_text(tmp.file("signer.crt"), x509::to_pem(cert->get()));
  write_text(tmp.file("empty.pem"), "no keys here\n");
  auto from_cert = load_public_keys({tmp.file("signer.crt")});
  REQUIRE_MESSAGE(from_cert, (from_cert ? "" : from_cert.error().message));
  CHECK(from_cert->front().algorithm() == "ES256");
  auto none = load_public_keys({tmp.file("empty.pem")});
  REQUIRE_FALSE(none);
  CHECK(none.error().message.find("empty.pem") != std::string::npos);
  CHECK_FALSE(SigningKey::load(tmp.file("missing.key")));
}

}  // namespace kw::auth::test
