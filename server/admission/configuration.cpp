#include "server/admission/configuration.hpp"

#include <filesystem>

#include "core/codec/yaml.hpp"
#include "core/util/text.hpp"
#include "server/auth/secure_file.hpp"

namespace kw::admission {
namespace {

// The one document of a YAML or JSON file, which must be an object.
Result<nlohmann::json> read_object(const std::string& path) {
  auto text = auth::read_file(path);
  if (!text) return std::unexpected(text.error());
  auto documents = codec::yaml_to_json(*text);
  if (!documents) return fail("unable to read admission control configuration from " + util::go_quote(path) + ": " +
                              documents.error().message);
  if (documents->size() != 1 || !documents->front().is_object())
    return fail("unable to read admission control configuration from " + util::go_quote(path) +
                ": expected one object");
  return std::move(documents->front());
}

}  // namespace

Result<PluginConfigurations> read_admission_configuration(const std::string& path) {
  auto file = read_object(path);
  if (!file) return std::unexpected(file.error());
  const std::string api_version = file->value("apiVersion", std::string());
  if (file->value("kind", std::string()) != "AdmissionConfiguration" ||
      (api_version != "apiserver.config.k8s.io/v1" && api_version != "apiserver.k8s.io/v1alpha1"))
    return fail(util::go_quote(path) + " is not an AdmissionConfiguration of apiserver.config.k8s.io/v1 (apiVersion " +
                util::go_quote(api_version) + ", kind " + util::go_quote(file->value("kind", std::string())) + ")");
  PluginConfigurations out;
  const auto folder = std::filesystem::path(path).parent_path();
  for (const auto& plugin : file->value("plugins", nlohmann::json::array())) {
    if (!plugin.is_object()) return fail(util::go_quote(path) + ": plugins must be objects");
    const std::string name = plugin.value("name", std::string());
    if (name.empty()) return fail(util::go_quote(path) + ": a plugin entry has no name");
    if (auto inline_config = plugin.find("configuration"); inline_config != plugin.end() && !inline_config->is_null()) {
      out[name] = *inline_config;
      continue;
    }
    const std::string file_path = plugin.value("path", std::string());
    if (file_path.empty()) continue;  // named, without configuration
    const auto resolved = std::filesystem::path(file_path).is_absolute() ? std::filesystem::path(file_path)
                                                                          : folder / file_path;
    auto config = read_object(resolved.string());
    if (!config) return std::unexpected(config.error());
    out[name] = std::move(*config);
  }
  return out;
}

}  // namespace kw::admission
