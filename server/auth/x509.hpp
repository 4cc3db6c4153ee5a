#pragma once
// OpenSSL 3 helpers behind the PKI: owning handles, key generation, issuing X.509 v3
// certificates (SHA-256) and reading them back. Internal to server/auth.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include "core/util/error.hpp"

namespace kw::auth::x509 {

struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct CertFree {
  void operator()(X509* cert) const { X509_free(cert); }
};
struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyFree>;
using CertPtr = std::unique_ptr<X509, CertFree>;
using BioPtr = std::unique_ptr<BIO, BioFree>;

enum class Usage { ca, server, client };

struct SubjectAltNames {
  std::vector<std::string> dns;
  std::vector<std::string> ips;  // textual IPv4 / IPv6 literals
};

struct CertSpec {
  std::string common_name;
  std::vector<std::string> organizations;
  Usage usage = Usage::server;
  std::chrono::hours lifetime{24 * 365};
  SubjectAltNames sans;  // server certificates only
};

// Splits SAN strings: IP literals (optionally in [brackets]) to ips, the rest to dns.
// Rejects empty names and names with characters a DNS name cannot hold.
Result<SubjectAltNames> classify_sans(const std::vector<std::string>& names);

// `what`, followed by the oldest queued OpenSSL error (the queue is cleared).
std::string openssl_error(const std::string& what);

Result<KeyPtr> generate_key();  // ECDSA P-256
// Issues a certificate for `key`'s public half, signed by `issuer_key`; `issuer` null = self-signed.
Result<CertPtr> issue(const CertSpec& spec, EVP_PKEY* key, X509* issuer, EVP_PKEY* issuer_key);

std::string to_pem(X509* cert);
std::string to_pem(EVP_PKEY* key);  // PKCS#8
Result<CertPtr> load_cert(const std::string& path);
Result<KeyPtr> load_key(const std::string& path);

// True when `cert` was signed by `ca` (chain of length one) and is valid for at least `margin`.
bool issued_by(X509* cert, X509* ca, std::chrono::hours margin);
bool key_matches(X509* cert, EVP_PKEY* key);
// True when every DNS name and IP of `wanted` is in `cert`'s subjectAltName.
bool has_sans(X509* cert, const SubjectAltNames& wanted);

}  // namespace kw::auth::x509
