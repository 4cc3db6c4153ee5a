#include "server/apply/updater.hpp"

#include "server/apply/typed.hpp"

namespace kw::apply {
namespace {

UpdateError failure(std::string message) { return UpdateError{std::move(message), {}}; }

}  // namespace

std::expected<Updater::Compared, UpdateError> Updater::track(const nlohmann::json& live, const nlohmann::json& next,
                                                             ManagedFields managers, const std::string& workflow,
                                                             bool force) const {
  auto compared = compare(live, next, m_type);
  if (!compared) return std::unexpected(failure("failed to compare objects: " + compared.error()));
  compared->exclude(m_ignored);
  const Set changed = compared->modified.union_with(compared->added);

  std::map<std::string, Set> conflicts;
  for (const auto& [name, owned] : managers) {
    if (name == workflow) continue;
    Set clash = owned.set.intersection(changed);
    if (!clash.empty()) conflicts.emplace(name, std::move(clash));
  }
  if (!force && !conflicts.empty()) {
    UpdateError error;
    for (const auto& [name, clash] : conflicts)
      clash.iterate([&](const Path& path) { error.conflicts.push_back({name, path}); });
    return std::unexpected(std::move(error));
  }
  for (const auto& [name, clash] : conflicts) managers[name].set = managers[name].set.difference(clash);
  if (!compared->removed.empty())
    for (auto& [name, owned] : managers)
      if (name != workflow) owned.set = owned.set.difference(compared->removed);
  for (auto it = managers.begin(); it != managers.end();)
    it = it->second.set.empty() ? managers.erase(it) : std::next(it);
  return Compared{std::move(managers), std::move(*compared)};
}

std::expected<ManagedFields, UpdateError> Updater::update(const nlohmann::json& live, const nlohmann::json& next,
                                                           const std::string& version, ManagedFields managers,
                                                           const std::string& manager) const {
  auto tracked = track(live, next, std::move(managers), manager, true);
  if (!tracked) return std::unexpected(tracked.error());
  ManagedFields out = std::move(tracked->managers);
  const Comparison& c = tracked->comparison;
  VersionedSet& mine = out[manager];
  mine.set = mine.set.union_with(c.modified)
                 .union_with(c.added)
                 .difference(c.removed)
                 .recursive_difference(m_ignored);
  mine.api_version = version;
  mine.applied = false;
  if (mine.set.empty()) out.erase(manager);
  return out;
}

std::expected<nlohmann::json, UpdateError> Updater::prune(const nlohmann::json& merged, const ManagedFields& managers,
                                                          const VersionedSet* last) const {
  if (last == nullptr || last->set.empty()) return merged;
  // What the applier owned before and no longer sends...
  nlohmann::json pruned = remove_items(merged, ensure_named_fields_are_members(last->set, m_type), m_type);
  if (pruned.is_null()) pruned = nlohmann::json::object();
  // ...comes back where another manager (or the new configuration) still owns it...
  Set managed;
  for (const auto& [name, owned] : managers) managed = managed.union_with(owned.set);
  const Set all = ensure_named_fields_are_members(to_field_set(merged, m_type), m_type);
  const Set kept = ensure_named_fields_are_members(to_field_set(pruned, m_type), m_type)
                       .union_with(ensure_named_fields_are_members(managed, m_type));
  pruned = remove_items(merged, all.difference(kept), m_type);
  if (pruned.is_null()) pruned = nlohmann::json::object();
  // ...and what the applier never owned and nobody owns stays (fields set before tracking).
  const Set dangling = all.difference(ensure_named_fields_are_members(to_field_set(pruned, m_type), m_type))
                           .intersection(ensure_named_fields_are_members(last->set, m_type));
  nlohmann::json out = remove_items(merged, dangling, m_type);
  return out.is_null() ? nlohmann::json::object() : out;
}

std::expected<Updater::Applied, UpdateError> Updater::apply(const nlohmann::json& live, const nlohmann::json& config,
                                                            const std::string& version, ManagedFields managers,
                                                            const std::string& manager, bool force) const {
  auto merged = merge(live, config, m_type);
  if (!merged) return std::unexpected(failure("failed to merge config: " + merged.error()));
  std::optional<VersionedSet> last;
  if (const auto found = managers.find(manager); found != managers.end()) last = found->second;
  managers[manager] = VersionedSet{to_field_set(config, m_type).recursive_difference(m_ignored), version, true};
  auto pruned = prune(*merged, managers, last ? &*last : nullptr);
  if (!pruned) return std::unexpected(pruned.error());
  auto tracked = track(live, *pruned, std::move(managers), manager, force);
  if (!tracked) return std::unexpected(tracked.error());
  Applied out;
  out.managers = std::move(tracked->managers);
  if (!tracked->comparison.same()) out.object = std::move(*pruned);
  return out;
}

}  // namespace kw::apply
