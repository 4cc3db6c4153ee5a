#include "server/apply/field_manager.hpp"

#include <algorithm>

#include "core/codec/protobuf_scalars.hpp"
#include "server/apply/typed.hpp"

namespace kw::apply {
namespace {

using json = nlohmann::json;

constexpr std::string_view k_current_operation = "current-operation";
constexpr std::string_view k_before_first_apply = "before-first-apply";
constexpr std::string_view k_ancient_changes = "ancient-changes";
constexpr std::string_view k_last_applied = "kubectl.kubernetes.io/last-applied-configuration";
constexpr std::size_t k_max_update_managers = 10;
constexpr std::size_t k_total_annotation_size = 256 * 1024;

std::string str(const json& object, const char* key) {
  if (!object.is_object()) return {};
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

const json& meta_of(const json& object) {
  static const json k_none = json::object();
  if (!object.is_object()) return k_none;
  const auto found = object.find("metadata");
  return found != object.end() && found->is_object() ? *found : k_none;
}

json without_managed_fields(json object) {
  if (object.is_object())
    if (auto meta = object.find("metadata"); meta != object.end() && meta->is_object()) meta->erase("managedFields");
  return object;
}

std::int64_t seconds_of(const json& time) {
  if (!time.is_string()) return 0;
  auto parsed = codec::scalars::parse_rfc3339(time.get<std::string>());
  return parsed ? parsed->seconds : 0;
}

bool same_fields(const ManagedFields& a, const ManagedFields& b) {
  if (a.size() != b.size()) return false;
  for (auto i = a.begin(), j = b.begin(); i != a.end(); ++i, ++j)
    if (i->first != j->first || i->second.api_version != j->second.api_version ||
        i->second.applied != j->second.applied || !(i->second.set == j->second.set))
      return false;
  return true;
}

const Set& strip_set() {
  static const Set k_strip = [] {
    Set s;
    const auto f = PathElement::field_named;
    s.insert({f("apiVersion")});
    s.insert({f("kind")});
    s.insert({f("metadata")});
    for (const char* name : {"name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation",
                             "managedFields", "resourceVersion"})
      s.insert({f("metadata"), f(name)});
    return s;
  }();
  return k_strip;
}

// How a conflict names its manager: "\"m\"", "\"m\" with subresource \"status\"", and
// " using v1" for Update entries.
std::string print_manager(const std::string& identifier) {
  const ManagerInfo info = parse_identifier(identifier);
  std::string out = json(info.manager).dump();
  if (!info.subresource.empty()) out += " with subresource " + json(info.subresource).dump();
  if (info.operation == "Update") out += " using " + info.api_version;
  return out;
}

ApplyFailure conflict_failure(const std::vector<Conflict>& conflicts) {
  ApplyFailure failure;
  failure.kind = ApplyFailure::Kind::conflict;
  for (const auto& c : conflicts)
    failure.causes.push_back(
        {{"reason", "FieldManagerConflict"}, {"message", "conflict with " + print_manager(c.manager)}, {"field", to_string(c.path)}});
  if (conflicts.size() == 1) {
    failure.message = "Apply failed with 1 conflict: conflict with " + print_manager(conflicts[0].manager) + ": " +
                      to_string(conflicts[0].path);
    return failure;
  }
  std::map<std::string, std::vector<std::string>> by_manager;
  for (const auto& c : conflicts) by_manager[c.manager].push_back(to_string(c.path));
  std::string lines;
  for (const auto& [manager, paths] : by_manager) {
    if (!lines.empty()) lines += '\n';
    lines += "conflicts with " + print_manager(manager) + ":";
    for (const auto& p : paths) lines += "\n- " + p;
  }
  failure.message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: " + lines;
  return failure;
}

ApplyFailure internal_failure(std::string message) {
  ApplyFailure failure;
  failure.kind = ApplyFailure::Kind::internal;
  failure.message = std::move(message);
  return failure;
}

// The object as kube-apiserver prints it in errors: "ns/name; group/version, Kind=Kind".
std::string object_label(const json& object) {
  const json& meta = meta_of(object);
  const std::string api_version = str(object, "apiVersion");
  const auto slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  return str(meta, "namespace") + "/" + str(meta, "name") + "; " + group + "/" + version + ", Kind=" + str(object, "kind");
}

std::string build_last_applied(json config) {
  if (auto meta = config.find("metadata"); meta != config.end() && meta->is_object())
    if (auto annotations = meta->find("annotations"); annotations != meta->end() && annotations->is_object())
      annotations->erase(std::string(k_last_applied));
  return config.dump() + "\n";
}

}  // namespace

std::string manager_identifier(const ManagerInfo& info) {
  std::string out = "{";
  auto add = [&](const char* key, const std::string& value) {
    if (value.empty()) return;
    if (out.size() > 1) out += ',';
    out += json(key).dump() + ":" + json(value).dump();
  };
  add("manager", info.manager);
  add("operation", info.operation);
  add("apiVersion", info.api_version);
  add("subresource", info.subresource);
  return out + "}";
}

ManagerInfo parse_identifier(const std::string& identifier) {
  const json parsed = json::parse(identifier, nullptr, false);
  return ManagerInfo{str(parsed, "manager"), str(parsed, "operation"), str(parsed, "apiVersion"),
                     str(parsed, "subresource")};
}

std::expected<Managed, std::string> decode_managed_fields(const json& entries) {
  Managed managed;
  if (entries.is_null()) return managed;
  if (!entries.is_array()) return std::unexpected(std::string("managedFields must be a list"));
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const json& entry = entries[i];
    const std::string operation = str(entry, "operation");
    if (operation != "Apply" && operation != "Update")
      return std::unexpected(std::string("operation must be `Apply` or `Update`"));
    const std::string api_version = str(entry, "apiVersion");
    if (api_version.empty()) return std::unexpected(std::string("apiVersion must not be empty"));
    const std::string fields_type = str(entry, "fieldsType");
    if (fields_type.empty())
      return std::unexpected("missing fieldsType in managed fields entry " + std::to_string(i));
    if (fields_type != "FieldsV1")
      return std::unexpected("invalid fieldsType " + json(fields_type).dump() + " in managed fields entry " +
                             std::to_string(i));
    const std::string identifier = manager_identifier(
        {str(entry, "manager"), operation, operation == "Apply" ? "" : api_version, str(entry, "subresource")});
    const auto fields = entry.find("fieldsV1");
    auto set = fields == entry.end() || fields->is_null() ? std::expected<Set, std::string>(Set())
                                                          : Set::from_json(*fields);
    if (!set) return std::unexpected("error decoding set: " + set.error());
    managed.fields[identifier] = VersionedSet{std::move(*set), api_version, operation == "Apply"};
    const auto time = entry.find("time");
    managed.times[identifier] = time == entry.end() ? json() : *time;
  }
  return managed;
}

json encode_managed_fields(const Managed& managed) {
  if (managed.fields.empty()) return nullptr;
  struct Row {
    json entry;
    std::int64_t seconds;
  };
  std::vector<Row> rows;
  for (const auto& [identifier, versioned] : managed.fields) {
    const ManagerInfo info = parse_identifier(identifier);
    json entry = json::object();
    if (!info.manager.empty()) entry["manager"] = info.manager;
    entry["operation"] = versioned.applied ? "Apply" : (info.operation.empty() ? "Update" : info.operation);
    entry["apiVersion"] = versioned.api_version;
    const auto time = managed.times.find(identifier);
    if (time != managed.times.end() && !time->second.is_null()) entry["time"] = time->second;
    entry["fieldsType"] = "FieldsV1";
    entry["fieldsV1"] = versioned.set.to_json();
    if (!info.subresource.empty()) entry["subresource"] = info.subresource;
    const std::int64_t seconds = time != managed.times.end() ? seconds_of(time->second) : 0;
    rows.push_back({std::move(entry), seconds});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& p, const Row& q) {
    const auto key = [](const Row& r) {
      return std::make_tuple(r.entry.value("operation", ""), r.seconds, r.entry.value("manager", ""),
                             r.entry.value("apiVersion", ""), r.entry.value("subresource", ""));
    };
    return key(p) < key(q);
  });
  json out = json::array();
  for (auto& row : rows) out.push_back(std::move(row.entry));
  return out;
}

