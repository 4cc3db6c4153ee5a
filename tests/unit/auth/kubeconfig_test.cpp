// The admin kubeconfig: YAML that yaml-cpp (and kubectl, see e2e_test.cpp) reads back, with the
// CA, the admin certificate and its key inline as base64.
#include <doctest/doctest.h>

#include <openssl/evp.h>
#include <yaml-cpp/yaml.h>

#include "auth_test_support.hpp"
#include "server/auth/kubeconfig_writer.hpp"

namespace kw::auth::test {

namespace {

std::string base64_decode(const std::string& text) {
  std::string out(text.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  REQUIRE(n >= 0);
  std::size_t size = static_cast<std::size_t>(n);
  if (text.ends_with("=="))
    size -= 2;
  else if (text.ends_with("="))
    size -= 1;
  out.resize(size);
  return out;
}

}  // namespace

TEST_CASE("kubeconfig: names kw everywhere and carries the credentials inline") {
  TempDir tmp;
  auto pki = ensure_pki(tmp.file("pki"), {});
  REQUIRE(pki);
  const std::string path = tmp.file("admin.kubeconfig");
  auto written = write_admin_kubeconfig(path, "https://127.0.0.1:6443", *pki);
  REQUIRE_MESSAGE(written, (written ? "" : written.error().message));
  CHECK(file_mode(path) == 0600);

  const YAML::Node config = YAML::LoadFile(path);
  CHECK(config["apiVersion"].as<std::string>() == "v1");
  CHECK(config["kind"].as<std::string>() == "Config");
  CHECK(config["current-context"].as<std::string>() == "kw");
  REQUIRE(config["clusters"].size() == 1);
  REQUIRE(config["users"].size() == 1);
  REQUIRE(config["contexts"].size() == 1);
  const YAML::Node cluster = config["clusters"][0];
  CHECK(cluster["name"].as<std::string>() == "kw");
  CHECK(cluster["cluster"]["server"].as<std::string>() == "https://127.0.0.1:6443");
  CHECK(base64_decode(cluster["cluster"]["certificate-authority-data"].as<std::string>()) == read_text(pki->ca_cert));
  const YAML::Node user = config["users"][0];
  CHECK(user["name"].as<std::string>() == "kw");
  CHECK(base64_decode(user["user"]["client-certificate-data"].as<std::string>()) == read_text(pki->admin_cert));
  CHECK(base64_decode(user["user"]["client-key-data"].as<std::string>()) == read_text(pki->admin_key));
  const YAML::Node context = config["contexts"][0];
  CHECK(context["name"].as<std::string>() == "kw");
  CHECK(context["context"]["cluster"].as<std::string>() == "kw");
  CHECK(context["context"]["user"].as<std::string>() == "kw");

  // Writing again replaces the file and keeps it private.
  REQUIRE(write_admin_kubeconfig(path, "https://kw.example.com:6443", *pki));
  CHECK(YAML::LoadFile(path)["clusters"][0]["cluster"]["server"].as<std::string>() == "https://kw.example.com:6443");
  CHECK(file_mode(path) == 0600);
}

TEST_CASE("kubeconfig: a missing certificate file is reported by path") {
  TempDir tmp;
  const PkiFiles pki = pki_paths(tmp.file("nothing-here"));
  auto written = write_admin_kubeconfig(tmp.file("kubeconfig"), "https://127.0.0.1:6443", pki);
  REQUIRE_FALSE(written);
  CHECK(written.error().message.find(pki.ca_cert) != std::string::npos);
}

}  // namespace kw::auth::test
