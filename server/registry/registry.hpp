#pragma once
// The registry: per-resource storage strategy between the REST handlers and the backend —
// keys, validation, defaulting, server-set metadata, optimistic concurrency, namespaces —
// and one watch cache per resource serving reads and watches.
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"
#include "core/codec/protobuf.hpp"
#include "core/net/client/pool.hpp"
#include "server/apply/field_manager.hpp"
#include "server/apply/scale_fields.hpp"
#include "server/cache/watcher.hpp"
#include "server/crd/definition.hpp"
#include "server/registry/admission.hpp"
#include "server/registry/api_error.hpp"
#include "server/registry/delayed_tasks.hpp"
#include "server/registry/service_allocator.hpp"
#include "server/storage/backend.hpp"

namespace kw::cache {
class WatchCache;
}

namespace kw::registry {

using SystemClock = std::function<std::chrono::system_clock::time_point()>;

struct RegistryOptions {
  std::string prefix = "/registry";
  std::chrono::seconds event_ttl{3600};
  // A deleted namespace stays Terminating this long before its contents and then itself are
  // removed (in the background, as kube-apiserver's namespace controller does), so clients
  // deleting a manifest that holds the namespace still find the objects it names.
  std::chrono::milliseconds namespace_cleanup_delay{1000};
  // Whether kw removes a deleted namespace's contents itself (kube-controller-manager's
  // "namespace" controller). Off, a Terminating namespace stays until its spec.finalizers are
  // emptied through /finalize and it is deleted again, as kube-apiserver keeps it.
  bool namespace_controller = true;
  SystemClock clock;  // defaults to system_clock::now
  // generateName's random suffix (five characters); tests replace it to force collisions.
  std::function<std::string()> name_suffix;
  // Threads each watch cache splits a dispatch round over (cache::CacheOptions).
  int watch_dispatch_threads = 1;
  // Where Services' cluster IPs and node ports come from.
  ServiceRanges services;
  // The `kubernetes` Service in `default`: its port (0: no such Service, as without a secure
  // port) and the address its Endpoints and EndpointSlice name ("" = none).
  int kubernetes_service_port = 0;
  std::string advertise_address;
};

struct ListRequest {
  std::string namespace_ = {};
  std::string label_selector = {};
  std::string field_selector = {};
  std::string resource_version = {};        // "", "0" or a revision
  std::string resource_version_match = {};  // "", "NotOlderThan", "Exact"
  std::int64_t limit = 0;
  std::string continue_token = {};
};

struct ListResult {
  std::vector<cache::ObjectPtr> items;
  std::string resource_version;
  std::string continue_token;
  std::optional<std::int64_t> remaining;
};

struct WatchRequest {
  std::string namespace_;
  std::string name;  // a single-object watch (the path names it)
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;        // "", "0" or a revision
  std::string resource_version_match;  // "" or, with sendInitialEvents, "NotOlderThan"
  std::optional<bool> send_initial_events;
  bool allow_bookmarks = false;
  std::chrono::steady_clock::time_point deadline;  // the stream ends here
};

// Makes the sink a watch's events go to; called once the watch is sure to start.
using SinkFactory = std::function<std::shared_ptr<cache::WatchSink>()>;

struct WriteOptions {
  bool dry_run = false;
  std::string subresource;  // "" or "status"
  // Unknown fields of typed kinds: dropped silently, dropped with a warning, or refused.
  codec::FieldValidation field_validation = codec::FieldValidation::Warn;
  std::vector<std::string>* warnings = nullptr;  // where Warn's messages go (may be null)
  // The members the request's JSON body repeats ("spec.replicas"): warned about or refused
  // with the unknown fields, as field_validation says.
  std::vector<std::string> duplicate_fields = {};
  // The request's JSON body (create, update), for naming those problems in document order.
  std::string_view json_body = {};
  // Who asks: an authentication.k8s.io/v1 UserInfo (null for the server's own writes).
  nlohmann::json requester = {};
  // Set by the registry's own graceful delete (finalizers, namespaces): the write may set
  // metadata.deletionTimestamp, which is otherwise kept as stored.
  bool marks_deletion = false;
  // Who writes, as metadata.managedFields name it: the request's fieldManager, else the product
  // of its User-Agent ("unknown" when it has none). Empty for the server's own bookkeeping
  // writes, which leave managedFields as they are.
  std::string field_manager = {};
  // The object's managedFields are already this write's outcome (server-side apply).
  bool fields_tracked = false;
  // Sees the object a create or update sends, decoded and defaulted, before admission (once):
  // what the audit log records as its requestObject.
  std::function<void(const nlohmann::json&)> decoded = {};
  // Adds an annotation to the request's audit event (admission webhooks' audit annotations).
  std::function<void(const std::string& key, const std::string& value)> annotate = {};
  // Admission ran on the request that makes this write (a binding or an eviction, through
  // admit_create): the write itself is not admitted again, as kube-apiserver's subresource
  // stores write the pod without admission.
  bool admitted = false;
  // The mutating admission of this update already ran, on the stored object at `revision` (a
  // re-apply that changes nothing but what the mutations add): when the update finds that
  // revision and changes nothing itself, it stores `object` without calling them again.
  struct Mutated {
    storage::Revision revision = 0;
    nlohmann::json object;
  };
  std::shared_ptr<const Mutated> mutated = {};
};

// What a DELETE did: the object as it was removed, or as it is kept marked for deletion
// (finalizers or a grace period hold it), and which of the two.
struct Removed {
  nlohmann::json object;
  bool gone = false;  // removed now (with dryRun: would be)
};

// What a server-side apply did: the object, and whether it was created.
struct Applied {
  nlohmann::json object;  // empty when `unchanged` is set
  bool created = false;
  // When the configuration changed nothing: the watch cache's object, answered as it is
  // encoded there.
  cache::ObjectPtr unchanged;
};

// How many of the server's own objects it writes at once at start-up (bootstrap objects, the
// RBAC policy, APIServices): storage commits the writes that wait together in one transaction.
inline constexpr std::size_t k_start_up_writers = 8;

class Registry {
 public:
  Registry(storage::Backend& backend, api::ResourceTable resources, RegistryOptions options);
  ~Registry();

