// PKI bootstrap: generated certificates chain to the CA (checked by the openssl CLI), carry
// the right names, usages and lifetimes, keep their keys private, and are reused or issued
// again as the SAN list asks.
#include <doctest/doctest.h>

#include <filesystem>

#include <openssl/pem.h>
#include <openssl/x509.h>

#include "auth_test_support.hpp"
#include "server/auth/pki.hpp"

namespace kw::auth::test {

namespace {

std::string openssl(const std::string& args) { return run_command("timeout 20 openssl " + args + " 2>&1").output; }

std::string cert_text(const std::string& path) { return openssl("x509 -noout -text -in " + path); }

// Days from now until the certificate at `path` expires.
int days_left(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "r");
  REQUIRE(file != nullptr);
  X509* cert = PEM_read_X509(file, nullptr, nullptr, nullptr);
  std::fclose(file);
  REQUIRE(cert != nullptr);
  int days = 0, seconds = 0;
  ASN1_TIME_diff(&days, &seconds, nullptr, X509_get0_notAfter(cert));
  X509_free(cert);
  return days;
}

bool verifies(const PkiFiles& pki, const std::string& cert, const std::string& purpose) {
  const auto result =
      run_command("timeout 20 openssl verify -purpose " + purpose + " -CAfile " + pki.ca_cert + " " + cert + " 2>&1");
  return result.exit_code == 0 && result.output == cert + ": OK\n";
}

}  // namespace

TEST_CASE("pki: first start generates a CA, a serving and an admin certificate that verify") {
  TempDir tmp;
  const std::string dir = tmp.file("nested/pki");
  auto pki = ensure_pki(dir, {"10.0.0.5", "kw.example.com", "[fd00::7]"});
  REQUIRE_MESSAGE(pki, (pki ? "" : pki.error().message));

  CHECK(verifies(*pki, pki->serving_cert, "sslserver"));
  CHECK(verifies(*pki, pki->admin_cert, "sslclient"));
  CHECK_FALSE(verifies(*pki, pki->admin_cert, "sslserver"));  // the admin cert is for clients only
  CHECK_FALSE(verifies(*pki, pki->serving_cert, "sslclient"));

  const std::string ca = cert_text(pki->ca_cert);
  CHECK(ca.find("Subject: CN = kw-ca") != std::string::npos);
  CHECK(ca.find("Issuer: CN = kw-ca") != std::string::npos);
  CHECK(ca.find("CA:TRUE") != std::string::npos);
  CHECK(ca.find("ecdsa-with-SHA256") != std::string::npos);
  CHECK(ca.find("P-256") != std::string::npos);
  CHECK(ca.find("Version: 3") != std::string::npos);

  const std::string serving = cert_text(pki->serving_cert);
  CHECK(serving.find("TLS Web Server Authentication") != std::string::npos);
  CHECK(serving.find("CA:FALSE") != std::string::npos);
  for (const char* san : {"DNS:localhost", "IP Address:127.0.0.1", "IP Address:0:0:0:0:0:0:0:1", "IP Address:10.0.0.5",
                          "DNS:kw.example.com", "IP Address:FD00:0:0:0:0:0:0:7"}) {
    CHECK_MESSAGE(serving.find(san) != std::string::npos, san);
  }
  CHECK(serving.find("DNS:10.0.0.5") == std::string::npos);

  const std::string admin = openssl("x509 -noout -subject -nameopt RFC2253 -in " + pki->admin_cert);
  CHECK(admin == "subject=CN=kw-admin,O=system:masters\n");
  CHECK(cert_text(pki->admin_cert).find("TLS Web Client Authentication") != std::string::npos);

  CHECK(days_left(pki->ca_cert) >= 3649);
  CHECK(days_left(pki->ca_cert) <= 3650);
  CHECK(days_left(pki->serving_cert) >= 364);
  CHECK(days_left(pki->serving_cert) <= 365);
  CHECK(days_left(pki->admin_cert) >= 364);

  CHECK(file_mode(dir) == 0700);
  for (const auto& key : {pki->ca_key, pki->serving_key, pki->admin_key}) CHECK(file_mode(key) == 0600);
  for (const auto& cert : {pki->ca_cert, pki->serving_cert, pki->admin_cert}) CHECK(file_mode(cert) == 0644);
  // Each key is the private half of its certificate.
  const auto pub = [&](const std::string& args) { return openssl(args + " | openssl sha256"); };
  CHECK(pub("pkey -pubout -in " + pki->serving_key) == pub("x509 -noout -pubkey -in " + pki->serving_cert));
  CHECK(pub("pkey -pubout -in " + pki->admin_key) == pub("x509 -noout -pubkey -in " + pki->admin_cert));
}