std::string manager_from_user_agent(std::string_view user_agent) {
  const std::string_view prefix = user_agent.substr(0, user_agent.find('/'));
  std::string out;
  for (const unsigned char c : prefix) {
    if (out.size() >= 128) break;
    if (c < 0x20 || c == 0x7f) continue;  // not printable
    out += static_cast<char>(c);
  }
  return out;
}

FieldManager::FieldManager(Type type, std::string api_version, std::string subresource, Set reset,
                           json empty_object)
    : m_updater(std::move(type), std::move(reset)),
      m_api_version(std::move(api_version)),
      m_subresource(std::move(subresource)),
      m_empty(std::move(empty_object)) {}

void FieldManager::strip_meta(ManagedFields& fields, const std::string& manager) {
  const auto found = fields.find(manager);
  if (found == fields.end()) return;
  found->second.set = found->second.set.difference(strip_set());
  if (found->second.set.empty()) fields.erase(found);
}

void FieldManager::cap_update_managers(Managed& managed) {
  std::vector<std::string> updaters;
  for (const auto& [identifier, versioned] : managed.fields)
    if (!versioned.applied) updaters.push_back(identifier);
  if (updaters.size() <= k_max_update_managers) return;
  auto seconds = [&](const std::string& id) {
    const auto t = managed.times.find(id);
    return t == managed.times.end() ? std::int64_t{0} : seconds_of(t->second);
  };
  std::sort(updaters.begin(), updaters.end(), [&](const std::string& a, const std::string& b) {
    const auto sa = seconds(a), sb = seconds(b);
    return sa != sb ? sa < sb : a < b;
  });
  std::map<std::string, std::string> first_of_version;
  std::size_t length = updaters.size();
  for (std::size_t i = 0; i < updaters.size() && length > k_max_update_managers; ++i) {
    const std::string& manager = updaters[i];
    const VersionedSet versioned = managed.fields[manager];
    const json time = managed.times.contains(manager) ? managed.times[manager] : json();
    const std::string bucket =
        manager_identifier({std::string(k_ancient_changes), "Update", versioned.api_version, ""});
    const auto first = first_of_version.find(versioned.api_version);
    if (first == first_of_version.end()) {
      first_of_version.emplace(versioned.api_version, manager);
      continue;
    }
    if (!managed.fields.contains(bucket)) {
      VersionedSet moved = managed.fields[first->second];
      managed.fields.erase(first->second);
      managed.fields[bucket] = std::move(moved);
    }
    VersionedSet& into = managed.fields[bucket];
    into = VersionedSet{versioned.set.union_with(into.set), versioned.api_version, versioned.applied};
    managed.fields.erase(manager);
    --length;
    managed.times[bucket] = time;
  }
}

