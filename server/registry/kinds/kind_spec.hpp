#pragma once
// A kind is a row. Everything kw knows about one built-in resource sits in its KindSpec:
// names, scope, verbs and subresources (the ResourceInfo that discovery, OpenAPI and the
// client read), where it lives in storage, its Table printer, its selectable fields, and
// its strategy: defaults, validation and the rules of create and update. Rows are grouped
// one file per API group version (core_v1.cpp, apps_v1.cpp, ...); nothing outside this
// folder names a kind.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"

namespace kw::kinds {

// Validation failures: a JSON array of StatusCause objects {reason, message, field}.
using Causes = nlohmann::json;

// A field that field selectors may name, and where its value sits in the object.
struct SelectableField {
  std::string name;               // "spec.nodeName"
  std::vector<std::string> path;  // {"spec", "nodeName"}
  std::string unset;              // what an object without the field reports ("false"...)
};

// How metadata.name is checked (Kubernetes' ValidateObjectMeta name functions).
enum class NameRule {
  subdomain,     // DNS-1123 subdomain (most kinds)
  label,         // DNS-1123 label (Namespace...)
  dns1035_label, // DNS-1035 label: a letter first (Service)
  path_segment,  // anything usable as one URL path segment (RBAC kinds, APIService)
  any,           // only non-empty: the row's own validate checks the form (IPAddress, CSR)
};

// Lifecycle the registry runs for the kind beyond create/update/delete.
enum class Lifecycle {
  plain,
  namespace_,  // deletion marks it Terminating; contents go first, in the background
  definition,  // a CustomResourceDefinition: writing it serves (or retires) a resource
  review,      // create-only and never stored: the answer is the object with its status filled
               // in (TokenReview, SubjectAccessReview, SelfSubjectReview...)
  binding,     // create-only, never stored: binds the named pod to a node (v1 Binding)
  computed,    // get and list only, read from the server's own state (ComponentStatus)
  service,     // cluster IPs and node ports allocated on writes, released when they go (Service)
};

// What a review kind's answer says (its status), for rows with Lifecycle::review.
enum class Review {
  none,
  token,                // TokenReview: who the token authenticates as
  self_subject,         // SelfSubjectReview: who the requester is
  subject_access,       // SubjectAccessReview, LocalSubjectAccessReview: may spec's user do it
  self_subject_access,  // SelfSubjectAccessReview: may the requester do it
  self_subject_rules,   // SelfSubjectRulesReview: what the requester may do in a namespace
};

// Metadata fields a write to the status subresource cannot change: they are taken from the
// stored object (each kind's status strategy PrepareForUpdate). Spec and every other
// top-level field except status always are.
namespace status_meta {
// metav1.ResetObjectMetaForStatus, which newer kinds (and custom resources) use. managedFields
// are not among them: they record the status write itself.
inline const std::vector<std::string> k_reset_all = {"deletionTimestamp", "generation",  "selfLink",
                                                     "labels",            "annotations", "finalizers",
                                                     "ownerReferences"};
}  // namespace status_meta

// The strategy of a kind, as Kubernetes' pkg/registry/<group>/<kind>/strategy.go has it.
// Every hook is optional. Objects are JSON with kind, apiVersion and metadata already set.
struct Strategy {
  // Every write (create, update, patch, status): write-only conveniences folded in.
  void (*canonicalize)(nlohmann::json& object) = nullptr;
  // Every write of the main resource: the API's defaults (Kubernetes' SetDefaults_*),
  // which a client reads back as if it had sent them.
  void (*defaults)(nlohmann::json& object) = nullptr;
  // Create, after uid, name and creationTimestamp are set: defaults, server-owned
  // fields (status reset, generated selectors).
  void (*prepare_create)(nlohmann::json& object) = nullptr;
  // Update of the main resource (not /status): `old` is the stored object.
  void (*prepare_update)(nlohmann::json& object, const nlohmann::json& old) = nullptr;
  // Checks of a whole object, on create and on every update.
  void (*validate)(const nlohmann::json& object, Causes& causes) = nullptr;
  // Checks of a create, in place of `validate`, for the kinds whose new objects meet rules that
  // updates do not check again (Kubernetes' ValidateXCreate where it differs from ValidateX).
  void (*validate_create)(const nlohmann::json& object, Causes& causes) = nullptr;
  // Create, before prepare_create: warnings about the object as the client sent it, which
  // prepare_create then changes (a Pod's AppArmor annotations become fields).
  void (*create_warnings)(const nlohmann::json& object, std::vector<std::string>& warnings) = nullptr;
  // Checks of an update against the stored object (immutable fields).
  void (*validate_update)(const nlohmann::json& object, const nlohmann::json& old, Causes& causes) = nullptr;
  // WarningsOnCreate (`old` null) and WarningsOnUpdate of the main resource, beyond its pod
  // template's, which the registry gives when the template changed.
  void (*warnings)(const nlohmann::json& object, const nlohmann::json* old, std::vector<std::string>& out) = nullptr;
  // Create, after prepare_create, when the request came from an authenticated user: what the
  // kind records of its requester (CSR spec.username, uid, groups, extra). `user` is an
  // authentication.k8s.io/v1 UserInfo.
  void (*stamp_requester)(nlohmann::json& object, const nlohmann::json& user) = nullptr;
  // A write through a subresource other than scale: status and approval after the registry took
  // everything but status from the stored object (the kind's own status strategy); others
  // (ephemeralcontainers) build the object from the stored one.
  void (*prepare_subresource)(std::string_view subresource, nlohmann::json& object, const nlohmann::json& old) = nullptr;
  // Checks of such a write against the stored object.
  void (*validate_subresource)(std::string_view subresource, const nlohmann::json& object, const nlohmann::json& old,
                               Causes& causes) = nullptr;
  // Graceful deletion (pods): the seconds the object stays, marked, before it goes, given the
  // DeleteOptions' gracePeriodSeconds (-1 when unset). Kinds without the hook go at once.
  std::int64_t (*grace_period)(const nlohmann::json& object, std::int64_t requested) = nullptr;
};

// A version served from another version's storage, as Kubernetes serves autoscaling/v1 from
// autoscaling/v2 objects and events.k8s.io/v1 Events from v1 Events. The converters reshape
// the fields only; the registry sets apiVersion and kind.
struct StoredAs {
  std::string api_version;  // the stored version: "autoscaling/v2", "v1"
  void (*to_stored)(nlohmann::json& object) = nullptr;    // served version -> stored version
  void (*from_stored)(nlohmann::json& object) = nullptr;  // stored version -> served version
};

struct KindSpec {
  // Names, scope, verbs, subresources, Table columns and printer. list_kind, singular,
  // proto_message and scale are derived when left empty.
  api::ResourceInfo info;
  // The etcd key segment as kube-apiserver writes it: keys are
  // <prefix>/<storage_resource>[/<namespace>]/<name>. Defaults to the plural.
  std::string storage_resource;
  // Set when the objects are stored as another version of the kind.
  std::optional<StoredAs> stored_as;
  // Stored as JSON although the kind has a protobuf message (served as protobuf on the wire),
  // as kube-apiserver stores CustomResourceDefinitions.
  bool stored_as_json = false;
  // Field selector support beyond metadata.name and metadata.namespace.
  std::vector<SelectableField> fields;
  // The field the watch cache indexes objects and watchers by ("" = none).
  std::string index_field;
  // Objects expire --event-ttl after their last write.
  bool uses_event_ttl = false;
  // metadata.generation, for the kinds whose strategy keeps one: set to 1 on create and bumped
  // when one of these fields changes ("spec", "webhooks", "metadata.labels"...; none: never
  // bumped, as PriorityClass). Unset: the kind has no generation (Service, ConfigMap, Pod...).
  std::optional<std::vector<std::string>> generation;
  // A create keeps the status the client sent (Node: the kubelet registers with it). Other kinds
  // with a status subresource start with none, plus what prepare_create gives them.
  bool create_keeps_status = false;
  // A DELETE that removes the object at once answers with the object (kube's
  // ReturnDeletedObject), not with a Success Status naming it.
  bool delete_returns_object = false;
  // Metadata fields a status write keeps from the stored object (see status_meta).
  std::vector<std::string> status_keeps_meta;
  // Where the objects hold a pod template (metadata and spec of the pods a controller makes):
  // {"spec", "template"} for Deployments, {"template"} for PodTemplates; empty for kinds without.
  std::vector<std::string> pod_template;
  NameRule name_rule = NameRule::subdomain;
  Lifecycle lifecycle = Lifecycle::plain;
  Review review = Review::none;  // set with Lifecycle::review
  Strategy strategy;
  // Objects kube-apiserver keeps in every cluster (the system namespaces and priority classes,
  // the mandatory flow control configuration): created at start-up when missing.
  std::vector<nlohmann::json> (*bootstrap)() = nullptr;
};

// Every built-in row, in discovery order ("" first, then by group as kube-apiserver
// lists them). Built once, immutable.
const std::vector<KindSpec>& builtin_kinds();
// The row of a served built-in resource; null for custom resources.
const KindSpec* find_kind(std::string_view group, std::string_view version, std::string_view plural);
// The row of `info`; null for custom resources.
const KindSpec* find_kind(const api::ResourceInfo& info);
// Every default of the row's kind on `object`: its strategy's, then a pod's on the pod template
// it holds.
void default_object(const KindSpec& row, nlohmann::json& object);
// The pod template an object of `row` holds (at row.pod_template), null when it holds none.
const nlohmann::json* pod_template_of(const KindSpec& row, const nlohmann::json& object);
nlohmann::json* pod_template_of(const KindSpec& row, nlohmann::json& object);
// The lifecycle of a served resource's row; plain for custom resources.
Lifecycle lifecycle_of(const api::ResourceInfo& info);
// The one row whose lifecycle is `lifecycle` (Namespace, CustomResourceDefinition).
const KindSpec& kind_with(Lifecycle lifecycle);
// The ResourceInfo of every row, as a table (the server's start and the client's names).
const api::ResourceTable& builtin_table();

}  // namespace kw::kinds