  // Starts a watch cache per resource, loads the stored Services' allocations and serves the
  // CustomResourceDefinitions found in storage. It writes nothing.
  storage::Result<void> start();
  // The server's own objects, written once the admission plugins are installed, as
  // kube-apiserver's post-start hooks write them through its admission chain: the rows'
  // bootstrap objects that are missing (namespaces first), the default ServiceCIDR, the
  // `kubernetes` Service with its Endpoints and EndpointSlice, and the cleanup of namespaces a
  // previous run left Terminating. A write that fails (an admission webhook refused it, say) is
  // reported on standard error and left for the next start, as Kubernetes' bootstrap
  // controllers log and go on; a failed read of storage is returned.
  storage::Result<void> bootstrap();
  // A check every create and update must pass (admission.hpp). Not thread-safe: add checks
  // before serving.
  void add_admission_check(AdmissionCheck check);
  // A change every create and update goes through before validation (admission.hpp); same rules.
  void add_admission_mutation(AdmissionMutation mutation);
  bool ready() const;
  // An object a mutating admission webhook patched, as kube-apiserver decodes it again: fields
  // the kind does not know dropped, the kind's defaults applied.
  ApiResult<nlohmann::json> decode_patched(const api::ResourceInfo& info, nlohmann::json object) const;
  // generateName's random five characters (RegistryOptions::name_suffix).
  std::string name_suffix() const { return m_options.name_suffix(); }
  // Connections to admission and conversion webhooks, kept between calls (webhook_client.hpp).
  net::client::ClientPool& webhook_clients() { return m_webhook_clients; }
  // Whether the store answers (etcd's health, or the embedded store's).
  storage::Result<void> storage_health();
  // The resources served now. CRDs change the table at run time: callers keep the snapshot
  // for as long as they use entries from it.
  std::shared_ptr<const api::ResourceTable> resources() const;