std::expected<FieldManager::Result, UpdateError> FieldManager::update_managed(const json& live, const json& next,
                                                                             Managed managed,
                                                                             const std::string& manager,
                                                                             const std::string& now) const {
  const std::string identifier =
      manager_identifier({manager.empty() ? "unknown" : manager, "Update", m_api_version, m_subresource});
  std::optional<Set> former;
  if (const auto found = managed.fields.find(identifier); found != managed.fields.end()) former = found->second.set;
  const std::string current(k_current_operation);
  auto fields = m_updater.update(live, next, m_api_version, std::move(managed.fields), current);
  if (!fields) return std::unexpected(fields.error());
  strip_meta(*fields, current);
  if (const auto mine = fields->find(current); mine != fields->end()) {
    VersionedSet versioned = std::move(mine->second);
    fields->erase(mine);
    if (const auto previous = fields->find(identifier); previous != fields->end())
      versioned.set = versioned.set.union_with(previous->second.set);
    (*fields)[identifier] = std::move(versioned);
    if (!former || !((*fields)[identifier].set == *former)) managed.times[identifier] = now;
  }
  managed.fields = std::move(*fields);
  cap_update_managers(managed);
  return Result{next, std::move(managed)};
}

json FieldManager::update(const json& live, json next, const std::string& manager, const std::string& now) const {
  const json& live_object = live.is_null() ? m_empty : live;
  auto live_managed = [&] {
    auto decoded = decode_managed_fields(meta_of(live_object).value("managedFields", json()));
    return decoded ? std::move(*decoded) : Managed{};
  };
  Managed managed;
  if (!m_subresource.empty()) {
    managed = live_managed();
  } else {
    const json sent = meta_of(next).value("managedFields", json());
    const bool reset = sent.is_array() && (sent.empty() || (sent.size() == 1 && sent[0].is_object() && sent[0].empty()));
    if (!reset) {
      auto decoded = decode_managed_fields(sent);
      managed = decoded && !decoded->fields.empty() ? std::move(*decoded) : live_managed();
    }
  }
  next = without_managed_fields(std::move(next));
  // Objects written before anything tracked them stay untracked until they are applied to.
  if (managed.fields.empty() && !str(meta_of(live_object), "uid").empty()) return next;
  auto result = update_managed(without_managed_fields(live_object), next, std::move(managed), manager, now);
  if (!result) return next;
  if (json encoded = encode_managed_fields(result->managed); !encoded.is_null())
    next["metadata"]["managedFields"] = std::move(encoded);
  return next;
}

