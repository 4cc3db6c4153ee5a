#include "server/auth/kubeconfig_writer.hpp"

#include <functional>

#include <yaml-cpp/yaml.h>

#include "server/auth/secure_file.hpp"

namespace kw::auth {

namespace {

constexpr const char* k_name = "kw";

void emit_named(YAML::Emitter& out, const char* kind, const std::function<void()>& body) {
  out << YAML::BeginMap << YAML::Key << kind << YAML::Value << YAML::BeginMap;
  body();
  out << YAML::EndMap << YAML::Key << "name" << YAML::Value << k_name << YAML::EndMap;
}

}  // namespace

Result<std::string> admin_kubeconfig_yaml(const std::string& server_url, const PkiFiles& pki) {
  auto ca = read_file(pki.ca_cert);
  if (!ca) return std::unexpected(ca.error());
  auto cert = read_file(pki.admin_cert);
  if (!cert) return std::unexpected(cert.error());
  auto key = read_file(pki.admin_key);
  if (!key) return std::unexpected(key.error());

  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "v1";
  out << YAML::Key << "kind" << YAML::Value << "Config";
  out << YAML::Key << "clusters" << YAML::Value << YAML::BeginSeq;
  emit_named(out, "cluster", [&] {
    out << YAML::Key << "certificate-authority-data" << YAML::Value << base64_encode(*ca);
    out << YAML::Key << "server" << YAML::Value << server_url;
  });
  out << YAML::EndSeq;
  out << YAML::Key << "users" << YAML::Value << YAML::BeginSeq;
  emit_named(out, "user", [&] {
    out << YAML::Key << "client-certificate-data" << YAML::Value << base64_encode(*cert);
    out << YAML::Key << "client-key-data" << YAML::Value << base64_encode(*key);
  });
  out << YAML::EndSeq;
  out << YAML::Key << "contexts" << YAML::Value << YAML::BeginSeq;
  emit_named(out, "context", [&] {
    out << YAML::Key << "cluster" << YAML::Value << k_name;
    out << YAML::Key << "user" << YAML::Value << k_name;
  });
  out << YAML::EndSeq;
  out << YAML::Key << "current-context" << YAML::Value << k_name;
  out << YAML::Key << "preferences" << YAML::Value << YAML::BeginMap << YAML::EndMap;
  out << YAML::EndMap;
  if (!out.good()) return fail("cannot write the kubeconfig: " + out.GetLastError());
  return std::string(out.c_str()) + "\n";
}

Result<void> write_admin_kubeconfig(const std::string& path, const std::string& server_url, const PkiFiles& pki) {
  auto yaml = admin_kubeconfig_yaml(server_url, pki);
  if (!yaml) return std::unexpected(yaml.error());
  return write_file_atomic(path, *yaml, 0600);
}

}  // namespace kw::auth
