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
#include "server/registry/validation.hpp"
#include "server/registry/webhook_client.hpp"
#include "core/codec/json_limits.hpp"
#include "core/util/text.hpp"
#include "core/util/uuid.hpp"

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

namespace {

constexpr std::chrono::seconds k_conversion_timeout{30};  // kube-apiserver's webhook client's

std::string go_gvk(const nlohmann::json& object) {
  return api::go_group_version_kind(object.value("apiVersion", std::string()), object.value("kind", std::string()));
}

// What a conversion webhook may not change: every field of metadata but labels and annotations
// (kube's validateConvertedObject and restoreObjectMeta). "" when the converted object keeps them.
std::string changed_identity(const nlohmann::json& original, const nlohmann::json& converted) {
  const auto before = original.value("metadata", nlohmann::json::object());
  const auto after = converted.value("metadata", nlohmann::json::object());
  if (!converted.contains("metadata") || !after.is_object()) return "missing metadata in converted object";
  if (original.value("kind", "") != converted.value("kind", ""))
    return "must have the same kind: " + original.value("kind", std::string()) + " != " +
           converted.value("kind", std::string());
  for (const char* field : {"name", "namespace", "uid"})
    if (before.value(field, "") != after.value(field, ""))
      return std::string("must have the same ") + (std::string(field) == "uid" ? "UID" : field) + ": " +
             before.value(field, std::string()) + " != " + after.value(field, std::string());
  return "";
}

}  // namespace

ApiResult<nlohmann::json> Registry::convert_custom(const api::ResourceInfo& info, nlohmann::json object,
                                                   const std::string& api_version) {
  std::vector<nlohmann::json> one;
  one.push_back(std::move(object));
  if (auto converted = convert_custom_all(info, one, api_version, false); !converted)
    return std::unexpected(converted.error());
  return std::move(one.front());
}

ApiResult<void> Registry::convert_custom_all(const api::ResourceInfo& info, std::vector<nlohmann::json>& objects,
                                             const std::string& api_version, bool list) {
  std::vector<std::size_t> due;  // the objects not at api_version yet
  for (std::size_t i = 0; i < objects.size(); ++i)
    if (objects[i].value("apiVersion", std::string()) != api_version) due.push_back(i);
  if (due.empty()) return {};
  const auto definition = definition_for(info);
  if (!definition || definition->conversion_webhook.is_null()) {
    for (const auto i : due) objects[i]["apiVersion"] = api_version;  // conversion None
    return {};
  }
  const auto& webhook = definition->conversion_webhook;
  // A list page is converted as kube converts the list read from storage: its failures name the
  // list kind at the storage version.
  const std::string gvk = list ? api::go_group_version_kind(info.group + "/" + info.storage_version, info.list_kind)
                               : go_gvk(objects[due.front()]);
  auto failed = [&](const std::string& why) {
    return std::unexpected(internal_error("conversion webhook for " + gvk + " failed: " + why));
  };
  std::string review_version;
  for (const auto& accepted : webhook.value("conversionReviewVersions", nlohmann::json::array()))
    if (accepted == "v1" || accepted == "v1beta1") {
      review_version = accepted.get<std::string>();
      break;
    }
  if (review_version.empty()) return failed("no supported conversion review versions");
  const std::string uid = util::new_uuid();
  nlohmann::json sent = nlohmann::json::array();
  for (const auto i : due) sent.push_back(objects[i]);
  const nlohmann::json review = {
      {"kind", "ConversionReview"},
      {"apiVersion", "apiextensions.k8s.io/" + review_version},
      {"request", {{"uid", uid}, {"desiredAPIVersion", api_version}, {"objects", std::move(sent)}}}};
  const auto client = WebhookClient::from_json(webhook.value("clientConfig", nlohmann::json::object()));
  auto body = post_to_webhook(*this, client, k_conversion_timeout, "kube-apiserver", review.dump());
  if (!body) return failed(body.error().message);
  auto answer = codec::parse_json(*body);
  if (!answer || !answer->is_object()) return failed("couldn't get version/kind; json parse error");
  const auto response = answer->value("response", nlohmann::json());
  if (!response.is_object()) return failed("no response provided");
  if (review_version == "v1" && response.value("uid", "") != uid)
    return failed("expected response.uid=" + util::go_quote(uid) + ", got " + util::go_quote(response.value("uid", std::string())));
  const auto result = response.value("result", nlohmann::json::object());
  if (result.value("status", "") != "Success") {
    const std::string message = result.value("message", std::string());
    return failed(message.empty() ? "response.result.status was '" + result.value("status", std::string()) +
                                        "', not 'Success'"
                                  : message);
  }
  const auto converted = response.value("convertedObjects", nlohmann::json::array());
  const std::size_t returned = converted.is_array() ? converted.size() : 0;
  // A list's items are named by their place in the answer, counted from 1 once decoded (as kube
  // counts them); a single object's is index 0.
  if (list && returned != due.size())
    return std::unexpected(internal_error("conversion webhook for " + gvk + " returned " + std::to_string(returned) +
                                          " objects, expected " + std::to_string(due.size())));
  if (!list && (returned != 1 || !converted[0].is_object()))
    return failed("returned " + std::to_string(returned) + " objects, expected 1");
  for (std::size_t n = 0; n < due.size(); ++n) {
    nlohmann::json& original = objects[due[n]];
    auto invalid_object = [&](const std::string& why) {
      const std::string where = list ? "returned invalid converted object at index " + std::to_string(n + 1)
                                     : "returned invalid object at index 0";
      return std::unexpected(internal_error("conversion webhook for " + gvk + " " + where + ": " + why));
    };
    if (!converted[n].is_object())
      return std::unexpected(internal_error("conversion webhook for " + gvk +
                                            " returned invalid converted object at index " + std::to_string(n) +
                                            ": not an object"));
    nlohmann::json out = converted[n];
    if (out.value("apiVersion", "") != api_version)
      return invalid_object("invalid groupVersion (expected " + api_version + ", received " +
                            out.value("apiVersion", std::string()) + ")");
    if (const auto why = changed_identity(original, out); !why.empty()) return invalid_object(why);
    // Everything in metadata but labels and annotations is the original's.
    nlohmann::json meta = original["metadata"];
    const auto& new_meta = out["metadata"];
    for (const char* kept : {"labels", "annotations"}) {
      if (new_meta.contains(kept)) meta[kept] = new_meta[kept];
      else meta.erase(kept);
    }
    out["metadata"] = std::move(meta);
    original = std::move(out);
  }
  return {};
}