  ApiResult<nlohmann::json> create(const api::ResourceInfo& info, const std::string& ns, nlohmann::json object,
                                   const WriteOptions& options);
  ApiResult<nlohmann::json> update(const api::ResourceInfo& info, const std::string& ns, const std::string& name,
                                   nlohmann::json object, const WriteOptions& options);
  // A create of a review kind (TokenReview, SubjectAccessReview...): the object checked and
  // defaulted as a create would, never stored. The caller fills in its status.
  ApiResult<nlohmann::json> prepare_review(const api::ResourceInfo& info, const std::string& ns,
                                           nlohmann::json object, const WriteOptions& options) const;
  // Admission of a create through a subresource that stores no object of its own (a binding,
  // an eviction, a TokenRequest): `object` (the Binding, Eviction or TokenRequest, with its
  // kind and apiVersion) through the mutating, then the validating, plugins as a CREATE of
  // `info`/options.subresource named `name`.
  ApiResult<void> admit_create(const api::ResourceInfo& info, const std::string& ns, const std::string& name,
                               nlohmann::json& object, const WriteOptions& options) const;
  // A v1 Binding (POST bindings or pods/{name}/binding): assigns the pod to the target node
  // once, sets its PodScheduled condition and merges the binding's annotations. 409 when the
  // pod is bound already. Answers the Success Status kube-apiserver does.
  ApiResult<nlohmann::json> bind(const std::string& ns, const std::string& pod, nlohmann::json binding,
                                 const WriteOptions& options);
  // A policy/v1 Eviction (POST pods/{name}/eviction): the pod deleted with its deleteOptions if
  // the PodDisruptionBudget covering it allows one more disruption (429 when not). Answers the
  // Success Status kube-apiserver does.
  ApiResult<nlohmann::json> evict(const std::string& ns, const std::string& pod, const nlohmann::json& eviction,
                                  const WriteOptions& options);
  // An object the server keeps itself (the `kubernetes` Service's Endpoints, the
  // extension-apiserver-authentication ConfigMap): created when missing, else its labels and
  // the top-level `fields` made to match `object`.
  ApiResult<void> reconcile_owned(const api::ResourceInfo& info, const std::string& ns, const nlohmann::json& object,
                                  const std::vector<std::string>& fields);
  // `mutate` turns the current object into the new one (patch); retried on conflicts.
  ApiResult<nlohmann::json> update_with(const api::ResourceInfo& info, const std::string& ns,
                                        const std::string& name,
                                        const std::function<ApiResult<nlohmann::json>(const nlohmann::json&)>& mutate,
                                        const WriteOptions& options);
  // Server-side apply (PATCH application/apply-patch+yaml): `config` applied to the object by
  // options.field_manager, which becomes its owner; conflicts with other managers' fields are
  // 409 unless `force`. A missing object is created (not through a subresource).
  ApiResult<Applied> apply(const api::ResourceInfo& info, const std::string& ns, const std::string& name,
                           const nlohmann::json& config, bool force, const WriteOptions& options);
  // `delete_options` is a meta/v1 DeleteOptions (preconditions, dryRun...) or null.
  ApiResult<Removed> remove(const api::ResourceInfo& info, const std::string& ns, const std::string& name,
                            const nlohmann::json& delete_options, const WriteOptions& options);
  ApiResult<nlohmann::json> get(const api::ResourceInfo& info, const std::string& ns, const std::string& name,
                                const std::string& resource_version);
  // get() as shared, encodable once: resourceVersion "0" reads the watch cache; any other reads
  // storage and answers the cache's copy when the cache holds the very revision read (nothing
  // decoded; cached_revision), else the object decoded from the stored bytes.
  ApiResult<cache::ObjectPtr> get_object(const api::ResourceInfo& info, const std::string& ns,
                                         const std::string& name, const std::string& resource_version);
  // The watch cache's copy of the object (what resourceVersion "0" reads); null when the
  // resource has no cache or it is not ready, so the caller reads storage instead.
  ApiResult<cache::ObjectPtr> get_cached(const api::ResourceInfo& info, const std::string& ns, const std::string& name);
  ApiResult<ListResult> list(const api::ResourceInfo& info, const ListRequest& request);

  // The scale subresource: the object seen as an autoscaling/v1 Scale. `mutate` turns the
  // current Scale into the wanted one (a PUT body or a patched Scale); only spec.replicas
  // is written back, to the resource's replicas path, as an update of the main resource.
  ApiResult<nlohmann::json> get_scale(const api::ResourceInfo& info, const std::string& ns, const std::string& name);
  ApiResult<nlohmann::json> update_scale(const api::ResourceInfo& info, const std::string& ns,
                                         const std::string& name,
                                         const std::function<ApiResult<nlohmann::json>(const nlohmann::json&)>& mutate,
                                         const WriteOptions& options);

