#include "server/auth/jwt.hpp"

#include <algorithm>
#include <array>
#include <functional>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/sha.h>

#include "core/util/base64.hpp"
#include "server/auth/secure_file.hpp"
#include "server/auth/x509.hpp"

namespace kw::auth {

struct PublicKey::Key {
  x509::KeyPtr pkey;
};
struct SigningKey::Key {
  x509::KeyPtr pkey;
};

namespace {

using x509::BioPtr;
struct MdContextFree {
  void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};
using MdContextPtr = std::unique_ptr<EVP_MD_CTX, MdContextFree>;
struct SigFree {
  void operator()(ECDSA_SIG* sig) const { ECDSA_SIG_free(sig); }
};
using SigPtr = std::unique_ptr<ECDSA_SIG, SigFree>;
struct BnFree {
  void operator()(BIGNUM* bn) const { BN_free(bn); }
};
using BnPtr = std::unique_ptr<BIGNUM, BnFree>;

// The JWS algorithm of a key; "" for a key type tokens are not signed with.
std::string algorithm_of(EVP_PKEY* key) {
  if (EVP_PKEY_is_a(key, "RSA")) return "RS256";
  if (!EVP_PKEY_is_a(key, "EC")) return "";
  switch (EVP_PKEY_get_bits(key)) {
    case 256: return "ES256";
    case 384: return "ES384";
    case 521: return "ES512";
    default: return "";
  }
}

const EVP_MD* digest_of(const std::string& algorithm) {
  if (algorithm.ends_with("384")) return EVP_sha384();
  if (algorithm.ends_with("512")) return EVP_sha512();
  return EVP_sha256();
}

// Bytes of r and of s in an ECDSA JWS signature (RFC 7518 section 3.4).
std::size_t ec_half(EVP_PKEY* key) { return (static_cast<std::size_t>(EVP_PKEY_get_bits(key)) + 7) / 8; }

// kube's key id: base64url(SHA-256(DER SubjectPublicKeyInfo)).
std::string key_id_of(EVP_PKEY* key) {
  unsigned char* der = nullptr;
  const int length = i2d_PUBKEY(key, &der);
  if (length <= 0) return "";
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(der, static_cast<std::size_t>(length), digest.data());
  OPENSSL_free(der);
  return util::base64url_encode(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

std::string big_endian(EVP_PKEY* key, const char* param, std::size_t width = 0) {
  BIGNUM* raw = nullptr;
  if (EVP_PKEY_get_bn_param(key, param, &raw) != 1) return "";
  BnPtr number(raw);
  std::string bytes(width == 0 ? static_cast<std::size_t>(BN_num_bytes(raw)) : width, '\0');
  BN_bn2binpad(raw, reinterpret_cast<unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  return util::base64url_encode(bytes);
}

// The public half of `key` as its own EVP_PKEY.
x509::KeyPtr public_half(EVP_PKEY* key) {
  unsigned char* der = nullptr;
  const int length = i2d_PUBKEY(key, &der);
  if (length <= 0) return nullptr;
  const unsigned char* cursor = der;
  x509::KeyPtr out(d2i_PUBKEY(nullptr, &cursor, length));
  OPENSSL_free(der);
  return out;
}

// Keys of every PEM block in `text` that holds one (public keys, certificates, private keys).
std::vector<x509::KeyPtr> keys_in_pem(const std::string& text) {
  std::vector<x509::KeyPtr> keys;
  BioPtr bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
  while (true) {
    char* name = nullptr;
    char* header = nullptr;
    unsigned char* data = nullptr;
    long length = 0;
    if (PEM_read_bio(bio.get(), &name, &header, &data, &length) != 1) break;
    const std::string kind = name;
    const unsigned char* cursor = data;
    x509::KeyPtr key;
    if (kind == "PUBLIC KEY") {
      key.reset(d2i_PUBKEY(nullptr, &cursor, length));
    } else if (kind == "RSA PUBLIC KEY") {
      key.reset(d2i_PublicKey(EVP_PKEY_RSA, nullptr, &cursor, length));
    } else if (kind == "CERTIFICATE") {
      x509::CertPtr cert(d2i_X509(nullptr, &cursor, length));
      if (cert) key.reset(X509_get_pubkey(cert.get()));
    } else if (kind == "PRIVATE KEY" || kind == "RSA PRIVATE KEY" || kind == "EC PRIVATE KEY") {
      x509::KeyPtr private_key(d2i_AutoPrivateKey(nullptr, &cursor, length));
      if (private_key) key = public_half(private_key.get());
    }
    OPENSSL_free(name);
    OPENSSL_free(header);
    OPENSSL_free(data);
    if (key && !algorithm_of(key.get()).empty()) keys.push_back(std::move(key));
  }
  ERR_clear_error();  // the loop ends on "no start line"
  return keys;
}

std::optional<nlohmann::json> decode_part(std::string_view part) {
  auto bytes = util::base64url_decode(part);
  if (!bytes) return std::nullopt;
  auto parsed = nlohmann::json::parse(*bytes, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) return std::nullopt;
  return parsed;
}

// header, payload and signature of a compact token; nullopt unless exactly three parts.
std::optional<std::array<std::string_view, 3>> split(std::string_view token) {
  const auto first = token.find('.');
  if (first == std::string_view::npos) return std::nullopt;
  const auto second = token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos) return std::nullopt;
  return std::array<std::string_view, 3>{token.substr(0, first), token.substr(first + 1, second - first - 1),
                                         token.substr(second + 1)};
}

}  // namespace

PublicKey::PublicKey(std::unique_ptr<Key> key) : m_key(std::move(key)) {
  m_key_id = key_id_of(m_key->pkey.get());
  m_algorithm = algorithm_of(m_key->pkey.get());
}
PublicKey::~PublicKey() = default;
PublicKey::PublicKey(PublicKey&&) noexcept = default;
PublicKey& PublicKey::operator=(PublicKey&&) noexcept = default;

nlohmann::json PublicKey::jwk() const {
  EVP_PKEY* key = m_key->pkey.get();
  nlohmann::json out = {{"use", "sig"}, {"kid", m_key_id}, {"alg", m_algorithm}};
  if (EVP_PKEY_is_a(key, "RSA")) {
    out["kty"] = "RSA";
    out["n"] = big_endian(key, OSSL_PKEY_PARAM_RSA_N);
    out["e"] = big_endian(key, OSSL_PKEY_PARAM_RSA_E);
  } else {
    const std::size_t half = ec_half(key);
    out["kty"] = "EC";
    out["crv"] = half == 32 ? "P-256" : half == 48 ? "P-384" : "P-521";
    out["x"] = big_endian(key, OSSL_PKEY_PARAM_EC_PUB_X, half);
    out["y"] = big_endian(key, OSSL_PKEY_PARAM_EC_PUB_Y, half);
  }
  return out;
}

bool PublicKey::verifies(std::string_view signed_part, std::string_view signature) const {
  EVP_PKEY* key = m_key->pkey.get();
  std::string der(signature);
  if (EVP_PKEY_is_a(key, "EC")) {  // r || s, each ec_half bytes, to the DER OpenSSL checks
    const std::size_t half = ec_half(key);
    if (signature.size() != 2 * half) return false;
    SigPtr sig(ECDSA_SIG_new());
    auto* r = BN_bin2bn(reinterpret_cast<const unsigned char*>(signature.data()), static_cast<int>(half), nullptr);
    auto* s = BN_bin2bn(reinterpret_cast<const unsigned char*>(signature.data() + half), static_cast<int>(half), nullptr);
    if (ECDSA_SIG_set0(sig.get(), r, s) != 1) {
      BN_free(r);
      BN_free(s);
      return false;
    }
    unsigned char* encoded = nullptr;
    const int length = i2d_ECDSA_SIG(sig.get(), &encoded);
    if (length <= 0) return false;
    der.assign(reinterpret_cast<const char*>(encoded), static_cast<std::size_t>(length));
    OPENSSL_free(encoded);
  }
  MdContextPtr context(EVP_MD_CTX_new());
  const bool ok =
      EVP_DigestVerifyInit(context.get(), nullptr, digest_of(m_algorithm), nullptr, key) == 1 &&
      EVP_DigestVerify(context.get(), reinterpret_cast<const unsigned char*>(der.data()), der.size(),
                       reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size()) == 1;
  ERR_clear_error();
  return ok;
}

SigningKey::~SigningKey() = default;
SigningKey::SigningKey(SigningKey&&) noexcept = default;
SigningKey& SigningKey::operator=(SigningKey&&) noexcept = default;

Result<SigningKey> SigningKey::load(const std::string& file) {
  auto loaded = x509::load_key(file);
  if (!loaded) return std::unexpected(loaded.error());
  if (algorithm_of(loaded->get()).empty())
    return fail("the service account signing key " + file + " is neither RSA nor ECDSA P-256/384/521");
  SigningKey key;
  auto half = public_half(loaded->get());
  if (!half) return fail(x509::openssl_error("cannot read the public half of " + file));
  key.m_public.reset(new PublicKey(std::make_unique<PublicKey::Key>(PublicKey::Key{std::move(half)})));
  key.m_key = std::make_unique<Key>(Key{std::move(*loaded)});
  return key;
}

Result<SigningKey> SigningKey::generate(const std::string& file, Kind kind) {
  x509::KeyPtr generated(kind == Kind::rsa_2048 ? EVP_RSA_gen(2048) : EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!generated) return fail(x509::openssl_error("cannot generate a signing key"));
  if (auto written = write_file_atomic(file, x509::to_pem(generated.get()), 0600); !written)
    return std::unexpected(written.error());
  return load(file);
}

Result<std::string> SigningKey::sign(const nlohmann::json& claims) const {
  const PublicKey& pub = *m_public;
  const nlohmann::json header = {{"alg", pub.algorithm()}, {"kid", pub.key_id()}};
  const std::string signed_part = util::base64url_encode(header.dump()) + "." + util::base64url_encode(claims.dump());
  EVP_PKEY* key = m_key->pkey.get();
  MdContextPtr context(EVP_MD_CTX_new());
  std::size_t length = 0;
  if (EVP_DigestSignInit(context.get(), nullptr, digest_of(pub.algorithm()), nullptr, key) != 1 ||
      EVP_DigestSign(context.get(), nullptr, &length, reinterpret_cast<const unsigned char*>(signed_part.data()),
                     signed_part.size()) != 1)
    return fail(x509::openssl_error("cannot sign the token"));
  std::string signature(length, '\0');
  if (EVP_DigestSign(context.get(), reinterpret_cast<unsigned char*>(signature.data()), &length,
                     reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size()) != 1)
    return fail(x509::openssl_error("cannot sign the token"));
  signature.resize(length);
  if (EVP_PKEY_is_a(key, "EC")) {  // DER to r || s
    const auto* cursor = reinterpret_cast<const unsigned char*>(signature.data());
    SigPtr sig(d2i_ECDSA_SIG(nullptr, &cursor, static_cast<long>(signature.size())));
    if (!sig) return fail("cannot read the ECDSA signature");
    const std::size_t half = ec_half(key);
    std::string raw(2 * half, '\0');
    BN_bn2binpad(ECDSA_SIG_get0_r(sig.get()), reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(half));
    BN_bn2binpad(ECDSA_SIG_get0_s(sig.get()), reinterpret_cast<unsigned char*>(raw.data() + half), static_cast<int>(half));
    signature = std::move(raw);
  }
  return signed_part + "." + util::base64url_encode(signature);
}

Result<std::vector<PublicKey>> load_public_keys(const std::vector<std::string>& files) {
  std::vector<PublicKey> out;
  for (const auto& file : files) {
    auto text = read_file(file);
    if (!text) return std::unexpected(text.error());
    auto keys = keys_in_pem(*text);
    if (keys.empty()) return fail("no RSA or ECDSA public key, certificate or private key in " + file);
    for (auto& key : keys) out.push_back(PublicKey(std::make_unique<PublicKey::Key>(PublicKey::Key{std::move(key)})));
  }
  return out;
}

namespace {

struct ParamBuildFree {
  void operator()(OSSL_PARAM_BLD* build) const { OSSL_PARAM_BLD_free(build); }
};
struct ParamsFree {
  void operator()(OSSL_PARAM* params) const { OSSL_PARAM_free(params); }
};
struct KeyContextFree {
  void operator()(EVP_PKEY_CTX* context) const { EVP_PKEY_CTX_free(context); }
};

std::optional<std::string> jwk_bytes(const nlohmann::json& jwk, const char* key) {
  const auto found = jwk.find(key);
  if (found == jwk.end() || !found->is_string()) return std::nullopt;
  return util::base64url_decode(found->get<std::string>());
}

// An EVP_PKEY of `type` ("RSA", "EC") from the parameters `add` pushes.
x509::KeyPtr key_from_params(const char* type, const std::function<bool(OSSL_PARAM_BLD*)>& add) {
  std::unique_ptr<OSSL_PARAM_BLD, ParamBuildFree> build(OSSL_PARAM_BLD_new());
  if (!build || !add(build.get())) return nullptr;
  std::unique_ptr<OSSL_PARAM, ParamsFree> params(OSSL_PARAM_BLD_to_param(build.get()));
  std::unique_ptr<EVP_PKEY_CTX, KeyContextFree> context(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  EVP_PKEY* key = nullptr;
  if (!params || !context || EVP_PKEY_fromdata_init(context.get()) != 1 ||
      EVP_PKEY_fromdata(context.get(), &key, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    ERR_clear_error();
    return nullptr;
  }
  return x509::KeyPtr(key);
}

x509::KeyPtr key_from_jwk(const nlohmann::json& jwk) {
  const std::string type = jwk.value("kty", std::string());
  if (type == "RSA") {
    const auto n = jwk_bytes(jwk, "n"), e = jwk_bytes(jwk, "e");
    if (!n || !e) return nullptr;
    BnPtr modulus(BN_bin2bn(reinterpret_cast<const unsigned char*>(n->data()), static_cast<int>(n->size()), nullptr));
    BnPtr exponent(BN_bin2bn(reinterpret_cast<const unsigned char*>(e->data()), static_cast<int>(e->size()), nullptr));
    return key_from_params("RSA", [&](OSSL_PARAM_BLD* build) {
      return OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_N, modulus.get()) == 1 &&
             OSSL_PARAM_BLD_push_BN(build, OSSL_PKEY_PARAM_RSA_E, exponent.get()) == 1;
    });
  }
  if (type == "EC") {
    const std::string curve = jwk.value("crv", std::string());
    const char* group = curve == "P-256" ? "prime256v1" : curve == "P-384" ? "secp384r1" : curve == "P-521" ? "secp521r1" : nullptr;
    const auto x = jwk_bytes(jwk, "x"), y = jwk_bytes(jwk, "y");
    if (group == nullptr || !x || !y || x->size() != y->size()) return nullptr;
    const std::string point = "\x04" + *x + *y;  // uncompressed
    return key_from_params("EC", [&](OSSL_PARAM_BLD* build) {
      return OSSL_PARAM_BLD_push_utf8_string(build, OSSL_PKEY_PARAM_GROUP_NAME, group, 0) == 1 &&
             OSSL_PARAM_BLD_push_octet_string(build, OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size()) == 1;
    });
  }
  return nullptr;
}

}  // namespace

std::vector<PublicKey> public_keys_from_jwks(const nlohmann::json& jwks) {
  std::vector<PublicKey> out;
  const auto keys = jwks.find("keys");
  if (keys == jwks.end() || !keys->is_array()) return out;
  for (const auto& jwk : *keys) {
    if (!jwk.is_object() || jwk.value("use", std::string("sig")) != "sig") continue;
    auto key = key_from_jwk(jwk);
    if (!key || algorithm_of(key.get()).empty()) continue;
    out.push_back(PublicKey(std::make_unique<PublicKey::Key>(PublicKey::Key{std::move(key)})));
  }
  return out;
}

std::optional<nlohmann::json> verify(std::string_view token, const std::vector<PublicKey>& keys,
                                     const std::vector<std::string>& algorithms) {
  const auto parts = split(token);
  if (!parts) return std::nullopt;
  const auto header = decode_part((*parts)[0]);
  if (!header) return std::nullopt;
  const std::string algorithm = header->value("alg", std::string());
  if (!algorithms.empty() && std::find(algorithms.begin(), algorithms.end(), algorithm) == algorithms.end())
    return std::nullopt;
  const auto signature = util::base64url_decode((*parts)[2]);
  if (!signature) return std::nullopt;
  const std::string_view signed_part = token.substr(0, (*parts)[0].size() + 1 + (*parts)[1].size());
  for (const auto& key : keys) {
    if (key.algorithm() != algorithm || !key.verifies(signed_part, *signature)) continue;
    return decode_part((*parts)[1]);
  }
  return std::nullopt;
}

std::optional<nlohmann::json> unverified_claims(std::string_view token) {
  const auto parts = split(token);
  if (!parts) return std::nullopt;
  return decode_part((*parts)[1]);
}

}  // namespace kw::auth
