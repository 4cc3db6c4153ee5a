// CustomResourceDefinitions in the registry: a stored CRD makes its resource served (table
// entries, one watch cache per served version), its schema prunes and validates custom
// objects, and removing it removes its objects.
#include <algorithm>
#include <iostream>

#include "server/crd/schema.hpp"
#include "server/registry/registry.hpp"

#include <cstdlib>

#include "server/registry/kinds/kind_spec.hpp"
#include "server/registry/stored_value.hpp"

namespace kw::registry {
namespace {

// The row of the CustomResourceDefinition resource.
const api::ResourceInfo& definitions_info() { return kinds::kind_with(kinds::Lifecycle::definition).info; }

}  // namespace

namespace {

constexpr std::int64_t k_delete_page = 500;

std::string definition_name(const api::ResourceInfo& info) { return info.plural + "." + info.group; }

}  // namespace

std::shared_ptr<const crd::Definition> Registry::definition_for(const api::ResourceInfo& info) const {
  std::lock_guard lock(m_resources_mutex);
  auto found = m_definitions.find(definition_name(info));
  return found == m_definitions.end() ? nullptr : found->second;
}

nlohmann::json Registry::to_storage_version(const api::ResourceInfo& info, nlohmann::json object) const {
  object["apiVersion"] = info.group + "/" + info.storage_version;
  return object;
}

ApiResult<nlohmann::json> Registry::normalize_custom(const api::ResourceInfo& info, nlohmann::json object,
                                                     const WriteOptions& options) const {
  const auto definition = definition_for(info);
  const crd::Version* version = definition ? definition->find_version(info.version) : nullptr;
  if (!version || !version->schema.is_object()) return object;
  const auto pruned = crd::prune_custom_object(version->schema, object);
  if (!pruned.empty() && options.field_validation == codec::FieldValidation::Strict) {
    std::string message = "strict decoding error: ";
    for (std::size_t i = 0; i < pruned.size(); ++i)
      message += (i ? ", " : "") + std::string("unknown field \"") + pruned[i] + "\"";
    return std::unexpected(bad_request(message));
  }
  if (options.field_validation == codec::FieldValidation::Warn && options.warnings)
    for (const auto& path : pruned) options.warnings->push_back("unknown field \"" + path + "\"");
  crd::default_custom_object(version->schema, object);
  if (auto checked = check_custom(info, object); !checked) return std::unexpected(checked.error());
  return object;
}

ApiResult<void> Registry::check_custom(const api::ResourceInfo& info, const nlohmann::json& object) const {
  const auto definition = definition_for(info);
  const crd::Version* version = definition ? definition->find_version(info.version) : nullptr;
  if (!version || !version->schema.is_object()) return {};
  auto causes = crd::validate_custom_object(version->schema, object);
  if (causes.empty()) return {};
  const std::string name = object.value("metadata", nlohmann::json::object()).value("name", "");
  const std::string summary = causes_summary(causes);
  return std::unexpected(invalid(info.group, info.kind, name, std::move(causes), summary));
}

ApiResult<void> Registry::prepare_definition(nlohmann::json& crd, const nlohmann::json* previous) const {
  auto causes = crd::validate_definition(crd);
  if (previous && previous->contains("spec") && crd.contains("spec") && crd["spec"].is_object())
    for (const char* immutable : {"group", "scope"}) {
      const auto before = (*previous)["spec"].value(immutable, nlohmann::json());
      const auto after = crd["spec"].value(immutable, nlohmann::json());
      if (before != after)
        causes.push_back({{"reason", "FieldValueInvalid"},
                          {"message", "Invalid value: " + after.dump() + ": field is immutable"},
                          {"field", std::string("spec.") + immutable}});
    }
  if (!causes.empty()) {
    const std::string name = crd.value("metadata", nlohmann::json::object()).value("name", "");
    const std::string summary = causes_summary(causes);
    return std::unexpected(invalid(definitions_info().group, definitions_info().kind, name, std::move(causes), summary));
  }
  crd["status"] = crd::with_established_status(crd, now_rfc3339())["status"];
  return {};
}

storage::Result<void> Registry::install_definition(const nlohmann::json& crd) {
  std::lock_guard writer(m_definitions_write_mutex);
  auto definition = crd::parse_definition(crd);
  const auto infos = definition->resource_infos();
  // Caches first, so a resource is never in the table without one. A version served before
  // keeps its cache (and its watchers).
  for (const auto& info : infos)
    if (!cache_for(info))
      if (auto started = start_cache(info); !started) return started;
  std::shared_ptr<const crd::Definition> previous;
  {
    std::lock_guard lock(m_resources_mutex);
    auto table = std::make_shared<api::ResourceTable>(*m_resources);
    if (auto found = m_definitions.find(definition->name); found != m_definitions.end()) {
      previous = found->second;
      for (const auto& info : previous->resource_infos()) table->remove(info.group, info.version, info.plural);
    }
    for (const auto& info : infos) table->add(info);
    m_definitions[definition->name] = definition;
    m_resources = std::move(table);
  }
  if (!previous) return {};
  // Versions no longer served lose their caches (their watchers are closed).
  std::vector<std::shared_ptr<cache::WatchCache>> stopped;
  {
    std::lock_guard lock(m_caches_mutex);
    for (const auto& old : previous->resource_infos()) {
      const bool still = std::any_of(infos.begin(), infos.end(), [&](const api::ResourceInfo& i) {
        return i.version == old.version && i.plural == old.plural;
      });
      if (still) continue;
      if (auto found = m_caches.find(cache_key(old)); found != m_caches.end()) {
        stopped.push_back(std::move(found->second));
        m_caches.erase(found);
      }
    }
  }
  return {};
}

void Registry::uninstall_definition(const std::string& name) {
  std::shared_ptr<const crd::Definition> definition;
  {
    std::lock_guard lock(m_resources_mutex);
    auto found = m_definitions.find(name);
    if (found == m_definitions.end()) return;
    definition = found->second;
    auto table = std::make_shared<api::ResourceTable>(*m_resources);
    for (const auto& info : definition->resource_infos()) table->remove(info.group, info.version, info.plural);
    m_definitions.erase(found);
    m_resources = std::move(table);
  }
  std::vector<std::shared_ptr<cache::WatchCache>> stopped;
  {
    std::lock_guard lock(m_caches_mutex);
    for (const auto& info : definition->resource_infos())
      if (auto found = m_caches.find(cache_key(info)); found != m_caches.end()) {
        stopped.push_back(std::move(found->second));
        m_caches.erase(found);
      }
  }
  // The caches stop here, outside the lock: their watchers see the stream end.
}

ApiResult<void> Registry::retire_definition(const std::string& name) {
  std::lock_guard writer(m_definitions_write_mutex);
  std::shared_ptr<const crd::Definition> definition;
  {
    std::lock_guard lock(m_resources_mutex);
    if (auto found = m_definitions.find(name); found != m_definitions.end()) definition = found->second;
  }
  if (!definition) return {};
  uninstall_definition(name);
  const std::string prefix = m_options.prefix + "/" + definition->group + "/" + definition->plural + "/";
  for (;;) {
    auto page = m_backend.list(prefix, storage::ListOptions{0, k_delete_page, ""});
    if (!page) return std::unexpected(from_storage(page.error(), definition->group, definition->plural, ""));
    for (const auto& kv : page->items) {
      auto removed = m_backend.remove(kv.key);
      if (!removed && removed.error().code != storage::ErrorCode::not_found)
        return std::unexpected(from_storage(removed.error(), definition->group, definition->plural, kv.key));
    }
    if (!page->more) return {};
  }
}

storage::Result<void> Registry::load_definitions() {
  const std::string prefix = key_prefix(definitions_info(), "");
  storage::ListOptions options{0, k_delete_page, ""};
  for (;;) {
    auto page = m_backend.list(prefix, options);
    if (!page) return std::unexpected(page.error());
    for (const auto& kv : page->items) {
      auto crd = decode_stored(definitions_info(), kv.value).value_or(nlohmann::json());
      if (!crd.is_object() || !crd::validate_definition(crd).empty()) {
        std::cerr << "kw serve: not serving the CustomResourceDefinition stored at " << kv.key
                  << ": it is not a valid apiextensions.k8s.io/v1 object; delete and recreate it\n";
        continue;
      }
      if (auto installed = install_definition(crd); !installed) return installed;
    }
    if (!page->more) return {};
    options.revision = page->revision;
    options.continue_key = page->items.back().key + '\0';
  }
}

}  // namespace kw::registry
