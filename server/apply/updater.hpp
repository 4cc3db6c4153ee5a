#pragma once
// Ownership of fields by managers, as structured-merge-diff's Updater keeps it: an update
// (PUT, patch) gives its manager what it changed and takes that from everyone else; an apply
// merges a configuration into the object, removes what the applier stopped sending and nobody
// else owns, and refuses (unless forced) to change what another manager owns.
//
// One version per kind: kw serves each kind's objects at one version at a time, so the
// conversions between versions that structured-merge-diff makes are identities here.
#include <expected>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/apply/fieldpath.hpp"
#include "server/apply/schema.hpp"
#include "server/apply/typed.hpp"

namespace kw::apply {

struct VersionedSet {
  Set set;
  std::string api_version;
  bool applied = false;  // an Apply entry (else Update)
};

// Managers by identifier (see managed_fields.hpp).
using ManagedFields = std::map<std::string, VersionedSet>;

struct Conflict {
  std::string manager;  // identifier
  Path path;
};

struct UpdateError {
  std::string message;           // set for errors other than conflicts
  std::vector<Conflict> conflicts;
};

class Updater {
 public:
  // `ignored`: the fields the write cannot change (a strategy's reset fields: status for the
  // main resource, spec for the status subresource), owned by nobody through this write.
  Updater(Type type, Set ignored) : m_type(std::move(type)), m_ignored(std::move(ignored)) {}

  // `next` replaces `live` by `manager`.
  std::expected<ManagedFields, UpdateError> update(const nlohmann::json& live, const nlohmann::json& next,
                                                    const std::string& version, ManagedFields managers,
                                                    const std::string& manager) const;

  struct Applied {
    std::optional<nlohmann::json> object;  // nullopt: the object does not change
    ManagedFields managers;
  };
  // `config` applied to `live` by `manager`.
  std::expected<Applied, UpdateError> apply(const nlohmann::json& live, const nlohmann::json& config,
                                            const std::string& version, ManagedFields managers,
                                            const std::string& manager, bool force) const;

  const Type& type() const { return m_type; }
  const Set& ignored() const { return m_ignored; }

 private:
  struct Compared {
    ManagedFields managers;
    Comparison comparison;
  };
  std::expected<Compared, UpdateError> track(const nlohmann::json& live, const nlohmann::json& next,
                                             ManagedFields managers, const std::string& workflow, bool force) const;
  std::expected<nlohmann::json, UpdateError> prune(const nlohmann::json& merged, const ManagedFields& managers,
                                                   const VersionedSet* last) const;

  Type m_type;
  Set m_ignored;
};

}  // namespace kw::apply
