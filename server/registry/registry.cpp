#include "server/registry/registry.hpp"

#include <ctime>
#include <iostream>
#include <mutex>
#include <random>

#include "core/api/print_support.hpp"
#include "core/api/selector.hpp"
#include "server/cache/watch_cache.hpp"
#include "core/codec/protobuf.hpp"
#include "core/codec/protobuf_scalars.hpp"
#include "core/util/base64.hpp"
#include "core/util/parallel.hpp"
#include "core/util/text.hpp"
#include "core/util/uuid.hpp"
#include "server/registry/conditions.hpp"
#include "server/registry/fields.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/empty_objects.hpp"
#include "server/registry/kinds/kind_spec.hpp"
#include "server/registry/kinds/pod_warnings.hpp"
#include "server/registry/stored_value.hpp"
#include "server/registry/validation.hpp"

namespace kw::registry {
namespace {

constexpr int k_update_retries = 5;
// The registry's own write of a binding: spec.nodeName and the PodScheduled condition at once.
constexpr std::string_view k_binding_write = "binding";

std::string random_string(std::size_t length, std::string_view alphabet) {
  static thread_local std::mt19937_64 engine{std::random_device{}()};
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::string out;
  for (std::size_t i = 0; i < length; ++i) out += alphabet[pick(engine)];
  return out;
}

constexpr int k_generate_name_retries = 7;

struct ListOptionsFacts {
  std::string_view match;  // resourceVersionMatch
  std::string_view resource_version;
  std::string_view continue_token = {};
  bool watch = false;
  std::optional<bool> initial_events = {};  // sendInitialEvents, when given
};

// kube's ValidateListOptions, with the watch rules of sendInitialEvents: a 422 about
// ListOptions.meta.k8s.io, each rule a cause.
std::optional<ApiError> list_options_refusal(const ListOptionsFacts& o) {
  kinds::Causes causes = nlohmann::json::array();
  const std::string field = "resourceVersionMatch";
  if (o.watch) {
    if (o.initial_events && o.match != "NotOlderThan")
      kinds::forbidden(causes, field, "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan");
    if (!o.match.empty()) {
      if (!o.initial_events)
        kinds::forbidden(causes, field, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided");
      if (o.match != "NotOlderThan") kinds::unsupported_rendered(causes, field, util::go_quote(o.match), {"NotOlderThan"});
    }
  } else if (!o.match.empty()) {
    if (o.resource_version.empty())
      kinds::forbidden(causes, field, "resourceVersionMatch is forbidden unless resourceVersion is provided");
    if (!o.continue_token.empty())
      kinds::forbidden(causes, field, "resourceVersionMatch is forbidden when continue is provided");
    if (o.match != "Exact" && o.match != "NotOlderThan")
      kinds::unsupported_rendered(causes, field, util::go_quote(o.match), {"Exact", "NotOlderThan", ""});
    if (o.match == "Exact" && o.resource_version == "0")
      kinds::forbidden(causes, field, "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"");
  }
  if (causes.empty()) return std::nullopt;
  auto summary = causes_summary(causes);
  return invalid("meta.k8s.io", "ListOptions", "", std::move(causes), summary);
}

std::optional<storage::Revision> parse_revision(const std::string& text) {
  if (text.empty()) return std::nullopt;
  storage::Revision value = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || value > (std::numeric_limits<storage::Revision>::max() - 9) / 10) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// RFC 3339 in UTC, whole seconds, `seconds` after `now`.
std::string rfc3339_after_seconds(std::chrono::system_clock::time_point now, std::int64_t seconds) {
  return api::print::format_rfc3339(now + std::chrono::seconds(seconds));
}

nlohmann::json& metadata(nlohmann::json& object) {
  if (!object.contains("metadata") || !object["metadata"].is_object()) object["metadata"] = nlohmann::json::object();
  return object["metadata"];
}

// Continue tokens carry the list revision and the next key, as kube-apiserver's do: unpadded
// base64url of {"v":"meta.k8s.io/v1","rv":REVISION,"start":KEY}. kw adds "remaining" to
// those of unfiltered lists: how many objects the rest of the list holds, so the next page
// need not count them again (the revision fixes the number; kube's decoder ignores the field).
struct ContinueToken {
  storage::Revision revision = 0;
  std::string start;
  std::optional<std::int64_t> remaining = {};
};

std::string encode_continue(storage::Revision revision, const std::string& start,
                            std::optional<std::int64_t> remaining) {
  nlohmann::json token{{"v", "meta.k8s.io/v1"}, {"rv", revision}, {"start", start}};
  if (remaining) token["remaining"] = *remaining;
  return util::base64url_encode(token.dump());
}

// A start key that `/` + key would not survive Go's path.Clean unchanged (empty, `.` or `..`
// segments, a trailing `/`) is refused, as kube-apiserver refuses it: a client-made token names
// a key below the list's prefix and nothing else.
bool clean_start_key(std::string_view start) {
  if (start.empty()) return false;
  if (start.front() == '/') start.remove_prefix(1);
  if (start.empty()) return true;
  std::size_t at = 0;
  for (;;) {
    const auto end = start.find('/', at);
    const auto segment = start.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    if (segment.empty() || segment == "." || segment == "..") return false;
    if (end == std::string_view::npos) return true;
    at = end + 1;
  }
}

// kube's decodeContinue, with its words for each refusal.
ApiResult<ContinueToken> decode_continue(const std::string& token) {
  auto refuse = [](const std::string& why) {
    return std::unexpected(bad_request("invalid continue token: continue key is not valid: " + why));
  };
  const auto raw = util::base64url_decode(token);
  if (!raw) return refuse("illegal base64 data");
  const auto parsed = nlohmann::json::parse(*raw, nullptr, false);
  if (!parsed.is_object()) return refuse("the token is not a JSON object");
  const auto version = parsed.value("v", nlohmann::json()).is_string() ? parsed["v"].get<std::string>() : "";
  if (version != "meta.k8s.io/v1")
    return refuse("server does not recognize this encoded version " + util::go_quote(version));
  const auto& rv = parsed.value("rv", nlohmann::json());
  if (!rv.is_number_integer() || rv.get<storage::Revision>() <= 0)
    return refuse("incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  const auto& start_value = parsed.value("start", nlohmann::json());
  if (!start_value.is_string() || start_value.get_ref<const std::string&>().empty())
    return refuse("encoded start key empty (version meta.k8s.io/v1)");
  auto start = start_value.get<std::string>();
  if (!clean_start_key(start)) return refuse(start);
  if (start.front() == '/') start.erase(0, 1);
  ContinueToken out{rv.get<storage::Revision>(), std::move(start)};
  // A count that is not one is ignored: it only ever informs remainingItemCount.
  if (const auto remaining = parsed.find("remaining");
      remaining != parsed.end() && remaining->is_number_integer() && remaining->get<std::int64_t>() >= 0)
    out.remaining = remaining->get<std::int64_t>();
  return out;
}

const kinds::Strategy& strategy_of(const api::ResourceInfo& info) {
  static const kinds::Strategy k_none;
  const auto* spec = kinds::find_kind(info);
  return spec ? spec->strategy : k_none;
}

using kinds::lifecycle_of;

// The write that marks an object deleted (kube's graceful deletion update): part of the DELETE,
// which admission saw; the update is not admitted again.
WriteOptions marking_deletion(WriteOptions options) {
  options.marks_deletion = true;
  options.admitted = true;
  return options;
}

// The row of the Namespace resource.
const api::ResourceInfo& namespaces_info() { return kinds::kind_with(kinds::Lifecycle::namespace_).info; }

bool is_definitions(const api::ResourceInfo& info) { return lifecycle_of(info) == kinds::Lifecycle::definition; }

// The metadata fields a status write cannot change (the kind's status strategy); custom
// resources reset the object metadata as kube-apiserver's ResetObjectMetaForStatus does.
const std::vector<std::string>& status_keeps_meta(const api::ResourceInfo& info) {
  const auto* spec = kinds::find_kind(info);
  return spec ? spec->status_keeps_meta : kinds::status_meta::k_reset_all;
}

// A status write changes status and what metadata the kind lets it: every other top-level
// field (spec, data, ...) and the kept metadata fields come from the stored object.
void keep_all_but_status(nlohmann::json& object, const nlohmann::json& existing,
                         const std::vector<std::string>& kept_meta) {
  for (auto it = object.begin(); it != object.end();) {
    const bool own = it.key() == "status" || it.key() == "metadata" || it.key() == "kind" || it.key() == "apiVersion";
    if (!own && !existing.contains(it.key())) it = object.erase(it);
    else ++it;
  }
  for (const auto& [field, value] : existing.items())
    if (field != "status" && field != "metadata") object[field] = value;
  auto& meta = metadata(object);
  const auto& old_meta = existing.value("metadata", nlohmann::json::object());
  for (const auto& field : kept_meta)
    if (old_meta.contains(field)) meta[field] = old_meta[field];
    else meta.erase(field);
}

// A write that changes nothing but the times of managedFields entries (an apply whose atomic
// parts lost their defaults in the merge and got them back) keeps the stored entries, so that
// it writes nothing, as kube-apiserver's IgnoreManagedFieldsTimestampsTransformer does.
void keep_managed_field_times(nlohmann::json& object, const nlohmann::json& existing) {
  const auto& old_meta = existing.value("metadata", nlohmann::json::object());
  auto& meta = metadata(object);
  const auto before = old_meta.find("managedFields");
  const auto after = meta.find("managedFields");
  if (before == old_meta.end() || after == meta.end() || *before == *after || !before->is_array() ||
      !after->is_array() || before->size() != after->size())
    return;
  for (std::size_t i = 0; i < before->size(); ++i) {
    nlohmann::json a = (*before)[i], b = (*after)[i];
    if (a.is_object()) a.erase("time");
    if (b.is_object()) b.erase("time");
    if (a != b) return;
  }
  nlohmann::json candidate = object;
  metadata(candidate)["managedFields"] = *before;
  nlohmann::json stored = existing;
  metadata(stored).erase("resourceVersion");
  metadata(candidate).erase("resourceVersion");
  if (candidate == stored) metadata(object)["managedFields"] = *before;
}

// kube-apiserver's ShouldDeleteDuringUpdate: an update of an object marked for deletion (with
// no grace period left) that leaves it no finalizer deletes it. A Namespace also waits for its
// spec.finalizers (ShouldDeleteNamespaceDuringUpdate).
bool finishes_deletion(const api::ResourceInfo& info, const nlohmann::json& object, const nlohmann::json& existing) {
  const auto& meta = object.value("metadata", nlohmann::json::object());
  const auto& old_meta = existing.value("metadata", nlohmann::json::object());
  const auto empty = [](const nlohmann::json& holder) {
    const auto f = holder.find("finalizers");
    return f == holder.end() || !f->is_array() || f->empty();
  };
  if (!empty(meta) || !old_meta.contains("deletionTimestamp")) return false;
  if (lifecycle_of(info) == kinds::Lifecycle::namespace_ && !empty(object.value("spec", nlohmann::json::object())))
    return false;
  const auto grace = old_meta.value("deletionGracePeriodSeconds", nlohmann::json());
  return !grace.is_number_integer() || grace.get<std::int64_t>() == 0;
}

// Whether an update bumps metadata.generation: a change of the fields the row names; for custom
// resources, of anything but metadata and status.
bool generation_changes(const api::ResourceInfo& info, const nlohmann::json& object, const nlohmann::json& existing) {
  if (info.custom) {
    for (const auto* side : {&object, &existing})
      for (const auto& [field, value] : side->items())
        if (field != "metadata" && field != "status" && object.value(field, nlohmann::json()) != existing.value(field, nlohmann::json()))
          return true;
    return false;
  }
  const auto* spec = kinds::find_kind(info);
  if (!spec || !spec->generation) return false;
  for (const auto& path : *spec->generation) {
    const nlohmann::json* now = &object;
    const nlohmann::json* before = &existing;
    static const nlohmann::json null;
    for (const auto part : kinds::split(path, '.')) {
      const std::string key(part);
      now = now->is_object() && now->contains(key) ? &(*now)[key] : &null;
      before = before->is_object() && before->contains(key) ? &(*before)[key] : &null;
    }
    if (*now != *before) return true;
  }
  return false;
}

const nlohmann::json k_no_object;  // what a DELETE's admission request carries as its object

AdmissionRequest admission_request(const api::ResourceInfo& info, std::string_view operation, const std::string& ns,
                                   const std::string& name, const nlohmann::json& object, const nlohmann::json* old,
                                   const WriteOptions& options) {
  return {info,
          operation,
          options.subresource,
          ns,
          name,
          object,
          old,
          options.requester,
          options.dry_run,
          options.warnings,
          options.annotate ? &options.annotate : nullptr};
}

// The API's defaults and write-only conveniences, applied to every write of the object.
void apply_defaults(const api::ResourceInfo& info, nlohmann::json& object, bool status_only) {
  const auto& strategy = strategy_of(info);
  if (strategy.canonicalize) strategy.canonicalize(object);
  if (status_only) return;
  if (const auto* row = kinds::find_kind(info)) kinds::default_object(*row, object);
  else if (strategy.defaults) strategy.defaults(object);
}

// Whether two versions of an object differ in nothing but metadata.resourceVersion.
bool same_but_revision(nlohmann::json a, nlohmann::json b) {
  for (auto* object : {&a, &b})
    if (object->contains("metadata") && (*object)["metadata"].is_object()) (*object)["metadata"].erase("resourceVersion");
  return a == b;
}

// The warnings kube's strategies give a write (WarningsOnCreate, WarningsOnUpdate): the row's
// own every time, and its pod template's when the template changed. Each is given once per
// request, as kube's warning recorder keeps them.
void add_write_warnings(const api::ResourceInfo& info, const nlohmann::json& object, const nlohmann::json* old,
                      const WriteOptions& options) {
  const auto* row = kinds::find_kind(info);
  if (options.warnings == nullptr || row == nullptr || !options.subresource.empty()) return;
  std::vector<std::string> found;
  if (const auto* pod_template = kinds::pod_template_of(*row, object)) {
    const auto* before = old != nullptr ? kinds::pod_template_of(*row, *old) : nullptr;
    if (before == nullptr || *before != *pod_template) {
      std::string path;
      for (const auto& segment : row->pod_template) path += (path.empty() ? "" : ".") + segment;
      kinds::pod_warnings(*pod_template, path, found);
    }
  }
  if (row->strategy.warnings) row->strategy.warnings(object, old, found);
  for (auto& warning : found)
    if (std::ranges::find(*options.warnings, warning) == options.warnings->end())
      options.warnings->push_back(std::move(warning));
}

}  // namespace

Registry::Registry(storage::Backend& backend, api::ResourceTable resources, RegistryOptions options)
    : m_backend(backend), m_options(std::move(options)) {
  if (!m_options.clock) m_options.clock = [] { return std::chrono::system_clock::now(); };
  // generateName's suffix: five characters from kube-apiserver's alphabet (no vowels, no look-alikes).
  if (!m_options.name_suffix) m_options.name_suffix = [] { return random_string(5, "bcdfghjklmnpqrstvwxz2456789"); };
  m_resources = std::make_shared<const api::ResourceTable>(std::move(resources));
  m_tasks = std::make_unique<DelayedTasks>();
}

std::shared_ptr<const api::ResourceTable> Registry::resources() const {
  std::lock_guard lock(m_resources_mutex);
  return m_resources;
}

std::string Registry::cache_key(const api::ResourceInfo& info) const {
  // Each served version of a custom resource, and each version stored as another (one
  // prefix, two rows), has its own cache: events carry its apiVersion.
  const auto* spec = kinds::find_kind(info);
  const bool shared_prefix = info.custom || (spec && spec->stored_as);
  return shared_prefix ? key_prefix(info, "") + "@" + info.version : key_prefix(info, "");
}

Registry::~Registry() = default;

std::string Registry::key_prefix(const api::ResourceInfo& info, const std::string& ns) const {
  // Built-in kinds where kube-apiserver keeps them (their rows say); custom resources
  // under <group>/<plural>.
  const auto* spec = kinds::find_kind(info);
  std::string out = m_options.prefix + "/";
  out += spec ? spec->storage_resource : info.group + "/" + info.plural;
  out += "/";
  if (info.namespaced && !ns.empty()) out += ns + "/";
  return out;
}

std::string Registry::key(const api::ResourceInfo& info, const std::string& ns, const std::string& name) const {
  return key_prefix(info, ns) + name;
}

std::string Registry::now_rfc3339() const { return rfc3339_after_seconds(m_options.clock(), 0); }

std::shared_ptr<const apply::FieldManager> Registry::field_manager_for(const api::ResourceInfo& info,
                                                                        const std::string& subresource) const {
  switch (lifecycle_of(info)) {
    case kinds::Lifecycle::review:
    case kinds::Lifecycle::binding:
    case kinds::Lifecycle::computed:
      return nullptr;
    default:
      break;
  }
  // What the write cannot change is owned by nobody through it: status on the main resource
  // (when the kind has a status subresource), spec and the kept metadata on /status.
  apply::Set reset;
  const auto f = apply::PathElement::field_named;
  if (subresource.empty() && info.has_subresource("status")) reset.insert({f("status")});
  if (subresource == "status") {
    reset.insert({f("spec")});
    for (const auto& kept : status_keeps_meta(info)) reset.insert({f("metadata"), f(kept)});
  }
  struct Holder {
    std::shared_ptr<const crd::Definition> definition;  // owns the schema the Type points into
    apply::FieldManager manager;
  };
  if (info.custom) {
    auto definition = definition_for(info);
    const crd::Version* version = definition ? definition->find_version(info.version) : nullptr;
    if (version == nullptr) return nullptr;
    auto type = apply::Type::of_custom_resource(version->schema);
    auto holder = std::make_shared<Holder>(
        Holder{definition, apply::FieldManager(std::move(type), info.api_version(), subresource, std::move(reset),
                                               nlohmann::json{{"apiVersion", info.api_version()}, {"kind", info.kind}})});
    return std::shared_ptr<const apply::FieldManager>(holder, &holder->manager);
  }
  auto type = apply::Type::of_kind(info.api_version(), info.kind);
  if (!type) return nullptr;
  nlohmann::json empty = kinds::empty_object(info.api_version(), info.kind);
  empty["apiVersion"] = info.api_version();
  empty["kind"] = info.kind;
  return std::make_shared<const apply::FieldManager>(std::move(*type), info.api_version(), subresource,
                                                     std::move(reset), std::move(empty));
}

nlohmann::json Registry::track_update(const api::ResourceInfo& info, const nlohmann::json& live, nlohmann::json next,
                                      const WriteOptions& options) const {
  if (options.field_manager.empty() || options.fields_tracked) return next;
  const auto manager = field_manager_for(info, options.subresource);
  if (!manager) return next;
  return manager->update(live, std::move(next), options.field_manager, now_rfc3339());
}

ApiResult<std::string> Registry::stored_value(const api::ResourceInfo& info, const nlohmann::json& object) {
  if (info.custom) {
    auto stored = convert_custom(info, object, info.group + "/" + info.storage_version);
    if (!stored) return std::unexpected(stored.error());
    return stored->dump();
  }
  auto encoded = encode_stored(info, object);
  if (!encoded) return std::unexpected(ApiError{500, "InternalError", encoded.error().message, {}});
  return std::move(*encoded);
}

ApiResult<cache::ObjectPtr> Registry::stored_object(const api::ResourceInfo& info, const storage::KeyValue& kv,
                                                    const std::string& name) {
  auto parsed = read_stored(info, kv, name);
  if (!parsed) return std::unexpected(parsed.error());
  return decoded_object(info, kv, std::move(*parsed));
}

cache::ObjectPtr Registry::decoded_object(const api::ResourceInfo& info, const storage::KeyValue& kv,
                                          nlohmann::json parsed) {
  auto object = std::make_shared<cache::StoredObject>();
  object->key = kv.key;
  object->revision = kv.mod_revision;
  const auto& meta = parsed["metadata"];
  object->name = meta.value("name", std::string());
  object->namespace_ = meta.value("namespace", std::string());
  object->labels = api::labels_of(parsed);
  object->fields = selectable_fields(kinds::find_kind(info), info, parsed);
  object->set_object(std::move(parsed));
  object->protobuf = served_protobuf(info, kv.value, kv.mod_revision);
  if (!object->protobuf.empty()) object->source = tree_source(info);
  return object;
}

std::shared_ptr<const cache::TreeSource> Registry::tree_source(const api::ResourceInfo& info) {
  const std::string cache = cache_key(info);
  std::lock_guard lock(m_tree_sources_mutex);
  auto& source = m_tree_sources[cache];
  if (!source) {
    auto made = std::make_shared<cache::TreeSource>();
    made->api_version = info.api_version();
    made->kind = info.kind;
    // The served protobuf is the stored message with its resourceVersion set: decoding it as
    // stored bytes gives the tree read_stored gave.
    made->decode = [info](std::string_view protobuf) -> kw::Result<nlohmann::json> {
      return decode_stored(info, codec::encode_envelope(info.api_version(), info.kind, protobuf));
    };
    source = std::move(made);
  }
  return source;
}

storage::Result<cache::ObjectPtr> Registry::decode(const api::ResourceInfo& info, const storage::KeyValue& kv) {
  auto object = stored_object(info, kv, "");
  if (!object) return std::unexpected(storage::Error{storage::ErrorCode::corrupt, kv.key, kv.mod_revision, object.error().message});
  return std::move(*object);
}

ApiResult<nlohmann::json> Registry::normalize(const api::ResourceInfo& info, const nlohmann::json& object,
                                              const WriteOptions& options, const nlohmann::json* old) const {
  if (info.custom && object.is_object()) return normalize_custom(info, object, options, old);
  if (info.proto_message.empty() || !object.is_object()) return object;
  // Strict gathers every unknown field first, to name them all (and the repeated members).
  const bool strict = options.field_validation == codec::FieldValidation::Strict;
  auto encoded = codec::json_to_protobuf(object, info.proto_message,
                                         strict ? codec::FieldValidation::Warn : options.field_validation);
  if (!encoded) {
    return std::unexpected(bad_request(info.kind + " in version \"" + info.version + "\" cannot be handled as a " +
                                       info.kind + ": " + encoded.error().message));
  }
  // A member both unknown and repeated is named as unknown only, as kube's typed decoder does.
  auto problems = field_problems(options.duplicate_fields, encoded->warnings, true, options.json_body);
  if (strict && !problems.empty()) return std::unexpected(strict_decoding_error(problems));
  if (options.warnings) options.warnings->insert(options.warnings->end(), problems.begin(), problems.end());
  nlohmann::json out = object;
  if (!encoded->warnings.empty() || options.field_validation == codec::FieldValidation::Ignore) {
    auto decoded = codec::protobuf_to_json(encoded->bytes, info.proto_message);
    if (!decoded) return std::unexpected(bad_request(decoded.error().message));
    (*decoded)["apiVersion"] = object.value("apiVersion", info.api_version());
    (*decoded)["kind"] = object.value("kind", info.kind);
    out = std::move(*decoded);
  }
  fill_go_shape(info, out);
  return out;
}

storage::Result<void> Registry::start_cache(const api::ResourceInfo& info) {
  cache::CacheOptions options;
  options.prefix = key_prefix(info, "");
  options.api_version = info.api_version();
  options.kind = info.kind;
  const auto* spec = kinds::find_kind(info);
  options.index_field = spec ? spec->index_field : "";
  options.dispatch_threads = m_options.watch_dispatch_threads;
  options.decode = [this, info](const storage::KeyValue& kv) { return decode(info, kv); };
  auto cache = std::make_shared<cache::WatchCache>(m_backend, std::move(options));
  if (auto started = cache->start(); !started) return started;
  std::shared_ptr<cache::WatchCache> replaced;
  {
    std::lock_guard lock(m_caches_mutex);
    replaced = std::exchange(m_caches[cache_key(info)], std::move(cache));
  }
  return {};  // a replaced cache stops (closing its watchers) here, outside the lock
}

storage::Result<void> Registry::start() {
  const auto table = resources();
  // Several caches at a time: each reads its objects and starts its threads.
  auto started = util::try_each_parallel(table->all(), k_start_up_writers,
                                         [&](const api::ResourceInfo& info) { return start_cache(info); });
  if (!started) return started;
  if (auto services = start_services(); !services) return services;
  return load_definitions();
}

storage::Result<void> Registry::bootstrap() {
  if (auto created = create_bootstrap_objects(); !created) return created;
  write_service_objects();
  // Namespaces left Terminating by a previous run are cleaned up now.
  const auto* namespaces = &namespaces_info();
  if (auto stored = m_backend.list(key_prefix(*namespaces, ""), storage::ListOptions{0, 0, ""});
      stored && m_options.namespace_controller)
    for (const auto& kv : stored->items) {
      auto ns = decode_stored(*namespaces, kv.value).value_or(nlohmann::json());
      const auto meta = ns.is_object() ? ns.find("metadata") : ns.end();
      if (ns.is_object() && meta != ns.end() && meta->is_object() && meta->contains("deletionTimestamp"))
        schedule_namespace_cleanup(meta->value("name", std::string()), std::chrono::milliseconds(0));
    }
  return {};
}

storage::Result<void> Registry::create_bootstrap_objects() {
  // Namespaces first, as the other objects may live in one; then the rest, several at a time.
  std::vector<std::pair<const kinds::KindSpec*, nlohmann::json>> namespaces, others;
  for (const auto& spec : kinds::builtin_kinds())
    if (spec.bootstrap)
      for (auto& object : spec.bootstrap())
        (spec.lifecycle == kinds::Lifecycle::namespace_ ? namespaces : others).emplace_back(&spec, std::move(object));
  std::mutex report_mutex;
  auto create_missing = [&](std::pair<const kinds::KindSpec*, nlohmann::json>& row) -> storage::Result<void> {
    const auto& [spec, object] = row;
    const auto name = object["metadata"].value("name", std::string());
    const auto ns = object["metadata"].value("namespace", std::string());
    // Only a missing object is created: a create of one that exists would still be admitted
    // first, and a webhook that is down would then refuse every start.
    auto found = get(spec->info, ns, name, "");
    if (found) return {};
    if (found.error().code != 404)
      return std::unexpected(
          storage::Error{storage::ErrorCode::unavailable, name, 0,
                         "cannot read the " + spec->info.kind + " " + name + ": " + found.error().message});
    auto created = create(spec->info, ns, object, {});
    if (created || created.error().code == 409) return {};
    std::lock_guard lock(report_mutex);
    std::cerr << "kw: cannot create the " << spec->info.kind << " " << name << ": " << created.error().message << "\n";
    return {};
  };
  for (auto* rows : {&namespaces, &others})
    if (auto created = util::try_each_parallel(*rows, k_start_up_writers, create_missing); !created) return created;
  return {};
}

ApiResult<nlohmann::json> Registry::decode_patched(const api::ResourceInfo& info, nlohmann::json object) const {
  if (!object.is_object()) return std::unexpected(bad_request("the patched object is not a JSON object"));
  if (auto wrong = normalize_meta_types(object)) return std::unexpected(bad_request(*wrong));
  WriteOptions quiet;
  quiet.field_validation = codec::FieldValidation::Ignore;
  return decoded_as_kind(info, std::move(object), quiet);
}

ApiResult<nlohmann::json> Registry::decoded_as_kind(const api::ResourceInfo& info, nlohmann::json object,
                                                    const WriteOptions& options) const {
  object["kind"] = info.kind;
  object["apiVersion"] = info.api_version();
  auto normalized = normalize(info, object, options);
  if (!normalized) return std::unexpected(normalized.error());
  apply_defaults(info, *normalized, false);
  return normalized;
}

std::shared_ptr<const Registry::AdmissionChain> Registry::admission_chain() const {
  std::lock_guard lock(m_admission_mutex);
  return m_admission;
}

void Registry::add_admission_check(AdmissionCheck check) {
  std::lock_guard lock(m_admission_mutex);
  auto next = std::make_shared<AdmissionChain>(*m_admission);
  next->checks.push_back(std::move(check));
  m_admission = std::move(next);
}

void Registry::add_admission_mutation(AdmissionMutation mutation) {
  std::lock_guard lock(m_admission_mutex);
  auto next = std::make_shared<AdmissionChain>(*m_admission);
  next->mutations.push_back(std::move(mutation));
  m_admission = std::move(next);
}

ApiResult<void> Registry::mutate(const AdmissionRequest& request, nlohmann::json& object) const {
  const auto chain = admission_chain();
  for (const auto& mutation : chain->mutations)
    if (auto mutated = mutation(request, object); !mutated) return mutated;
  return {};
}

ApiResult<void> Registry::admit(const AdmissionRequest& request) const {
  const auto chain = admission_chain();
  for (const auto& check : chain->checks)
    if (auto admitted = check(request); !admitted) return admitted;
  return {};
}

ApiResult<std::shared_ptr<const WriteOptions::Mutated>> Registry::admit_unchanged(const api::ResourceInfo& info,
                                                                                   const std::string& ns,
                                                                                   const std::string& name,
                                                                                   const nlohmann::json& live,
                                                                                   const WriteOptions& options) const {
  if (!admission_chain()->mutations.empty()) {
    nlohmann::json object = live;
    if (auto mutated = mutate(admission_request(info, "UPDATE", ns, name, object, &live, options), object); !mutated)
      return std::unexpected(mutated.error());
    if (object != live) {
      const auto revision = parse_revision(metadata(object).value("resourceVersion", std::string()));
      return std::make_shared<const WriteOptions::Mutated>(WriteOptions::Mutated{revision.value_or(0), std::move(object)});
    }
  }
  if (auto admitted = admit(admission_request(info, "UPDATE", ns, name, live, &live, options)); !admitted)
    return std::unexpected(admitted.error());
  return nullptr;
}

ApiResult<void> Registry::admit_create(const api::ResourceInfo& info, const std::string& ns, const std::string& name,
                                       nlohmann::json& object, const WriteOptions& options) const {
  if (auto mutated = mutate(admission_request(info, "CREATE", ns, name, object, nullptr, options), object); !mutated)
    return mutated;
  return admit(admission_request(info, "CREATE", ns, name, object, nullptr, options));
}

storage::Result<void> Registry::storage_health() { return m_backend.health(); }

bool Registry::ready() const {
  std::lock_guard lock(m_caches_mutex);
  if (m_caches.empty()) return false;
  for (const auto& [prefix, cache] : m_caches)
    if (!cache->ready()) return false;
  return true;
}

std::shared_ptr<cache::WatchCache> Registry::cache_for(const api::ResourceInfo& info) {
  std::lock_guard lock(m_caches_mutex);
  auto found = m_caches.find(cache_key(info));
  return found == m_caches.end() ? nullptr : found->second;
}

std::vector<std::pair<std::string, cache::CacheMetrics>> Registry::cache_metrics() const {
  std::lock_guard lock(m_caches_mutex);
  std::vector<std::pair<std::string, cache::CacheMetrics>> out;
  for (const auto& [prefix, cache] : m_caches) out.emplace_back(prefix, cache->metrics());
  return out;
}

ApiResult<cache::WatchFilter> Registry::make_filter(const api::ResourceInfo& info, const std::string& ns,
                                                    const std::string& label_selector,
                                                    const std::string& field_selector) const {
  auto labels = api::LabelSelector::parse(label_selector);
  if (!labels) return std::unexpected(bad_request("unable to parse labelSelector: " + labels.error().message));
  auto fields = api::FieldSelector::parse(field_selector);
  if (!fields) return std::unexpected(bad_request("unable to parse fieldSelector: " + fields.error().message));
  const auto* spec = kinds::find_kind(info);
  const auto supported = selectable_fields(spec, info, nlohmann::json::object());
  for (const auto& requirement : fields->requirements())
    if (!supported.contains(requirement.field))
      return std::unexpected(bad_request("field label not supported: " + requirement.field));
  cache::WatchFilter filter;
  filter.namespace_ = info.namespaced ? ns : "";
  const std::string index_field = spec ? spec->index_field : "";
  for (const auto& requirement : fields->requirements()) {
    if (requirement.op != api::FieldOperator::equals) continue;
    if (!index_field.empty() && requirement.field == index_field) filter.index_value = requirement.value;
    // One object's watchers (a kubelet's own Node) are found by name, not by visiting all.
    if (requirement.field == "metadata.name") filter.name = requirement.value;
  }
  if (!labels->empty() || !fields->empty())
    filter.matches = [labels = *labels, fields = *fields](const cache::StoredObject& o) {
      return labels.matches(o.labels) && fields.matches(o.fields);
    };
  return filter;
}

ApiResult<void> Registry::watch(const api::ResourceInfo& info, const WatchRequest& request, const SinkFactory& open) {
  auto filter = make_filter(info, request.namespace_, request.label_selector, request.field_selector);
  if (!filter) return std::unexpected(filter.error());
  if (!request.name.empty()) filter->name = request.name;  // a selector naming another matches nothing
  const auto& rv = request.resource_version;
  const auto& initial_events = request.send_initial_events;
  if (auto refused = list_options_refusal(
          {.match = request.resource_version_match, .resource_version = rv, .watch = true, .initial_events = initial_events}))
    return std::unexpected(std::move(*refused));
  cache::WatchRequest watch;
  watch.filter = std::move(*filter);
  watch.allow_bookmarks = request.allow_bookmarks;
  watch.deadline = request.deadline;
  if (!rv.empty()) {
    const auto revision = parse_revision(rv);
    if (!revision) return std::unexpected(bad_request("invalid resource version: " + rv));
    watch.revision = *revision;
  }
  // With no revision given, the cache first catches up with storage (a consistent start).
  watch.consistent = rv.empty();
  const bool initial = initial_events.value_or(false);
  if (initial || (!initial_events && (rv.empty() || rv == "0"))) {
    // The current state first.
    watch.mode = cache::StartMode::current_state;
    watch.initial_events_end = initial && request.allow_bookmarks;
  } else {
    // Changes only: after the revision given, or, for sendInitialEvents=false, from now on.
    watch.mode = cache::StartMode::exact;
  }
  auto cache = cache_for(info);
  if (!cache || !cache->ready())
    return std::unexpected(ApiError{429, "TooManyRequests", "the watch cache is not ready yet; retry",
                                    {{"retryAfterSeconds", 1}}});
  if (watch.mode == cache::StartMode::exact && rv == "0") watch.revision = cache->revision();
  auto started = cache->watch(watch, open());
  if (!started) {
    auto status = from_storage(started.error(), info.group, info.plural, "");
    if (started.error().code == storage::ErrorCode::compacted) status.message = started.error().message;
    return std::unexpected(std::move(status));
  }
  return {};
}

ApiResult<nlohmann::json> Registry::prepare_new(const api::ResourceInfo& info, nlohmann::json object,
                                                const WriteOptions& options) const {
  if (!object.is_object()) return std::unexpected(bad_request("the request body must be a JSON object"));
  if (auto wrong = normalize_meta_types(object)) return std::unexpected(bad_request(*wrong));
  if (object.value("kind", info.kind) != info.kind || object.value("apiVersion", info.api_version()) != info.api_version())
    return std::unexpected(bad_request("the API version in the data (" + object.value("apiVersion", std::string()) +
                                       ") and kind (" + object.value("kind", std::string()) +
                                       ") do not match the resource " + info.plural + " (" + info.api_version() +
                                       ", " + info.kind + ")"));
  return decoded_as_kind(info, std::move(object), options);
}

ApiResult<nlohmann::json> Registry::create(const api::ResourceInfo& info, const std::string& ns, nlohmann::json object,
                                           const WriteOptions& options) {
  auto prepared = prepare_new(info, std::move(object), options);
  if (!prepared) return prepared;
  object = std::move(*prepared);
  if (options.decoded) options.decoded(object);
  // Status is written through /status only: a create starts without one (the kind's
  // prepare_create gives it its first), except where the row says otherwise (Node).
  if (info.has_subresource("status") && !(kinds::find_kind(info) && kinds::find_kind(info)->create_keeps_status)) object.erase("status");
  if (info.namespaced) {
    const auto body_ns = metadata(object).value("namespace", std::string());
    if (!body_ns.empty() && body_ns != ns)
      return std::unexpected(bad_request("the namespace of the provided object does not match the namespace sent on the request"));
    metadata(object)["namespace"] = ns;
  } else {
    metadata(object).erase("namespace");
  }
  object = track_update(info, nullptr, std::move(object), options);
  if (!admission_chain()->mutations.empty() && !options.admitted) {
    static const std::string k_unnamed;  // a create's name is not known to admission yet
    if (auto mutated = mutate(admission_request(info, "CREATE", ns, k_unnamed, object, nullptr, options), object);
        !mutated)
      return std::unexpected(mutated.error());
  }
  auto& meta = metadata(object);  // (after admission, which may have replaced the object)
  // The prefix is cut so that the generated name stays within 63 characters.
  auto generated_name = [this](const std::string& prefix) { return prefix.substr(0, 58) + m_options.name_suffix(); };
  const bool generated = meta.value("name", std::string()).empty() && !meta.value("generateName", std::string()).empty();
  if (generated) meta["name"] = generated_name(meta["generateName"].get<std::string>());
  std::string name = meta.value("name", std::string());
  for (const char* server_set : {"resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"})
    meta.erase(server_set);
  meta["uid"] = util::new_uuid();
  meta["creationTimestamp"] = now_rfc3339();
  if (info.custom || (kinds::find_kind(info) && kinds::find_kind(info)->generation)) meta["generation"] = 1;
  if (const auto& strategy = strategy_of(info); strategy.create_warnings && options.warnings)
    strategy.create_warnings(object, *options.warnings);
  if (const auto& strategy = strategy_of(info); strategy.prepare_create) strategy.prepare_create(object);
  if (const auto& strategy = strategy_of(info); strategy.stamp_requester && options.requester.is_object())
    strategy.stamp_requester(object, options.requester);
  fill_go_shape(info, object);
  auto causes = validate_object(kinds::find_kind(info), object, true);
  if (info.custom) append_rule_causes(info, object, nullptr, causes);
  if (!causes.empty()) return std::unexpected(invalid(info.group, info.kind, name, causes, causes_summary(causes)));
  if (is_definitions(info))
    if (auto prepared = prepare_definition(object); !prepared) return std::unexpected(prepared.error());
  add_write_warnings(info, object, nullptr, options);
  if (!options.admitted)
    if (auto admitted = admit(admission_request(info, "CREATE", ns, name, object, nullptr, options)); !admitted)
      return std::unexpected(admitted.error());
  auto reserved = allocate(info, object, nullptr, options.dry_run);
  if (!reserved) return std::unexpected(reserved.error());
  if (options.dry_run) return object;
  auto value = stored_value(info, object);
  if (!value) return std::unexpected(value.error());
  const auto* spec = kinds::find_kind(info);
  const auto ttl = spec && spec->uses_event_ttl ? m_options.event_ttl : std::chrono::seconds{0};
  auto written = m_backend.create(key(info, ns, name), *value, ttl);
  // A generated name that is taken is drawn again, as kube-apiserver does (1 in 14 million
  // per draw, but a busy generateName prefix holds many objects).
  for (int retry = 0; generated && retry < k_generate_name_retries && !written &&
                      written.error().code == storage::ErrorCode::exists;
       ++retry) {
    name = generated_name(meta["generateName"].get<std::string>());
    meta["name"] = name;
    value = stored_value(info, object);
    if (!value) return std::unexpected(value.error());
    written = m_backend.create(key(info, ns, name), *value, ttl);
  }
  if (!written) return std::unexpected(from_storage(written.error(), info.group, info.plural, name));
  reserved->commit();
  meta["resourceVersion"] = std::to_string(written->revision);
  storage::KeyValue stored{
      .key = key(info, ns, name), .value = std::move(*value), .create_revision = 0, .mod_revision = written->revision};
  return after_write(info, stored, std::move(object));
}

ApiResult<nlohmann::json> Registry::after_write(const api::ResourceInfo& info, const storage::KeyValue& written,
                                                nlohmann::json object) {
  if (is_definitions(info))
    if (auto installed = install_definition(object); !installed)
      return std::unexpected(ApiError{500, "InternalError",
                                      "the CustomResourceDefinition was stored but cannot be served: " +
                                          installed.error().message,
                                      {}});
  if (info.custom) return object;  // (decoding may call a conversion webhook: left to the cache)
  // As kube-apiserver answers a write: the object decoded from what was stored, which is what
  // every later read and watch sees. The watch cache takes the decoded object for its event.
  auto stored = stored_object(info, written, "");
  if (!stored) return object;
  if (auto cache = cache_for(info)) cache->offer(*stored);
  return (*stored)->object();
}

ApiResult<nlohmann::json> Registry::read_stored(const api::ResourceInfo& info, const storage::KeyValue& kv,
                                                const std::string& name, bool convert) {
  auto decoded = decode_stored(info, kv.value);
  if (!decoded)
    return std::unexpected(from_storage(storage::Error{storage::ErrorCode::corrupt, kv.key, kv.mod_revision,
                                                       decoded.error().message},
                                        info.group, info.plural, name));
  // The revision is set before conversion, as kube's decoder sets it.
  metadata(*decoded)["resourceVersion"] = std::to_string(kv.mod_revision);
  if (info.custom && convert) return convert_custom(info, std::move(*decoded), info.api_version());
  return std::move(*decoded);
}

ApiResult<nlohmann::json> Registry::update_with(
    const api::ResourceInfo& info, const std::string& ns, const std::string& name,
    const std::function<ApiResult<nlohmann::json>(const nlohmann::json&)>& mutate, const WriteOptions& options) {
  const std::string k = key(info, ns, name);
  for (int attempt = 0;; ++attempt) {
    auto current = m_backend.get(k);
    if (!current) return std::unexpected(from_storage(current.error(), info.group, info.plural, name));
    auto decoded = read_current(info, *current, name);
    if (!decoded) return decoded;
    nlohmann::json existing = std::move(*decoded);
    metadata(existing)["resourceVersion"] = std::to_string(current->mod_revision);
    if (info.custom) existing["apiVersion"] = info.api_version();
    auto wanted = mutate(existing);
    if (!wanted) return wanted;
    if (!wanted->is_object()) return std::unexpected(bad_request("the request body must be a JSON object"));
    if (auto wrong = normalize_meta_types(*wanted)) return std::unexpected(bad_request(*wrong));
    auto normalized = normalize(info, *wanted, options, &existing);
    if (!normalized) return std::unexpected(normalized.error());
    nlohmann::json object = std::move(*normalized);
    apply_defaults(info, object, options.subresource == "status");
    if (attempt == 0 && options.decoded) options.decoded(object);
    auto& meta = metadata(object);
    if (meta.value("name", name) != name)
      return std::unexpected(bad_request("the name of the object (" + meta.value("name", std::string()) +
                                         ") does not match the name on the URL (" + name + ")"));
    if (info.namespaced && meta.value("namespace", ns) != ns)
      return std::unexpected(bad_request("the namespace of the provided object does not match the namespace sent on the request"));
    // The revision the client read: a stale one is a conflict. None means "whatever is current".
    storage::Revision expected = current->mod_revision;
    if (meta.contains("resourceVersion") && meta["resourceVersion"].is_string() &&
        !meta["resourceVersion"].get<std::string>().empty()) {
      auto parsed = parse_revision(meta["resourceVersion"].get<std::string>());
      if (!parsed)
        return std::unexpected(invalid(info.group, info.kind, name,
                                       nlohmann::json::array({{{"reason", "FieldValueInvalid"},
                                                               {"message", "Invalid value: must be an integer"},
                                                               {"field", "metadata.resourceVersion"}}}),
                                       "metadata.resourceVersion: Invalid value: must be an integer"));
      expected = *parsed;
    }
    if (expected != current->mod_revision)
      return std::unexpected(from_storage(storage::Error{storage::ErrorCode::conflict, k, 0, ""}, info.group,
                                          info.plural, name));
    object["kind"] = info.kind;
    object["apiVersion"] = info.api_version();
    // The registry's own graceful delete marks the object deleted; a client's write cannot.
    nlohmann::json deletion;
    if (options.marks_deletion && meta.contains("deletionTimestamp"))
      deletion = {{"deletionTimestamp", meta["deletionTimestamp"]},
                  {"deletionGracePeriodSeconds", meta.value("deletionGracePeriodSeconds", nlohmann::json(0))}};
    const auto& old_meta = existing["metadata"];
    for (const char* kept : {"uid", "creationTimestamp", "generation", "deletionTimestamp", "namespace", "name"})
      if (old_meta.contains(kept)) meta[kept] = old_meta[kept];
      else meta.erase(kept);
    object = track_update(info, existing, std::move(object), options);
    if (!admission_chain()->mutations.empty() && !options.admitted) {
      if (const auto* done = options.mutated.get();
          done != nullptr && done->revision == current->mod_revision && same_but_revision(object, existing))
        object = done->object;
      else if (auto mutated = this->mutate(admission_request(info, "UPDATE", ns, name, object, &existing, options), object);
               !mutated)
        return std::unexpected(mutated.error());
    }
    if (options.subresource == "status" || options.subresource == "approval") {
      keep_all_but_status(object, existing, status_keeps_meta(info));
      if (const auto& strategy = strategy_of(info); strategy.prepare_subresource)
        strategy.prepare_subresource(options.subresource, object, existing);
    } else if (options.subresource == "ephemeralcontainers") {
      // The kind builds the object from the stored one (pods: only the ephemeral containers).
      if (const auto& strategy = strategy_of(info); strategy.prepare_subresource)
        strategy.prepare_subresource(options.subresource, object, existing);
    } else if (options.subresource == "finalize") {
      // namespaces/{name}/finalize: the object as sent, spec.finalizers included; status stays.
      if (existing.contains("status")) object["status"] = existing["status"];
      else object.erase("status");
    } else if (options.subresource != k_binding_write) {
      if (info.has_subresource("status")) {
        if (existing.contains("status")) object["status"] = existing["status"];
        else object.erase("status");
      }
      if (const auto& strategy = strategy_of(info); strategy.prepare_update) strategy.prepare_update(object, existing);
      // (`metadata(object)`, not `meta`: admission may have replaced the object)
      if (generation_changes(info, object, existing)) metadata(object)["generation"] = old_meta.value("generation", 0) + 1;
    }
    if (deletion.is_object()) metadata(object).update(deletion);
    fill_go_shape(info, object);
    // The registry's own deletion marks (graceful deletion, finalizers on delete) are not
    // validated, as kube-apiserver's deletion update is not: an object stored before a rule
    // tightened can still be deleted.
    nlohmann::json causes = nlohmann::json::array();
    if (!options.marks_deletion) {
      causes = validate_object(kinds::find_kind(info), object, false);
      if (const auto& strategy = strategy_of(info); strategy.validate_update && options.subresource.empty())
        strategy.validate_update(object, existing, causes);
      if (const auto& strategy = strategy_of(info); strategy.validate_subresource && !options.subresource.empty())
        strategy.validate_subresource(options.subresource, object, existing, causes);
    }
    if (info.custom && causes.empty() && !options.marks_deletion) append_rule_causes(info, object, &existing, causes);
    if (!causes.empty())
      return std::unexpected(invalid(info.group, info.kind, name, causes, causes_summary(causes)));
    if (info.custom && options.subresource == "status")
      if (auto checked = check_custom(info, object, &existing); !checked) return std::unexpected(checked.error());
    if (is_definitions(info))
      if (auto prepared = prepare_definition(object, &existing); !prepared) return std::unexpected(prepared.error());
    add_write_warnings(info, object, &existing, options);
    if (!options.admitted)
      if (auto admitted = admit(admission_request(info, "UPDATE", ns, name, object, &existing, options)); !admitted)
        return std::unexpected(admitted.error());
    metadata(object).erase("resourceVersion");
    const bool deletes = finishes_deletion(info, object, existing);
    auto reserved = deletes ? ApiResult<ServiceAllocator::Reservation>() : allocate(info, object, &existing, options.dry_run);
    if (!reserved) return std::unexpected(reserved.error());
    if (options.dry_run) {
      metadata(object)["resourceVersion"] = std::to_string(current->mod_revision);
      return object;
    }
    if (deletes) {
      // The last finalizer of an object being deleted is gone: the update is its deletion.
      auto removed = m_backend.remove(k, current->mod_revision);
      if (removed) {
        released(info, existing);
        metadata(object)["resourceVersion"] = std::to_string(removed->revision);
        if (is_definitions(info))
          if (auto retired = retire_definition(name); !retired) return std::unexpected(retired.error());
        return object;
      }
      if (removed.error().code != storage::ErrorCode::conflict || attempt >= k_update_retries)
        return std::unexpected(from_storage(removed.error(), info.group, info.plural, name));
      continue;
    }
    keep_managed_field_times(object, existing);
    auto value = stored_value(info, object);
    if (!value) return std::unexpected(value.error());
    if (*value == current->value) {
      // Nothing changed: no write, no new revision and no watch event, as kube-apiserver's
      // GuaranteedUpdate skips a write whose bytes equal the stored ones.
      reserved->commit();
      metadata(object)["resourceVersion"] = std::to_string(current->mod_revision);
      return object;
    }
    auto written = m_backend.update(k, *value, current->mod_revision);
    if (written) {
      reserved->commit();
      released(info, existing, &object);
      metadata(object)["resourceVersion"] = std::to_string(written->revision);
      storage::KeyValue stored{
          .key = k, .value = std::move(*value), .create_revision = 0, .mod_revision = written->revision};
      return after_write(info, stored, std::move(object));
    }
    // A write raced ours: read again and redo the change. A revision the client pinned (in a
    // PUT body or inside a patch) no longer matches then, and that is the 409; a patch
    // that did not pin one applies to the new object, as kube-apiserver's patch retries do.
    if (written.error().code != storage::ErrorCode::conflict || attempt >= k_update_retries)
      return std::unexpected(from_storage(written.error(), info.group, info.plural, name));
  }
}

ApiResult<nlohmann::json> Registry::prepare_review(const api::ResourceInfo& info, const std::string& ns,
                                                   nlohmann::json object, const WriteOptions& options) const {
  auto prepared = prepare_new(info, std::move(object), options);
  if (!prepared) return prepared;
  object = std::move(*prepared);
  if (options.decoded) options.decoded(object);
  auto& meta = metadata(object);
  if (info.namespaced) meta["namespace"] = ns;
  // Reviews are answered, not stored: their metadata is what the client sent (a Go zero time
  // for creationTimestamp), and their status is the answer.
  meta["creationTimestamp"] = nullptr;
  object.erase("status");
  const auto* spec = kinds::find_kind(info);
  nlohmann::json causes = nlohmann::json::array();
  if (spec && spec->strategy.validate) spec->strategy.validate(object, causes);
  if (!causes.empty()) {
    // kube-apiserver's access reviews name neither their kind nor an object in a 422
    // (".authorization.k8s.io \"\" is invalid: ...").
    const bool access = spec && (spec->review == kinds::Review::subject_access ||
                                 spec->review == kinds::Review::self_subject_access);
    return std::unexpected(invalid(info.group, access ? "" : info.kind, access ? "" : meta.value("name", std::string()),
                                   causes, causes_summary(causes)));
  }
  return object;
}

ApiResult<nlohmann::json> Registry::bind(const std::string& ns, const std::string& pod, nlohmann::json binding,
                                         const WriteOptions& options) {
  const auto* pods = resources()->find_plural("", "v1", "pods");
  if (pods == nullptr) return std::unexpected(bad_request("pods are not served"));
  // ValidatePodBinding.
  const auto target = binding.value("target", nlohmann::json::object());
  kinds::Causes causes = nlohmann::json::array();
  const auto kind = target.value("kind", std::string());
  if (!kind.empty() && kind != "Node") kinds::unsupported(causes, "target.kind", kind, {"Node", "<empty>"});
  if (target.value("name", std::string()).empty()) kinds::required(causes, "target.name");
  if (!causes.empty()) return std::unexpected(invalid("", "Binding", pod, causes, causes_summary(causes)));
  WriteOptions binding_write = options;
  binding_write.subresource = "binding";
  binding["kind"] = "Binding";
  binding["apiVersion"] = "v1";
  if (auto admitted = admit_create(*pods, ns, pod, binding, binding_write); !admitted)
    return std::unexpected(admitted.error());
  binding_write.admitted = true;
  // (what admission left: a mutating webhook may have changed the binding)
  const std::string node = binding.value("target", nlohmann::json::object()).value("name", std::string());
  const auto uid = binding.value("metadata", nlohmann::json::object()).value("uid", std::string());
  const auto annotations = binding.value("metadata", nlohmann::json::object()).value("annotations", nlohmann::json());
  auto bound = update_with(
      *pods, ns, pod,
      [&](const nlohmann::json& current) -> ApiResult<nlohmann::json> {
        const auto& meta = current.value("metadata", nlohmann::json::object());
        if (current.contains("metadata") && meta.contains("deletionTimestamp"))
          return std::unexpected(ApiError{409, "Conflict", "pod " + pod + " is being deleted, cannot be assigned to a host",
                                          {{"name", pod}, {"kind", "pods"}}});
        if (!uid.empty() && meta.value("uid", std::string()) != uid)
          return std::unexpected(conflict("", "pods", pod,
                                          "the UID in the precondition (" + uid + ") does not match the UID in record (" +
                                              meta.value("uid", std::string()) +
                                              "). The object might have been deleted and then recreated"));
        const auto assigned = current.value("spec", nlohmann::json::object()).value("nodeName", std::string());
        if (!assigned.empty())
          return std::unexpected(ApiError{409, "Conflict",
                                          "Operation cannot be fulfilled on pods/binding \"" + pod + "\": pod " + pod +
                                              " is already assigned to node \"" + assigned + "\"",
                                          {{"name", pod}, {"group", ""}, {"kind", "pods/binding"}}});
        nlohmann::json next = current;
        next["spec"]["nodeName"] = node;
        if (annotations.is_object())
          for (const auto& [k, v] : annotations.items()) next["metadata"]["annotations"][k] = v;
        if (!next["status"].is_object()) next["status"] = nlohmann::json::object();
        set_condition(next["status"], "PodScheduled", "True", now_rfc3339())["lastProbeTime"] = nullptr;
        return next;
      },
      binding_write);
  if (!bound) return std::unexpected(bound.error());
  return nlohmann::json{{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
                        {"status", "Success"}, {"code", 201}};
}

ApiResult<nlohmann::json> Registry::update(const api::ResourceInfo& info, const std::string& ns,
                                           const std::string& name, nlohmann::json object,
                                           const WriteOptions& options) {
  return update_with(info, ns, name, [&](const nlohmann::json&) -> ApiResult<nlohmann::json> { return object; },
                     options);
}

namespace {

// What a DELETE does to an object (kube-apiserver's BeforeDelete and the garbage collector's
// deletion finalizers): the finalizers it ends up with, and whether it is marked and kept
// (finalizers pending, or a graceful deletion) or removed now.
struct DeletionPlan {
  std::optional<nlohmann::json> finalizers;  // set when the options change them
  bool keep = false;                         // update instead of remove
  bool mark = false;                         // set deletionTimestamp + grace
  std::int64_t grace = 0;
};

ApiResult<DeletionPlan> deletion_plan(const kinds::KindSpec* spec, const nlohmann::json& object,
                                      const nlohmann::json& options) {
  const auto opts = options.is_object() ? options : nlohmann::json::object();
  const auto policy = opts.value("propagationPolicy", nlohmann::json());
  const auto orphan = opts.value("orphanDependents", nlohmann::json());
  if (!policy.is_null() && policy != "Orphan" && policy != "Background" && policy != "Foreground")
    return std::unexpected(ApiError{422, "Invalid",
                                    "propagationPolicy: Unsupported value: " + policy.dump() +
                                        ": supported values: \"Foreground\", \"Background\", \"Orphan\"",
                                    {}});
  if (!policy.is_null() && !orphan.is_null())
    return std::unexpected(ApiError{422, "Invalid",
                                    "orphanDependents: Invalid value: " + orphan.dump() +
                                        ": OrphanDependents and DeletionPropagation cannot be both set",
                                    {}});
  const auto grace_option = opts.value("gracePeriodSeconds", nlohmann::json());
  const std::int64_t requested = grace_option.is_number_integer() ? grace_option.get<std::int64_t>() : -1;
  const auto& meta = object.value("metadata", nlohmann::json::object());
  const auto old_finalizers = meta.value("finalizers", nlohmann::json::array());
  auto has = [&](const char* f) { return std::find(old_finalizers.begin(), old_finalizers.end(), f) != old_finalizers.end(); };
  // Dependents: orphaned, deleted first (foreground), or left to the collector (background).
  bool orphaning = has("orphan");
  bool foreground = has("foregroundDeletion") && !orphaning;
  if (orphan.is_boolean()) {
    orphaning = orphan.get<bool>();
    foreground = false;
  } else if (policy.is_string()) {
    orphaning = policy == "Orphan";
    foreground = policy == "Foreground";
  }
  nlohmann::json finalizers = nlohmann::json::array();
  for (const auto& f : old_finalizers)
    if (f != "orphan" && f != "foregroundDeletion") finalizers.push_back(f);
  if (orphaning) finalizers.push_back("orphan");
  if (foreground) finalizers.push_back("foregroundDeletion");
  DeletionPlan plan;
  auto as_set = [](nlohmann::json list) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    return list;
  };
  if (meta.contains("deletionTimestamp")) {
    // Being deleted already: finalizers stay as they are; a pod's grace period may only shorten.
    const auto current = meta.value("deletionGracePeriodSeconds", nlohmann::json());
    if (spec && spec->strategy.grace_period && current.is_number_integer() && requested >= 0 &&
        requested < current.get<std::int64_t>()) {
      plan.mark = true;
      plan.grace = requested;
    }
    plan.keep = !(plan.mark && plan.grace == 0 && old_finalizers.empty());
    return plan;
  }
  if (as_set(finalizers) != as_set(old_finalizers)) plan.finalizers = finalizers;
  const std::int64_t grace = spec && spec->strategy.grace_period ? spec->strategy.grace_period(object, requested) : 0;
  plan.grace = std::max<std::int64_t>(grace, 0);
  plan.keep = !finalizers.empty() || plan.grace > 0;
  plan.mark = plan.keep;
  return plan;
}

}  // namespace

ApiResult<Removed> Registry::remove(const api::ResourceInfo& info, const std::string& ns, const std::string& name,
                                    const nlohmann::json& delete_options, const WriteOptions& options) {
  auto kept = [](ApiResult<nlohmann::json> object) -> ApiResult<Removed> {
    if (!object) return std::unexpected(object.error());
    return Removed{std::move(*object), false};
  };
  // Mutating admission sees a DELETE before anything else (NamespaceLifecycle keeps the system
  // namespaces); validating admission sees the stored object, once it is read.
  if (!admission_chain()->mutations.empty() && !options.admitted) {
    nlohmann::json scratch;
    if (auto mutated = mutate(admission_request(info, "DELETE", ns, name, k_no_object, nullptr, options), scratch);
        !mutated)
      return std::unexpected(mutated.error());
  }
  if (lifecycle_of(info) == kinds::Lifecycle::namespace_)
    return remove_namespace(info, name, delete_options, options);
  const std::string k = key(info, ns, name);
  auto current = m_backend.get(k);
  if (!current) return std::unexpected(from_storage(current.error(), info.group, info.plural, name));
  auto decoded = read_current(info, *current, name);
  if (!decoded) return std::unexpected(decoded.error());
  nlohmann::json existing = std::move(*decoded);
  const auto preconditions = delete_options.is_object() ? delete_options.value("preconditions", nlohmann::json::object())
                                                        : nlohmann::json::object();
  const auto& meta = existing["metadata"];
  if (preconditions.contains("uid") && preconditions["uid"] != meta.value("uid", nlohmann::json()))
    return std::unexpected(ApiError{409, "Conflict",
                                    "Precondition failed: UID in precondition: " + preconditions["uid"].dump() +
                                        ", UID in object meta: " + meta.value("uid", std::string()),
                                    {}});
  if (preconditions.contains("resourceVersion") &&
      preconditions["resourceVersion"] != std::to_string(current->mod_revision))
    return std::unexpected(ApiError{409, "Conflict",
                                    "Precondition failed: ResourceVersion in precondition: " +
                                        preconditions["resourceVersion"].dump() +
                                        ", ResourceVersion in object meta: " + std::to_string(current->mod_revision),
                                    {}});
  metadata(existing)["resourceVersion"] = std::to_string(current->mod_revision);
  if (!options.admitted)
    if (auto admitted = admit(admission_request(info, "DELETE", ns, name, k_no_object, &existing, options)); !admitted)
      return std::unexpected(admitted.error());
  auto plan = deletion_plan(kinds::find_kind(info), existing, delete_options);
  if (!plan) return std::unexpected(plan.error());
  if (plan->keep && !plan->mark && !plan->finalizers) return Removed{existing, false};  // being deleted already
  if (plan->keep) {
    // Finalizers or a grace period hold the object: mark it deleted and let the finalizers'
    // owners (the garbage collector, the kubelet) finish.
    return kept(update_with(info, ns, name,
                       [&](const nlohmann::json& now) -> ApiResult<nlohmann::json> {
                         nlohmann::json out = now;
                         auto& m = out["metadata"];
                         if (plan->finalizers) m["finalizers"] = *plan->finalizers;
                         if (m.value("finalizers", nlohmann::json::array()).empty()) m.erase("finalizers");
                         if (plan->mark) {
                           m["deletionTimestamp"] = rfc3339_after_seconds(m_options.clock(), plan->grace);
                           m["deletionGracePeriodSeconds"] = plan->grace;
                         }
                         return out;
                       },
                       marking_deletion(options)));
  }
  if (const auto* spec = kinds::find_kind(info); spec && spec->strategy.grace_period) {
    // A kind deleted gracefully goes at once with a grace period of 0, and answers as marked
    // (kube-apiserver's graceful update before the removal).
    metadata(existing)["deletionTimestamp"] = rfc3339_after_seconds(m_options.clock(), plan->grace);
    metadata(existing)["deletionGracePeriodSeconds"] = plan->grace;
  }
  if (options.dry_run) return Removed{existing, true};
  auto removed = m_backend.remove(k, current->mod_revision);
  if (!removed) return std::unexpected(from_storage(removed.error(), info.group, info.plural, name));
  released(info, existing);
  metadata(existing)["resourceVersion"] = std::to_string(removed->revision);
  if (is_definitions(info))
    if (auto retired = retire_definition(name); !retired) return std::unexpected(retired.error());
  return Removed{std::move(existing), true};
}

ApiResult<Removed> Registry::remove_namespace(const api::ResourceInfo& info, const std::string& name,
                                                     const nlohmann::json& delete_options,
                                                     const WriteOptions& options) {
  (void)delete_options;
  if (!admission_chain()->checks.empty()) {
    const std::string k = key(info, "", name);
    auto current = m_backend.get(k);
    if (!current) return std::unexpected(from_storage(current.error(), info.group, info.plural, name));
    auto existing = read_stored(info, *current, name);
    if (!existing) return std::unexpected(existing.error());
    metadata(*existing)["resourceVersion"] = std::to_string(current->mod_revision);
    if (auto admitted = admit(admission_request(info, "DELETE", "", name, k_no_object, &*existing, options)); !admitted)
      return std::unexpected(admitted.error());
  }
  if (!m_options.namespace_controller) {
    // Without kw's namespace controller, a namespace already Terminating goes once its
    // finalizers are done (kube-controller-manager's namespace controller empties them).
    const std::string k = key(info, "", name);
    auto current = m_backend.get(k);
    if (!current) return std::unexpected(from_storage(current.error(), info.group, info.plural, name));
    auto existing = read_stored(info, *current, name);
    if (!existing) return std::unexpected(existing.error());
    if (existing->contains("metadata") && (*existing)["metadata"].contains("deletionTimestamp")) {
      const auto& finalizers = (*existing)["spec"].value("finalizers", nlohmann::json::array());
      if (!finalizers.empty())
        return std::unexpected(ApiError{409, "Conflict",
                                        "The system is ensuring all content is removed from this namespace.  Upon "
                                        "completion, this namespace will automatically be purged by the system.",
                                        {{"name", name}, {"kind", info.plural}}});
      if (options.dry_run) return Removed{std::move(*existing), true};
      auto removed = m_backend.remove(k, current->mod_revision);
      if (!removed) return std::unexpected(from_storage(removed.error(), info.group, info.plural, name));
      metadata(*existing)["resourceVersion"] = std::to_string(removed->revision);
      return Removed{std::move(*existing), true};
    }
  }
  // Mark it Terminating (no new content); kw's namespace controller then removes its contents
  // and the namespace itself.
  auto terminating = update_with(info, "", name,
                                 [&](const nlohmann::json& now) -> ApiResult<nlohmann::json> {
                                   nlohmann::json out = now;
                                   if (!out["metadata"].contains("deletionTimestamp"))
                                     out["metadata"]["deletionTimestamp"] = now_rfc3339();
                                   out["status"] = {{"phase", "Terminating"}};
                                   return out;
                                 },
                                 {.dry_run = options.dry_run, .subresource = "status", .marks_deletion = true, .admitted = true});
  if (!terminating) return std::unexpected(terminating.error());
  if (!options.dry_run && m_options.namespace_controller) schedule_namespace_cleanup(name, m_options.namespace_cleanup_delay);
  return Removed{std::move(*terminating), false};
}

void Registry::schedule_namespace_cleanup(const std::string& name, std::chrono::milliseconds delay) {
  m_tasks->run_after(delay, [this, name] { finalize_namespace(name); });
}

void Registry::finalize_namespace(const std::string& name) {
  auto retry = [&](const std::string& why) {
    std::cerr << "kw: cleaning up namespace " << name << " failed (" << why << "); retrying in 5s\n";
    schedule_namespace_cleanup(name, std::chrono::seconds(5));
  };
  const auto table = resources();
  for (const auto& resource : table->all()) {
    if (!resource.namespaced) continue;
    for (;;) {
      auto page = m_backend.list(key_prefix(resource, name), storage::ListOptions{0, 500, "", false});
      if (!page) return retry(page.error().message);
      for (const auto& kv : page->items) {
        auto removed = m_backend.remove(kv.key);
        if (!removed && removed.error().code != storage::ErrorCode::not_found) return retry(removed.error().message);
        if (removed && lifecycle_of(resource) == kinds::Lifecycle::service)
          if (auto object = decode_stored(resource, kv.value)) released(resource, *object);
      }
      if (!page->more) break;
    }
  }
  // Emptied: the "kubernetes" finalizer goes, as the namespace controller takes it off; the
  // namespace is deleted with it unless other finalizers still hold it.
  auto finalized = update_with(
      namespaces_info(), "", name,
      [](const nlohmann::json& now) -> ApiResult<nlohmann::json> {
        nlohmann::json out = now;
        auto& finalizers = out["spec"]["finalizers"];
        if (finalizers.is_array())
          finalizers.erase(std::remove(finalizers.begin(), finalizers.end(), "kubernetes"), finalizers.end());
        if (finalizers.is_null() || finalizers.empty()) out["spec"].erase("finalizers");
        return out;
      },
      {.subresource = "finalize"});
  if (!finalized && finalized.error().code != 404) retry(finalized.error().message);
}

ApiResult<nlohmann::json> Registry::get(const api::ResourceInfo& info, const std::string& ns,
                                        const std::string& name, const std::string& resource_version) {
  if (resource_version == "0") {
    auto cached = get_cached(info, ns, name);
    if (!cached) return std::unexpected(cached.error());
    if (*cached) return (*cached)->object();
  }
  const std::string k = key(info, ns, name);
  auto stored = m_backend.get(k);
  if (!stored) return std::unexpected(from_storage(stored.error(), info.group, info.plural, name));
  return read_current(info, *stored, name);
}

ApiResult<nlohmann::json> Registry::read_current(const api::ResourceInfo& info, const storage::KeyValue& kv,
                                                 const std::string& name) {
  if (auto cached = cached_revision(info, kv.key, kv.mod_revision)) return cached->object();
  return read_stored(info, kv, name);
}

ApiResult<cache::ObjectPtr> Registry::get_object(const api::ResourceInfo& info, const std::string& ns,
                                                 const std::string& name, const std::string& resource_version) {
  if (resource_version == "0") {
    auto cached = get_cached(info, ns, name);
    if (!cached) return std::unexpected(cached.error());
    if (*cached) return std::move(*cached);
  }
  const std::string k = key(info, ns, name);
  auto stored = m_backend.get(k);
  if (!stored) return std::unexpected(from_storage(stored.error(), info.group, info.plural, name));
  if (auto cached = cached_revision(info, k, stored->mod_revision)) return cached;
  return stored_object(info, *stored, name);
}

cache::ObjectPtr Registry::cached_revision(const api::ResourceInfo& info, const std::string& key,
                                           storage::Revision revision) {
  // One revision of a key is one value: the cache's copy of it is what decoding would give,
  // but for custom objects that a conversion webhook converts: kube asks the webhook on every
  // read from storage, and so does kw.
  auto cache = cache_for(info);
  if (!cache) return nullptr;
  if (info.custom)
    if (const auto definition = definition_for(info); definition && !definition->conversion_webhook.is_null())
      return nullptr;
  auto cached = cache->get(key, false);
  return cached && (*cached)->revision == revision ? std::move(*cached) : nullptr;
}

ApiResult<cache::ObjectPtr> Registry::get_cached(const api::ResourceInfo& info, const std::string& ns,
                                                 const std::string& name) {
  auto cache = cache_for(info);
  if (!cache) return nullptr;
  auto found = cache->get(key(info, ns, name), false);
  if (found) return std::move(*found);
  if (found.error().code == storage::ErrorCode::unavailable) return nullptr;
  return std::unexpected(from_storage(found.error(), info.group, info.plural, name));
}

ApiResult<ListResult> Registry::list(const api::ResourceInfo& info, const ListRequest& request) {
  auto filter = make_filter(info, request.namespace_, request.label_selector, request.field_selector);
  if (!filter) return std::unexpected(filter.error());
  const bool exact = request.resource_version_match == "Exact";
  if (auto refused = list_options_refusal({.match = request.resource_version_match,
                                           .resource_version = request.resource_version,
                                           .continue_token = request.continue_token}))
    return std::unexpected(std::move(*refused));
  std::optional<storage::Revision> revision;
  if (!request.resource_version.empty()) {
    revision = parse_revision(request.resource_version);
    if (!revision) return std::unexpected(bad_request("invalid resource version: " + request.resource_version));
  }
  // Served from the watch cache: no pagination asked for (or RV=0, where limit is a hint).
  // A continuation always reads storage (the cache keeps no snapshots to continue from).
  const bool continued = !request.continue_token.empty();
  if (!exact && !continued && (request.limit <= 0 || revision == 0))
    if (auto cache = cache_for(info)) {
      if (revision && *revision > 0 && cache->revision() < *revision) {
        // NotOlderThan a revision the cache has not seen yet: catch up first.
        auto fresh = cache->list(*filter, true);
        if (fresh && fresh->revision < *revision)
          return std::unexpected(ApiError{504, "Timeout",
                                          "Too large resource version: " + std::to_string(*revision) +
                                              ", current: " + std::to_string(fresh->revision),
                                          {{"retryAfterSeconds", 1}}});
      }
      auto snapshot = cache->list(*filter, !revision.has_value());
      if (snapshot) {
        ListResult out;
        out.items = std::move(snapshot->items);
        out.resource_version = std::to_string(snapshot->revision);
        return out;
      }
      if (snapshot.error().code != storage::ErrorCode::unavailable &&
          snapshot.error().code != storage::ErrorCode::timeout)
        return std::unexpected(from_storage(snapshot.error(), info.group, info.plural, ""));
    }
  // Straight from storage, page by page, filtering as it goes.
  const std::string prefix = key_prefix(info, request.namespace_);
  storage::ListOptions options;
  options.limit = request.limit;
  if (exact) options.revision = *revision;
  const bool filtered = static_cast<bool>(filter->matches);
  // Objects from the start key on, as the previous page counted them (unfiltered lists).
  std::optional<std::int64_t> known = {};
  if (!request.continue_token.empty()) {
    auto token = decode_continue(request.continue_token);
    if (!token) return std::unexpected(token.error());
    if (revision && *revision != 0) return std::unexpected(bad_request("specifying resource version is not allowed when using continue"));
    options.revision = token->revision;
    options.continue_key = prefix + token->start;
    if (!filtered) known = token->remaining;
  }
  // A filtered list reports no remaining count, and a known one needs no counting.
  options.count_remaining = !filtered && !known;
  ListResult out;
  for (;;) {
    auto page = m_backend.list(prefix, options);
    if (!page) {
      if (page.error().code == storage::ErrorCode::compacted && !request.continue_token.empty())
        return std::unexpected(ApiError{410, "Expired",
                                        "The provided continue parameter is too old to display a consistent list "
                                        "result. You can start a new list without the continue parameter.",
                                        {}});
      return std::unexpected(from_storage(page.error(), info.group, info.plural, ""));
    }
    out.resource_version = std::to_string(page->revision);
    // The watch cache's copy of each item it holds at the revision read; the others decoded.
    // An object that cannot be decoded or converted fails the whole list, as in kube-apiserver.
    // The page's custom objects are converted together, in one ConversionReview.
    std::vector<cache::ObjectPtr> objects(page->items.size());
    std::vector<std::size_t> undecoded;
    std::vector<nlohmann::json> decoded;
    for (std::size_t i = 0; i < page->items.size(); ++i) {
      const auto& kv = page->items[i];
      if ((objects[i] = cached_revision(info, kv.key, kv.mod_revision))) continue;
      auto object = read_stored(info, kv, "", false);
      if (!object) return std::unexpected(object.error());
      undecoded.push_back(i);
      decoded.push_back(std::move(*object));
    }
    if (info.custom && !decoded.empty())
      if (auto converted = convert_custom_all(info, decoded, info.api_version()); !converted)
        return std::unexpected(converted.error());
    for (std::size_t j = 0; j < undecoded.size(); ++j)
      objects[undecoded[j]] = decoded_object(info, page->items[undecoded[j]], std::move(decoded[j]));
    std::string last_key;
    for (std::size_t i = 0; i < page->items.size(); ++i) {
      last_key = page->items[i].key;
      auto& object = objects[i];
      if (filter->passes(*object)) out.items.push_back(std::move(object));
      if (request.limit > 0 && static_cast<std::int64_t>(out.items.size()) >= request.limit) break;
    }
    const bool full = request.limit > 0 && static_cast<std::int64_t>(out.items.size()) >= request.limit;
    const bool more_here = !page->items.empty() && last_key != page->items.back().key;
    if (full || !page->more) {
      if (more_here || page->more) {
        if (!filtered && !more_here)
          out.remaining = known ? *known - static_cast<std::int64_t>(out.items.size()) : page->remaining;
        out.continue_token = encode_continue(page->revision, last_key.substr(prefix.size()) + '\0', out.remaining);
      }
      break;
    }
    options.revision = page->revision;
    options.continue_key = page->items.back().key + '\0';
  }
  return out;
}

}  // namespace kw::registry