std::optional<Set> FieldManager::allowed_from_last_applied(const json& live) const {
  const json& annotations = meta_of(live).value("annotations", json::object());
  const std::string text = annotations.is_object() ? str(annotations, std::string(k_last_applied).c_str()) : "";
  if (text.empty()) return std::nullopt;
  const json last = json::parse(text, nullptr, false);
  if (last.is_discarded() || !last.is_object() || str(last, "apiVersion") != m_api_version) return std::nullopt;
  auto compared = compare(last, live, m_updater.type());
  if (!compared) return std::nullopt;
  return to_field_set(last, m_updater.type()).difference(compared->modified).difference(compared->added).difference(compared->removed);
}

std::expected<FieldManager::Result, UpdateError> FieldManager::apply_managed(const json& live, const json& config,
                                                                            Managed managed,
                                                                            const std::string& manager, bool force,
                                                                            const std::string& now) const {
  if (managed.fields.empty()) {
    // The fields set before the first apply belong to a manager of their own.
    auto first = update_managed(m_empty, live, std::move(managed), std::string(k_before_first_apply), now);
    if (!first) return std::unexpected(first.error());
    managed = std::move(first->managed);
  }
  const std::string identifier = manager_identifier({manager, "Apply", "", m_subresource});
  const ManagedFields former = managed.fields;
  auto applied = m_updater.apply(live, config, m_api_version, std::move(managed.fields), identifier, force);
  if (!applied) return std::unexpected(applied.error());
  managed.fields = std::move(applied->managers);
  strip_meta(managed.fields, identifier);
  if (applied->object || !same_fields(managed.fields, former)) managed.times[identifier] = now;
  return Result{applied->object ? std::move(*applied->object) : live, std::move(managed)};
}

