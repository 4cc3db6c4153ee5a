#include "server/auth/x509.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <ctime>
#include <optional>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "core/util/text.hpp"

namespace kw::auth::x509 {

namespace {

struct NamesFree {
  void operator()(GENERAL_NAMES* names) const { GENERAL_NAMES_free(names); }
};
using NamesPtr = std::unique_ptr<GENERAL_NAMES, NamesFree>;

// IP literal as network-order bytes (4 or 16), nullopt when `text` is not one.
std::optional<std::string> ip_bytes(const std::string& text) {
  std::array<unsigned char, 16> buffer{};
  if (inet_pton(AF_INET, text.c_str(), buffer.data()) == 1) return std::string(buffer.begin(), buffer.begin() + 4);
  if (inet_pton(AF_INET6, text.c_str(), buffer.data()) == 1) return std::string(buffer.begin(), buffer.end());
  return std::nullopt;
}

bool valid_dns_name(const std::string& name) {
  if (name.empty() || name.size() > 253 || name.front() == '.' || name.back() == '.') return false;
  return std::ranges::all_of(name, [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '.' || c == '*'; });
}

Result<void> add_ext(X509* cert, X509V3_CTX* ctx, int nid, const char* value) {
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, ctx, nid, value);
  if (ext == nullptr) return fail(openssl_error(std::string("cannot build the certificate extension ") + value));
  const int added = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  if (added != 1) return fail(openssl_error("cannot add a certificate extension"));
  return {};
}

Result<void> add_san(X509* cert, const SubjectAltNames& sans) {
  NamesPtr names(sk_GENERAL_NAME_new_null());
  if (!names) return fail("out of memory");
  auto push = [&](int type, const std::string& value) -> Result<void> {
    GENERAL_NAME* name = a2i_GENERAL_NAME(nullptr, nullptr, nullptr, type, value.c_str(), 0);
    if (name == nullptr) return fail(openssl_error("invalid subject alternative name \"" + value + "\""));
    sk_GENERAL_NAME_push(names.get(), name);
    return {};
  };
  for (const auto& dns : sans.dns) {
    if (auto pushed = push(GEN_DNS, dns); !pushed) return pushed;
  }
  for (const auto& ip : sans.ips) {
    if (auto pushed = push(GEN_IPADD, ip); !pushed) return pushed;
  }
  if (X509_add1_ext_i2d(cert, NID_subject_alt_name, names.get(), 0, X509V3_ADD_DEFAULT) != 1) {
    return fail(openssl_error("cannot add the subjectAltName extension"));
  }
  return {};
}

Result<void> add_extensions(X509* cert, X509* issuer, const CertSpec& spec) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer != nullptr ? issuer : cert, cert, nullptr, nullptr, 0);
  const bool ca = spec.usage == Usage::ca;
  const char* key_usage =
      ca ? "critical,keyCertSign,cRLSign,digitalSignature" : "critical,digitalSignature,keyEncipherment";
  for (auto [nid, value] : {std::pair{NID_basic_constraints, ca ? "critical,CA:TRUE" : "critical,CA:FALSE"},
                            std::pair{NID_key_usage, key_usage}, std::pair{NID_subject_key_identifier, "hash"},
                            std::pair{NID_authority_key_identifier, "keyid:always"}}) {
    if (auto added = add_ext(cert, &ctx, nid, value); !added) return added;
  }
  if (spec.usage == Usage::server) {
    if (auto added = add_ext(cert, &ctx, NID_ext_key_usage, "serverAuth"); !added) return added;
    return add_san(cert, spec.sans);
  }
  if (spec.usage == Usage::client) return add_ext(cert, &ctx, NID_ext_key_usage, "clientAuth");
  return {};
}

Result<void> set_subject(X509* cert, const CertSpec& spec) {
  X509_NAME* name = X509_get_subject_name(cert);
  auto add = [&](const char* field, const std::string& value) {
    return X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(value.c_str()),
                                      -1, -1, 0) == 1;
  };
  for (const auto& organization : spec.organizations) {
    if (!add("O", organization)) return fail(openssl_error("invalid organization \"" + organization + "\""));
  }
  if (!add("CN", spec.common_name)) return fail(openssl_error("invalid common name \"" + spec.common_name + "\""));
  return {};
}

Result<void> set_serial_and_validity(X509* cert, std::chrono::hours lifetime) {
  std::unique_ptr<BIGNUM, decltype(&BN_free)> serial(BN_new(), &BN_free);
  if (!serial || BN_rand(serial.get(), 159, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) != 1 ||
      BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert)) == nullptr) {
    return fail(openssl_error("cannot draw a certificate serial number"));
  }
  // Backdated an hour so a peer whose clock is a little behind accepts it at once.
  const long hours = static_cast<long>(lifetime.count());
  if (X509_gmtime_adj(X509_getm_notBefore(cert), -3600) == nullptr ||
      X509_time_adj_ex(X509_getm_notAfter(cert), static_cast<int>(hours / 24), (hours % 24) * 3600, nullptr) ==
          nullptr) {
    return fail(openssl_error("cannot set the certificate validity"));
  }
  return {};
}

}  // namespace