ApiResult<nlohmann::json> Registry::normalize_custom(const api::ResourceInfo& info, nlohmann::json object,
                                                     const WriteOptions& options, const nlohmann::json* old) const {
  const auto definition = definition_for(info);
  const crd::Version* version = definition ? definition->find_version(info.version) : nullptr;
  if (!version || !version->schema.is_object()) return object;
  std::vector<std::string> unknown;
  for (const auto& path : crd::prune_custom_object(version->schema, object))
    unknown.push_back("unknown field \"" + path + "\"");
  const auto problems = field_problems(options.duplicate_fields, unknown, false);
  if (!problems.empty() && options.field_validation == codec::FieldValidation::Strict)
    return std::unexpected(strict_decoding_error(problems));
  if (options.field_validation == codec::FieldValidation::Warn && options.warnings)
    options.warnings->insert(options.warnings->end(), problems.begin(), problems.end());
  crd::default_custom_object(version->schema, object);
  if (auto checked = check_custom(info, object, old); !checked) return std::unexpected(checked.error());
  return object;
}

ApiResult<void> Registry::check_custom(const api::ResourceInfo& info, const nlohmann::json& object,
                                       const nlohmann::json* old) const {
  const auto definition = definition_for(info);
  const crd::Version* version = definition ? definition->find_version(info.version) : nullptr;
  if (!version || !version->schema.is_object()) return {};
  auto causes = crd::validate_custom_object(version->schema, object, old);
  if (causes.empty()) return {};
  const std::string name = object.value("metadata", nlohmann::json::object()).value("name", "");
  const std::string summary = causes_summary(causes);
  return std::unexpected(invalid(info.group, info.kind, name, std::move(causes), summary));
}

void Registry::append_rule_causes(const api::ResourceInfo& info, const nlohmann::json& object,
                                  const nlohmann::json* old, nlohmann::json& causes) const {
  const auto definition = definition_for(info);
  const crd::Version* version = definition ? definition->find_version(info.version) : nullptr;
  if (version && version->rules) version->rules->validate(object, old, causes);
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
    auto page = m_backend.list(prefix, storage::ListOptions{0, k_delete_page, "", false});
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