  // A watch by kube-apiserver's start rules: resourceVersion unset (a consistent current
  // state first), "0" (the cache's current state) or a revision (the changes after it);
  // sendInitialEvents with resourceVersionMatch=NotOlderThan (the state, then a bookmark
  // when allowed). Errors before `open` was called answer the request; an error after it
  // (410 Expired for a compacted revision) is the stream's only event.
  ApiResult<void> watch(const api::ResourceInfo& info, const WatchRequest& request, const SinkFactory& open);
  std::vector<std::pair<std::string, cache::CacheMetrics>> cache_metrics() const;

  std::string key_prefix(const api::ResourceInfo& info, const std::string& ns) const;

  // Equivalent resources (equivalent_resources.cpp), as kube's EquivalentResourceRegistry has
  // them: the resources of `table` kept under the same key prefix as `info` (every served
  // version of a custom resource; the built-in versions stored as one, as autoscaling/v1 and v2
  // HorizontalPodAutoscalers), `info` among them, in the table's order. With a subresource,
  // only those that serve it.
  std::vector<const api::ResourceInfo*> equivalent_resources(const api::ResourceTable& table,
                                                             const api::ResourceInfo& info,
                                                             std::string_view subresource) const;
  // An object of `from` as the equivalent resource `to`: a custom object through its CRD's
  // conversion (convert_custom), a built-in one through the version both rows are stored as.
  ApiResult<nlohmann::json> convert_equivalent(const api::ResourceInfo& from, const api::ResourceInfo& to,
                                               nlohmann::json object);

 private:
  std::string key(const api::ResourceInfo& info, const std::string& ns, const std::string& name) const;
  // read_stored() of the value just read from storage: the watch cache's copy when it holds
  // that revision (a copy of the tree, not a decoding).
  ApiResult<nlohmann::json> read_current(const api::ResourceInfo& info, const storage::KeyValue& kv,
                                         const std::string& name);
  // The watch cache's copy of `key` when it holds that revision of it, else null (always for a
  // custom resource that a conversion webhook converts, which kube converts on every read).
  cache::ObjectPtr cached_revision(const api::ResourceInfo& info, const std::string& key, storage::Revision revision);
  // The stored object at `kv` as the cache keeps it (read_stored's errors); `decode` is the
  // same for the watch cache, whose errors are storage errors.
  ApiResult<cache::ObjectPtr> stored_object(const api::ResourceInfo& info, const storage::KeyValue& kv,
                                            const std::string& name);
  // The same for an object decoded (and converted) already.
  cache::ObjectPtr decoded_object(const api::ResourceInfo& info, const storage::KeyValue& kv, nlohmann::json parsed);
  // How cached objects of `info` stored as its own protobuf are rebuilt from it (read_stored of
  // those bytes); one per resource, made on first use.
  std::shared_ptr<const cache::TreeSource> tree_source(const api::ResourceInfo& info);
  storage::Result<cache::ObjectPtr> decode(const api::ResourceInfo& info, const storage::KeyValue& kv);
  ApiResult<Removed> remove_namespace(const api::ResourceInfo& info, const std::string& name,
                                      const nlohmann::json& delete_options, const WriteOptions& options);
  // Removes a Terminating namespace's contents, then the namespace; retried on failure.
  void finalize_namespace(const std::string& name);
  void schedule_namespace_cleanup(const std::string& name, std::chrono::milliseconds delay);
  std::string now_rfc3339() const;
  // A typed object as its kind defines it: unknown fields dropped (with warnings) or
  // refused per options.field_validation; known fields kept exactly. `old`: the stored object
  // an update replaces (null on a create).
  ApiResult<nlohmann::json> normalize(const api::ResourceInfo& info, const nlohmann::json& object,
                                      const WriteOptions& options, const nlohmann::json* old = nullptr) const;

  // The object as the schema of its custom resource version allows: unknown fields pruned
  // (warned about or refused per options.field_validation), then validated (422), with the
  // errors of values an update leaves as they were ratcheted.
  ApiResult<nlohmann::json> normalize_custom(const api::ResourceInfo& info, nlohmann::json object,
                                             const WriteOptions& options, const nlohmann::json* old) const;
  ApiResult<void> check_custom(const api::ResourceInfo& info, const nlohmann::json& object,
                               const nlohmann::json* old) const;
  // The x-kubernetes-validations rules `object` breaks, appended to `causes` (`old`: the stored
  // object on an update).
  void append_rule_causes(const api::ResourceInfo& info, const nlohmann::json& object, const nlohmann::json* old,
                          nlohmann::json& causes) const;
  std::string cache_key(const api::ResourceInfo& info) const;
  // The watch cache of a served resource version; null when it is not served (any more).
  std::shared_ptr<cache::WatchCache> cache_for(const api::ResourceInfo& info);
  // A watch filter for the selectors (400 on a bad selector or an unsupported field).
  ApiResult<cache::WatchFilter> make_filter(const api::ResourceInfo& info, const std::string& ns,
                                            const std::string& label_selector,
                                            const std::string& field_selector) const;
  storage::Result<void> start_cache(const api::ResourceInfo& info);