Result<SubjectAltNames> classify_sans(const std::vector<std::string>& names) {
  SubjectAltNames out;
  for (std::string name : names) {
    if (name.size() > 2 && name.front() == '[' && name.back() == ']') name = name.substr(1, name.size() - 2);
    if (ip_bytes(name)) {
      if (std::ranges::find(out.ips, name) == out.ips.end()) out.ips.push_back(name);
      continue;
    }
    if (!valid_dns_name(name)) {
      return fail("invalid subject alternative name \"" + name +
                  "\": give a DNS name (letters, digits, '-', '.') or an IP address");
    }
    name = util::to_lower(name);
    if (std::ranges::find(out.dns, name) == out.dns.end()) out.dns.push_back(name);
  }
  return out;
}

std::string openssl_error(const std::string& what) {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return what;
  std::array<char, 256> text{};
  ERR_error_string_n(code, text.data(), text.size());
  return what + ": " + text.data();
}

Result<KeyPtr> generate_key() {
  KeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) return fail(openssl_error("cannot generate an ECDSA P-256 key"));
  return key;
}

Result<CertPtr> issue(const CertSpec& spec, EVP_PKEY* key, X509* issuer, EVP_PKEY* issuer_key) {
  CertPtr cert(X509_new());
  if (!cert || X509_set_version(cert.get(), X509_VERSION_3) != 1)
    return fail(openssl_error("cannot create a certificate"));
  if (auto done = set_serial_and_validity(cert.get(), spec.lifetime); !done) return std::unexpected(done.error());
  if (auto done = set_subject(cert.get(), spec); !done) return std::unexpected(done.error());
  X509_NAME* issuer_name = issuer != nullptr ? X509_get_subject_name(issuer) : X509_get_subject_name(cert.get());
  if (X509_set_issuer_name(cert.get(), issuer_name) != 1 || X509_set_pubkey(cert.get(), key) != 1) {
    return fail(openssl_error("cannot fill the certificate"));
  }
  if (auto done = add_extensions(cert.get(), issuer, spec); !done) return std::unexpected(done.error());
  if (X509_sign(cert.get(), issuer_key, EVP_sha256()) <= 0) return fail(openssl_error("cannot sign the certificate"));
  return cert;
}

std::string to_pem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(bio.get(), cert);
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

std::string to_pem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

Result<CertPtr> load_cert(const std::string& path) {
  BioPtr bio(BIO_new_file(path.c_str(), "r"));
  if (!bio) return fail(openssl_error("cannot read " + path));
  CertPtr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) return fail(openssl_error(path + " holds no PEM certificate"));
  return cert;
}

Result<KeyPtr> load_key(const std::string& path) {
  BioPtr bio(BIO_new_file(path.c_str(), "r"));
  if (!bio) return fail(openssl_error("cannot read " + path));
  KeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) return fail(openssl_error(path + " holds no PEM private key"));
  return key;
}

bool issued_by(X509* cert, X509* ca, std::chrono::hours margin) {
  if (X509_check_issued(ca, cert) != X509_V_OK) return false;
  if (X509_verify(cert, X509_get0_pubkey(ca)) != 1) {
    ERR_clear_error();
    return false;
  }
  std::time_t deadline = std::time(nullptr) + static_cast<std::time_t>(margin.count()) * 3600;
  return X509_cmp_current_time(X509_get0_notBefore(cert)) < 0 && X509_cmp_time(X509_get0_notAfter(cert), &deadline) > 0;
}

bool key_matches(X509* cert, EVP_PKEY* key) {
  const bool ok = X509_check_private_key(cert, key) == 1;
  ERR_clear_error();
  return ok;
}

bool has_sans(X509* cert, const SubjectAltNames& wanted) {
  NamesPtr names(static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr)));
  if (!names) return wanted.dns.empty() && wanted.ips.empty();
  std::vector<std::string> dns, ips;
  for (int i = 0; i < sk_GENERAL_NAME_num(names.get()); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names.get(), i);
    if (name->type == GEN_DNS || name->type == GEN_IPADD) {
      const ASN1_STRING* value = name->type == GEN_DNS ? name->d.dNSName : name->d.iPAddress;
      std::string text(reinterpret_cast<const char*>(ASN1_STRING_get0_data(value)),
                       static_cast<std::size_t>(ASN1_STRING_length(value)));
      (name->type == GEN_DNS ? dns : ips).push_back(name->type == GEN_DNS ? util::to_lower(text) : text);
    }
  }
  const bool all_dns = std::ranges::all_of(
      wanted.dns, [&](const std::string& want) { return std::ranges::find(dns, util::to_lower(want)) != dns.end(); });
  const bool all_ips = std::ranges::all_of(wanted.ips, [&](const std::string& want) {
    const auto bytes = ip_bytes(want);
    return bytes && std::ranges::find(ips, *bytes) != ips.end();
  });
  return all_dns && all_ips;
}

}  // namespace kw::auth::x509