bool FieldManager::unchanged_by(const json& live, const json& config, const std::string& manager) const {
  if (!live.is_object() || str(config, "apiVersion") != m_api_version) return false;
  const json& meta = meta_of(live);
  const auto entries = meta.find("managedFields");
  if (entries == meta.end() || !entries->is_array()) return false;
  // The manager's own entry, decoded alone.
  const std::string identifier = manager_identifier({manager, "Apply", "", m_subresource});
  const json* mine = nullptr;
  for (const auto& entry : *entries)
    if (entry.is_object() && entry.value("operation", "") == "Apply" && entry.value("manager", "") == manager &&
        entry.value("subresource", "") == m_subresource)
      mine = &entry;
  if (mine == nullptr || !mine->contains("fieldsV1")) return false;
  // Values first: the configuration merged in changes nothing, which also makes it valid, as
  // the live object is. (A configuration with managedFields is refused by apply; the live
  // object's own are kept by a merge that does not name them.)
  if (const auto sent_managed = meta_of(config).find("managedFields");
      sent_managed != meta_of(config).end() && !sent_managed->is_null())
    return false;
  const Type& type = m_updater.type();
  if (!merge_keeps(live, config, type)) return false;
  // Then ownership: the fields it sets are the ones the manager's entry records, compared as
  // FieldsV1 (an entry stored in another, equivalent spelling only costs the full path).
  const Set sent = to_field_set(config, type).recursive_difference(m_updater.ignored()).difference(strip_set());
  if (sent.to_json() != (*mine)["fieldsV1"]) return false;
  if (manager == "kubectl") {
    const json& annotations = meta.value("annotations", json::object());
    const std::string last = annotations.is_object() ? str(annotations, std::string(k_last_applied).c_str()) : "";
    if (!last.empty() && last != build_last_applied(config)) return false;
  }
  return true;
}

std::expected<json, ApplyFailure> FieldManager::apply(const json& live, const json& config, const std::string& manager,
                                                      bool force, const std::string& now) const {
  const json live_object = without_managed_fields(live.is_null() ? m_empty : live);
  auto managed = decode_managed_fields(meta_of(live).value("managedFields", json()));
  if (!managed) return std::unexpected(internal_failure("failed to decode managed fields: " + managed.error()));

  if (const std::string version = str(config, "apiVersion"); version != m_api_version) {
    ApplyFailure failure{ApplyFailure::Kind::bad_request,
                         "Incorrect version specified in apply patch. Specified patch version: " +
                             (version.find('/') == std::string::npos ? "/" + version : version) +
                             ", expected: " + m_api_version,
                         json::array()};
    return std::unexpected(std::move(failure));
  }
  if (const auto mf = meta_of(config).find("managedFields"); mf != meta_of(config).end() && !mf->is_null())
    return std::unexpected(ApplyFailure{ApplyFailure::Kind::bad_request, "metadata.managedFields must be nil", json::array()});
  if (auto bad = validate(config, m_updater.type()))
    return std::unexpected(internal_failure("failed to create typed patch object (" + object_label(config) + "): " + *bad));

  auto result = apply_managed(live_object, config, *managed, manager, force, now);
  if (!result && manager == "kubectl" && result.error().message.empty()) {
    // kubectl moving from client-side apply: what its last-applied configuration set, and the
    // object still has, is its own.
    if (const auto allowed = allowed_from_last_applied(live_object)) {
      std::vector<Conflict> remaining;
      for (const auto& c : result.error().conflicts)
        if (!allowed->has(c.path)) remaining.push_back(c);
      if (remaining.empty()) result = apply_managed(live_object, config, *managed, manager, true, now);
      else result = std::unexpected(UpdateError{"", std::move(remaining)});
    }
  }
  if (!result) {
    if (!result.error().message.empty()) return std::unexpected(internal_failure(result.error().message));
    return std::unexpected(conflict_failure(result.error().conflicts));
  }
  json object = std::move(result->object);
  if (manager == "kubectl") {
    auto& meta = object["metadata"];
    if (meta.is_object() && meta.contains("annotations") && meta["annotations"].is_object() &&
        !str(meta["annotations"], std::string(k_last_applied).c_str()).empty()) {
      auto& annotations = meta["annotations"];
      annotations[std::string(k_last_applied)] = build_last_applied(config);
      std::size_t total = 0;
      for (const auto& [k, v] : annotations.items()) total += k.size() + (v.is_string() ? v.get<std::string>().size() : 0);
      if (total > k_total_annotation_size) annotations.erase(std::string(k_last_applied));
    }
  }
  if (json encoded = encode_managed_fields(result->managed); !encoded.is_null())
    object["metadata"]["managedFields"] = std::move(encoded);
  else if (object.is_object() && object.contains("metadata"))
    object["metadata"].erase("managedFields");
  return object;
}

}  // namespace kw::apply