  // CustomResourceDefinitions (custom_resources.cpp).
  // A CRD about to be written: validated (422; group and scope cannot change from
  // `previous`, the stored one, on updates) and given its serving status.
  ApiResult<void> prepare_definition(nlohmann::json& crd, const nlohmann::json* previous = nullptr) const;
  // Serves (again) the resource of a stored CRD: table entries and watch caches.
  storage::Result<void> install_definition(const nlohmann::json& crd);
  // Stops serving a CRD's resource: table entries and caches go, stored objects stay.
  void uninstall_definition(const std::string& name);
  // After a CRD left storage: stop serving it and remove its objects.
  ApiResult<void> retire_definition(const std::string& name);
  // `object` (a JSON object, metadata types checked) as the kind decodes it: apiVersion and kind
  // set, decoded through the kind's schema (options.field_validation), defaulted.
  ApiResult<nlohmann::json> decoded_as_kind(const api::ResourceInfo& info, nlohmann::json object,
                                            const WriteOptions& options) const;
  // A new object as every create sees it first: JSON object, metadata types, matching
  // apiVersion and kind, decoded through the kind's schema, defaulted.
  ApiResult<nlohmann::json> prepare_new(const api::ResourceInfo& info, nlohmann::json object,
                                        const WriteOptions& options) const;
  // The rows' bootstrap objects that are missing.
  storage::Result<void> create_bootstrap_objects();
  // The allocations of the stored Services.
  storage::Result<void> start_services();
  // The default ServiceCIDR, then the `kubernetes` Service, its Endpoints and EndpointSlice, as
  // kube-apiserver keeps them.
  void write_service_objects();
  // What the stored objects of `info` are, decoded (start-up reads).
  storage::Result<std::vector<nlohmann::json>> read_all(const api::ResourceInfo& info);
  // `old` of `info` was replaced by `now` (null: deleted, or its namespace emptied): what it
  // held and `now` does not is free.
  void released(const api::ResourceInfo& info, const nlohmann::json& old, const nlohmann::json* now = nullptr);
  // Before `object` (replacing `old`, or new) is written: cluster IPs and node ports of Services.
  ApiResult<ServiceAllocator::Reservation> allocate(const api::ResourceInfo& info, nlohmann::json& object,
                                                    const nlohmann::json* old, bool dry_run);
  storage::Result<void> load_definitions();
  std::shared_ptr<const crd::Definition> definition_for(const api::ResourceInfo& info) const;
  // managedFields (managed_fields.cpp). How writes to `info` through `subresource` are tracked;
  // null for resources whose objects are not stored (reviews) or have no known type.
  std::shared_ptr<const apply::FieldManager> field_manager_for(const api::ResourceInfo& info,
                                                               const std::string& subresource) const;
  // `next` (replacing `live`, null on create) with the managedFields of an update by
  // options.field_manager; unchanged for the server's own writes.
  nlohmann::json track_update(const api::ResourceInfo& info, const nlohmann::json& live, nlohmann::json next,
                              const WriteOptions& options) const;
  // The scale subresource (scale.cpp). One write through it, as kube-apiserver's scale handler
  // makes it: `change` turns the object's current Scale, with the managedFields the object's
  // entries give it, into the new Scale with its managedFields; its replicas and those entries
  // are written back to the object.
  ApiResult<nlohmann::json> write_scale(const api::ResourceInfo& info, const std::string& ns, const std::string& name,
                                        const std::function<ApiResult<nlohmann::json>(const nlohmann::json&)>& change,
                                        const WriteOptions& options);
  ApiResult<Applied> apply_scale(const api::ResourceInfo& info, const std::string& ns, const std::string& name,
                                 const nlohmann::json& config, bool force, const WriteOptions& options);
  // How writes through the scale subresource are tracked, on the Scale.
  std::shared_ptr<const apply::FieldManager> scale_field_manager() const;
  // Where `info`'s objects keep their replicas at each apiVersion their managedFields may name.
  apply::ReplicasPathAt replicas_paths(const api::ResourceInfo& info) const;
  // A custom object (at any version) at `api_version`: with conversion None only its apiVersion
  // changes; with Webhook the CRD's conversion webhook converts it (ConversionReview), and what
  // it may not change (name, namespace, uid, the rest of metadata but labels and annotations)
  // stays. 500 when the webhook fails.
  ApiResult<nlohmann::json> convert_custom(const api::ResourceInfo& info, nlohmann::json object,
                                           const std::string& api_version);
  // Custom objects at `api_version`, as convert_custom converts one, those of them a webhook
  // converts in one ConversionReview, as kube-apiserver converts a list (`list`: the errors
  // name the list and the items' places in the answer, as kube's do).
  ApiResult<void> convert_custom_all(const api::ResourceInfo& info, std::vector<nlohmann::json>& objects,
                                     const std::string& api_version, bool list = true);
  // The stored object at `kv` (corrupt: 500 naming the key); a custom object at info's version
  // unless `convert` is false (the caller converts it).
  ApiResult<nlohmann::json> read_stored(const api::ResourceInfo& info, const storage::KeyValue& kv,
                                        const std::string& name, bool convert = true);
  // A written object (`written`: its key, stored bytes and revision) on its way back to the
  // client, as decoded from storage; a written CRD is served from now on.
  ApiResult<nlohmann::json> after_write(const api::ResourceInfo& info, const storage::KeyValue& written,
                                        nlohmann::json object);
  // The bytes stored for `object`: see stored_value.hpp (custom resources at their storage version).
  ApiResult<std::string> stored_value(const api::ResourceInfo& info, const nlohmann::json& object);