TEST_CASE("pki: a second start reuses the files, a new SAN re-issues only the serving certificate") {
  TempDir tmp;
  const std::string dir = tmp.file("pki");
  auto first = ensure_pki(dir, {"kw.example.com"});
  REQUIRE(first);
  const std::string ca = read_text(first->ca_cert), ca_key = read_text(first->ca_key);
  const std::string serving = read_text(first->serving_cert), serving_key = read_text(first->serving_key);
  const std::string admin = read_text(first->admin_cert);

  auto second = ensure_pki(dir, {"kw.example.com"});
  REQUIRE(second);
  CHECK(read_text(second->ca_cert) == ca);
  CHECK(read_text(second->ca_key) == ca_key);
  CHECK(read_text(second->serving_cert) == serving);
  CHECK(read_text(second->serving_key) == serving_key);
  CHECK(read_text(second->admin_cert) == admin);

  // Fewer SANs than the certificate has: still fine.
  REQUIRE(ensure_pki(dir, {}));
  CHECK(read_text(first->serving_cert) == serving);

  auto widened = ensure_pki(dir, {"kw.example.com", "192.168.1.9"});
  REQUIRE(widened);
  CHECK(read_text(widened->serving_cert) != serving);
  CHECK(read_text(widened->serving_key) != serving_key);
  CHECK(read_text(widened->ca_cert) == ca);
  CHECK(read_text(widened->admin_cert) == admin);
  const std::string text = cert_text(widened->serving_cert);
  CHECK(text.find("IP Address:192.168.1.9") != std::string::npos);
  CHECK(text.find("DNS:kw.example.com") != std::string::npos);
  CHECK(verifies(*widened, widened->serving_cert, "sslserver"));
  CHECK(file_mode(widened->serving_key) == 0600);
}

TEST_CASE("pki: damaged or foreign leaf certificates are issued again") {
  TempDir tmp;
  const std::string dir = tmp.file("pki");
  auto pki = ensure_pki(dir, {});
  REQUIRE(pki);
  write_text(pki->serving_cert, "not a certificate\n");
  std::filesystem::remove(pki->admin_key);
  REQUIRE(ensure_pki(dir, {}));
  CHECK(verifies(*pki, pki->serving_cert, "sslserver"));
  CHECK(verifies(*pki, pki->admin_cert, "sslclient"));
  CHECK(file_mode(pki->admin_key) == 0600);

  // A serving certificate from another CA is replaced by one from ours.
  TempDir other;
  auto foreign = ensure_pki(other.file("pki"), {});
  REQUIRE(foreign);
  std::filesystem::copy_file(foreign->serving_cert, pki->serving_cert,
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(foreign->serving_key, pki->serving_key, std::filesystem::copy_options::overwrite_existing);
  REQUIRE(ensure_pki(dir, {}));
  CHECK(verifies(*pki, pki->serving_cert, "sslserver"));
}

TEST_CASE("pki: errors a user can act on") {
  TempDir tmp;
  const std::string dir = tmp.file("pki");
  auto bad_san = ensure_pki(dir, {"bad name,with comma"});
  REQUIRE_FALSE(bad_san);
  CHECK(bad_san.error().message.find("bad name,with comma") != std::string::npos);

  auto pki = ensure_pki(dir, {});
  REQUIRE(pki);
  const std::string old_ca = read_text(pki->ca_cert);
  std::filesystem::remove(pki->ca_key);
  auto half = ensure_pki(dir, {});
  REQUIRE_FALSE(half);
  CHECK(half.error().message.find(pki->ca_key) != std::string::npos);
  CHECK(half.error().message.find("remove") != std::string::npos);
  CHECK(read_text(pki->ca_cert) == old_ca);  // never silently replaced

  // A key that does not belong to the CA certificate.
  TempDir other;
  auto foreign = ensure_pki(other.file("pki"), {});
  REQUIRE(foreign);
  std::filesystem::copy_file(foreign->ca_key, pki->ca_key);
  auto mismatch = ensure_pki(dir, {});
  REQUIRE_FALSE(mismatch);
  CHECK(mismatch.error().message.find("is not the key of") != std::string::npos);
}

}  // namespace kw::auth::test
