#pragma once
// Compact JWS tokens (RFC 7515/7519) signed and verified with the keys kube-apiserver takes
// for ServiceAccount tokens: RSA (RS256) and ECDSA P-256/384/521 (ES256/384/512), from PEM
// files holding private keys, public keys or certificates.
//
//   auto key = SigningKey::load("/etc/kw/sa.key");
//   std::string token = key->sign(claims);                  // {"alg":"RS256","kid":...}
//   auto keys = load_public_keys({"/etc/kw/sa.pub"});
//   std::optional<nlohmann::json> claims = verify(token, *keys);  // nullopt: bad signature
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"

namespace kw::auth {

// A public key that verifies tokens: its key id (kube's: base64url of the SHA-256 of the
// DER SubjectPublicKeyInfo) and its JWK for /openid/v1/jwks.
class PublicKey {
 public:
  ~PublicKey();
  PublicKey(PublicKey&&) noexcept;
  PublicKey& operator=(PublicKey&&) noexcept;
  const std::string& key_id() const { return m_key_id; }
  const std::string& algorithm() const { return m_algorithm; }  // RS256, ES256, ...
  nlohmann::json jwk() const;
  // Whether `signature` signs `signed_part` (header.payload) with this key.
  bool verifies(std::string_view signed_part, std::string_view signature) const;

 private:
  friend class SigningKey;
  friend Result<std::vector<PublicKey>> load_public_keys(const std::vector<std::string>& files);
  friend std::vector<PublicKey> public_keys_from_jwks(const nlohmann::json& jwks);
  struct Key;
  explicit PublicKey(std::unique_ptr<Key> key);
  std::unique_ptr<Key> m_key;
  std::string m_key_id;
  std::string m_algorithm;
};

class SigningKey {
 public:
  // A PEM private key (PKCS#1, SEC1 or PKCS#8; RSA or ECDSA).
  static Result<SigningKey> load(const std::string& file);
  // A new key written to `file` (mode 0600) as PKCS#8 PEM: an ECDSA P-256 key (ES256, made at
  // once) or a 2048-bit RSA key (RS256; its prime search takes from 50 ms to a second).
  enum class Kind { ecdsa_p256, rsa_2048 };
  static Result<SigningKey> generate(const std::string& file, Kind kind);
  ~SigningKey();
  SigningKey(SigningKey&&) noexcept;
  SigningKey& operator=(SigningKey&&) noexcept;

  // header.payload.signature with {"alg", "kid"} as the header and `claims` as the payload.
  Result<std::string> sign(const nlohmann::json& claims) const;
  const PublicKey& public_key() const { return *m_public; }

 private:
  SigningKey() = default;
  struct Key;
  std::unique_ptr<Key> m_key;
  std::unique_ptr<PublicKey> m_public;
};

// Every key in `files` (kube's --service-account-key-file): public keys, certificates and
// private keys (their public half); a file with none is an error naming it.
Result<std::vector<PublicKey>> load_public_keys(const std::vector<std::string>& files);

// The keys of a JWK Set ({"keys": [...]}): RSA and EC P-256/384/521 signing keys; others
// (encryption keys, unknown types) are skipped.
std::vector<PublicKey> public_keys_from_jwks(const nlohmann::json& jwks);

// A token split and checked against `keys`: the claims when some key verifies its
// signature, nullopt otherwise (malformed, unknown algorithm, no key). A non-empty
// `algorithms` limits the algorithms accepted (e.g. {"RS256"}).
std::optional<nlohmann::json> verify(std::string_view token, const std::vector<PublicKey>& keys,
                                     const std::vector<std::string>& algorithms = {});
// The payload of a well-formed token without checking its signature (to route it by issuer).
std::optional<nlohmann::json> unverified_claims(std::string_view token);

}  // namespace kw::auth