  storage::Backend& m_backend;
  RegistryOptions m_options;
  std::mutex m_definitions_write_mutex;  // serializes CRD installs and removals; taken first
  mutable std::mutex m_resources_mutex;  // guards m_resources (the pointer) and m_definitions
  std::shared_ptr<const api::ResourceTable> m_resources;
  std::map<std::string, std::shared_ptr<const crd::Definition>> m_definitions;  // by CRD name
  // Declared before the caches, whose feed threads decode events with them until the caches stop.
  std::mutex m_tree_sources_mutex;  // guards m_tree_sources
  std::map<std::string, std::shared_ptr<const cache::TreeSource>> m_tree_sources;  // by cache_key(info)
  mutable std::mutex m_caches_mutex;  // guards m_caches (the caches themselves are thread-safe)
  std::map<std::string, std::shared_ptr<cache::WatchCache>> m_caches;  // by cache_key(info)
  // What the admission checks say about a write about to be stored.
  ApiResult<void> admit(const AdmissionRequest& request) const;
  // The mutations, in the order they were added, on `object` (request.object).
  ApiResult<void> mutate(const AdmissionRequest& request, nlohmann::json& object) const;
  // Admission of an update that leaves `live` as it is (a re-apply): null when the mutations
  // keep it and the checks pass, the object as the mutations leave it when they change it (for
  // the update to store, WriteOptions::mutated), else the refusal.
  ApiResult<std::shared_ptr<const WriteOptions::Mutated>> admit_unchanged(const api::ResourceInfo& info,
                                                                          const std::string& ns, const std::string& name,
                                                                          const nlohmann::json& live,
                                                                          const WriteOptions& options) const;

  std::unique_ptr<ServiceAllocator> m_services;  // made by start()
  net::client::ClientPool m_webhook_clients;
  // The admission plugins, replaced whole when one is added: controllers write while kw serve
  // is still installing plugins, and each admission keeps the chain it started with.
  struct AdmissionChain {
    std::vector<AdmissionCheck> checks;
    std::vector<AdmissionMutation> mutations;
  };
  std::shared_ptr<const AdmissionChain> admission_chain() const;
  mutable std::mutex m_admission_mutex;
  std::shared_ptr<const AdmissionChain> m_admission = std::make_shared<const AdmissionChain>();
  // Background work (namespace cleanup). Declared last: stopped before anything it uses.
  std::unique_ptr<DelayedTasks> m_tasks;
};

}  // namespace kw::registry
