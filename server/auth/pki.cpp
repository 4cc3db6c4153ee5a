#include "server/auth/pki.hpp"

#include <filesystem>

#include "server/auth/secure_file.hpp"
#include "server/auth/x509.hpp"

namespace kw::auth {

namespace {

constexpr std::chrono::hours k_ca_lifetime{24 * 3650};
constexpr std::chrono::hours k_leaf_lifetime{24 * 365};
constexpr std::chrono::hours k_renew_margin{24 * 30};  // a leaf closer to expiry is issued again
constexpr mode_t k_key_mode = 0600;
constexpr mode_t k_cert_mode = 0644;
constexpr mode_t k_dir_mode = 0700;

struct Ca {
  x509::CertPtr cert;
  x509::KeyPtr key;
};

bool exists(const std::string& path) {
  std::error_code error;
  return std::filesystem::exists(path, error);
}

// The key goes first: a certificate on disk always has its key next to it.
Result<void> save(const std::string& cert_path, X509* cert, const std::string& key_path, EVP_PKEY* key) {
  if (auto written = write_file_atomic(key_path, x509::to_pem(key), k_key_mode); !written) return written;
  return write_file_atomic(cert_path, x509::to_pem(cert), k_cert_mode);
}

Result<Ca> generate_ca(const PkiFiles& files) {
  auto key = x509::generate_key();
  if (!key) return std::unexpected(key.error());
  const x509::CertSpec spec{
      .common_name = "kw-ca", .organizations = {}, .usage = x509::Usage::ca, .lifetime = k_ca_lifetime, .sans = {}};
  auto cert = x509::issue(spec, key->get(), nullptr, key->get());
  if (!cert) return std::unexpected(cert.error());
  if (auto saved = save(files.ca_cert, cert->get(), files.ca_key, key->get()); !saved) {
    return std::unexpected(saved.error());
  }
  return Ca{std::move(*cert), std::move(*key)};
}

Result<Ca> ensure_ca(const PkiFiles& files) {
  const bool have_cert = exists(files.ca_cert);
  const bool have_key = exists(files.ca_key);
  if (!have_cert && !have_key) return generate_ca(files);
  if (have_cert != have_key) {
    return fail(files.ca_cert + " and " + files.ca_key +
                " must both exist: restore the missing one, or remove the directory " + files.dir +
                " to start over with a new CA (clients must then fetch the new ca.crt)");
  }
  auto cert = x509::load_cert(files.ca_cert);
  if (!cert) return std::unexpected(cert.error());
  auto key = x509::load_key(files.ca_key);
  if (!key) return std::unexpected(key.error());
  if (!x509::key_matches(cert->get(), key->get())) {
    return fail(files.ca_key + " is not the key of " + files.ca_cert + ": restore the matching pair or remove " +
                files.dir + " to start over");
  }
  if (!x509::issued_by(cert->get(), cert->get(), std::chrono::hours{0})) {
    return fail(files.ca_cert + " is not a valid self-signed CA certificate (expired?): remove " + files.dir +
                " to start over with a new CA");
  }
  return Ca{std::move(*cert), std::move(*key)};
}

bool leaf_usable(const Ca& ca, const std::string& cert_path, const std::string& key_path, const x509::CertSpec& spec) {
  if (!exists(cert_path) || !exists(key_path)) return false;
  auto cert = x509::load_cert(cert_path);
  auto key = x509::load_key(key_path);
  if (!cert || !key) return false;
  return x509::issued_by(cert->get(), ca.cert.get(), k_renew_margin) && x509::key_matches(cert->get(), key->get()) &&
         (spec.usage != x509::Usage::server || x509::has_sans(cert->get(), spec.sans));
}

Result<void> ensure_leaf(const Ca& ca, const std::string& cert_path, const std::string& key_path,
                         const x509::CertSpec& spec) {
  if (leaf_usable(ca, cert_path, key_path, spec)) return {};
  auto key = x509::generate_key();
  if (!key) return std::unexpected(key.error());
  auto cert = x509::issue(spec, key->get(), ca.cert.get(), ca.key.get());
  if (!cert) return std::unexpected(cert.error());
  return save(cert_path, cert->get(), key_path, key->get());
}

}  // namespace

PkiFiles pki_paths(const std::string& dir) {
  const std::filesystem::path base(dir);
  auto at = [&](const char* name) { return (base / name).string(); };
  return PkiFiles{.dir = dir,
                  .ca_cert = at("ca.crt"),
                  .ca_key = at("ca.key"),
                  .serving_cert = at("serving.crt"),
                  .serving_key = at("serving.key"),
                  .admin_cert = at("admin.crt"),
                  .admin_key = at("admin.key")};
}

Result<PkiFiles> ensure_pki(const std::string& dir, const std::vector<std::string>& extra_sans) {
  std::vector<std::string> names = {"localhost", "127.0.0.1", "::1"};
  names.insert(names.end(), extra_sans.begin(), extra_sans.end());
  auto sans = x509::classify_sans(names);
  if (!sans) return std::unexpected(sans.error());
  if (auto made = ensure_private_dir(dir, k_dir_mode); !made) return std::unexpected(made.error());

  const PkiFiles files = pki_paths(dir);
  auto ca = ensure_ca(files);
  if (!ca) return std::unexpected(ca.error());
  const x509::CertSpec serving{.common_name = "kw-serving",
                               .organizations = {},
                               .usage = x509::Usage::server,
                               .lifetime = k_leaf_lifetime,
                               .sans = *sans};
  if (auto done = ensure_leaf(*ca, files.serving_cert, files.serving_key, serving); !done) {
    return std::unexpected(done.error());
  }
  const x509::CertSpec admin{.common_name = "kw-admin",
                             .organizations = {"system:masters"},
                             .usage = x509::Usage::client,
                             .lifetime = k_leaf_lifetime,
                             .sans = {}};
  if (auto done = ensure_leaf(*ca, files.admin_cert, files.admin_key, admin); !done) {
    return std::unexpected(done.error());
  }
  return files;
}

}  // namespace kw::auth
