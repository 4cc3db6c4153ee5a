#pragma once
// metadata.managedFields as kube-apiserver keeps them on every write. A FieldManager holds
// what one write needs (the object's Type, the version it is served at, the subresource,
// the fields the write cannot change) and runs kube-apiserver's chain of steps around the
// Updater: managers named by {manager, operation, apiVersion, subresource}; apiVersion, kind
// and the server-set metadata never owned; the time of an entry renewed when its fields
// change; at most 10 Update entries (older ones merged into "ancient-changes"); objects that
// existed before any tracking left untracked until their first apply, which records what was
// there as "before-first-apply"; `kubectl` moving from client-side apply without conflicts
// over what its last-applied-configuration annotation says, and that annotation kept current.
#include <expected>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/apply/updater.hpp"

namespace kw::apply {

// A managedFields entry's identity.
struct ManagerInfo {
  std::string manager;
  std::string operation;    // "Apply" or "Update"
  std::string api_version;  // "" for Apply: one Apply entry per manager across versions
  std::string subresource;
};
// The identifier: the entry's identity as Go encodes a ManagedFieldsEntry
// ({"manager":"m","operation":"Update","apiVersion":"v1"}), which also orders ties.
std::string manager_identifier(const ManagerInfo& info);
ManagerInfo parse_identifier(const std::string& identifier);

struct Managed {
  ManagedFields fields;
  std::map<std::string, nlohmann::json> times;  // by identifier: an RFC 3339 string
};
// An object's metadata.managedFields (an array, or null/absent for none).
std::expected<Managed, std::string> decode_managed_fields(const nlohmann::json& entries);
// The entries, ordered as kube-apiserver orders them (Apply first, then by time, manager,
// apiVersion, subresource); null when there are none.
nlohmann::json encode_managed_fields(const Managed& managed);

// The manager of a write without fieldManager: the User-Agent up to its first '/', printable
// characters only, at most 128 ("kubectl-create/v1.30 (linux/amd64)" -> "kubectl-create").
std::string manager_from_user_agent(std::string_view user_agent);

// Why an apply failed. Conflicts answer 409 with a cause per field; a bad request 400; any
// other failure 500 (as kube-apiserver answers them).
struct ApplyFailure {
  enum class Kind { conflict, bad_request, internal };
  Kind kind = Kind::internal;
  std::string message;
  nlohmann::json causes = nlohmann::json::array();  // conflicts: {reason, message, field}
};

class FieldManager {
 public:
  // `type`: the objects' Type; `api_version`: the version the write is served at;
  // `subresource`: "" or the subresource written; `reset`: what this write cannot change;
  // `empty_object`: the kind's object with every field at its zero value (the "live" object of
  // a create and of an object's first apply).
  FieldManager(Type type, std::string api_version, std::string subresource, Set reset, nlohmann::json empty_object);

  // An update (create: `live` is null) by `manager`: `next` with its managedFields. Never fails:
  // an object whose fields cannot be tracked is written without managedFields.
  nlohmann::json update(const nlohmann::json& live, nlohmann::json next, const std::string& manager,
                        const std::string& now) const;

  // True when applying `config` to `live` by `manager` would change nothing, neither the object
  // nor who owns what (nor kubectl's last-applied annotation): the manager applied this same
  // set of fields before, and the object has the values it sets. A quick check that
  // re-applying an unchanged manifest can answer with the stored object, writing nothing.
  bool unchanged_by(const nlohmann::json& live, const nlohmann::json& config, const std::string& manager) const;

  // `config` (an apply patch, decoded) applied to `live` (null: the object does not exist) by
  // `manager`: the new object with its managedFields.
  std::expected<nlohmann::json, ApplyFailure> apply(const nlohmann::json& live, const nlohmann::json& config,
                                                    const std::string& manager, bool force,
                                                    const std::string& now) const;

 private:
  struct Result {
    nlohmann::json object;  // null: unchanged
    Managed managed;
  };
  // The Update chain below the managedFields decoding: skip untracked objects, cap, name, time.
  std::expected<Result, UpdateError> update_managed(const nlohmann::json& live, const nlohmann::json& next,
                                                     Managed managed, const std::string& manager,
                                                     const std::string& now) const;
  std::expected<Result, UpdateError> apply_managed(const nlohmann::json& live, const nlohmann::json& config,
                                                    Managed managed, const std::string& manager, bool force,
                                                    const std::string& now) const;
  // The fields `kubectl` may take over without conflicts: what its last-applied-configuration
  // says and the object still has as it said.
  std::optional<Set> allowed_from_last_applied(const nlohmann::json& live) const;
  // Everything below metadata the server sets, and apiVersion and kind, taken from a set.
  static void strip_meta(ManagedFields& fields, const std::string& manager);
  static void cap_update_managers(Managed& managed);

  Updater m_updater;
  std::string m_api_version;
  std::string m_subresource;
  nlohmann::json m_empty;
};

}  // namespace kw::apply
