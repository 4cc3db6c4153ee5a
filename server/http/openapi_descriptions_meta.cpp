// Descriptions of meta/v1 (object and list metadata, selectors, Status, options) and
// of the special value types (Time, Quantity, IntOrString).
#include <array>

#include "server/http/openapi_descriptions.hpp"

namespace kw::http::openapi {
namespace {

constexpr std::array k_meta{
    // ObjectMeta
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta",
                "Metadata every persisted object carries: its name, namespace, labels, annotations, owners and the "
                "bookkeeping fields the server maintains."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.name",
                "Name of the object, unique among objects of its kind in its namespace. Required on create unless "
                "generateName is set; cannot be changed afterwards."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.generateName",
                "Prefix from which the server makes a unique name when name is empty, by appending a random "
                "suffix. Used only on create."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.namespace",
                "Namespace the object lives in; empty for cluster-scoped kinds. Defaults to the namespace of the "
                "request, and cannot be changed."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.selfLink",
                "Deprecated and no longer set by the server: the URL of this object."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.uid",
                "Unique identifier the server assigns on create; never reused, even after deletion. Read-only."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.resourceVersion",
                "Opaque version of this object, changed by every write. Clients pass it back unchanged for "
                "optimistic concurrency on update and to resume watches. Read-only."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.generation",
                "Counter of changes to the desired state (spec), incremented by the server. Read-only."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.creationTimestamp",
                "When the server created the object (RFC 3339, UTC). Read-only."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.deletionTimestamp",
                "Set by the server when deletion was requested; the object disappears once its finalizers are "
                "gone and the grace period has passed. Read-only."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.deletionGracePeriodSeconds",
                "Seconds the object is allowed to terminate gracefully before removal; set together with "
                "deletionTimestamp. Read-only."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.labels",
                "Identifying key/value pairs used by selectors (services, controllers, kubectl -l) to pick "
                "objects."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.annotations",
                "Free-form key/value pairs for tools and people; not used for selection."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.ownerReferences",
                "Objects this one depends on. When every owner is gone, the garbage collector deletes this object; "
                "at most one owner may be the managing controller."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.finalizers",
                "Names of pending cleanup steps. A deleted object stays (with deletionTimestamp set) until this "
                "list is empty; each controller removes its own entry."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta.managedFields",
                "Which manager (field manager name and operation) owns which fields, as tracked for server-side "
                "apply. Internal; normally not edited by hand."},
    // ListMeta
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta",
                "Metadata of a list response: its resource version and the token to fetch the next page."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta.selfLink",
                "Deprecated and no longer set by the server: the URL of this list."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta.resourceVersion",
                "Resource version the list was read at; start a watch from it to receive every later change."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta.continue",
                "Set when the list was cut short by a limit: pass it as the continue parameter to get the next "
                "page. Empty on the last page."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ListMeta.remainingItemCount",
                "How many items remain after this page, when the server knows it; may be an estimate."},
    // Selectors
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector",
                "A query over labels. matchLabels and matchExpressions are ANDed; an empty selector matches every "
                "object, a null one matches none."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector.matchLabels",
                "Labels that must all be present with exactly these values."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelector.matchExpressions",
                "Requirements that must all hold, each a key, an operator and values."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement",
                "One requirement of a label selector: a key, an operator and a set of values."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement.key", "The label key it applies to."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement.operator",
                "One of In, NotIn, Exists, DoesNotExist."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement.values",
                "Values to compare with: non-empty for In and NotIn, empty for Exists and DoesNotExist."},
    // OwnerReference
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference",
                "Points at an owner of this object, which must live in the same namespace (or be cluster-scoped)."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference.apiVersion", "API version of the owner."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference.kind", "Kind of the owner."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference.name", "Name of the owner."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference.uid",
                "UID of the owner; a reference to a recreated object with the same name does not match."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference.controller",
                "True when the owner is the controller that manages this object; only one owner may set it."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.OwnerReference.blockOwnerDeletion",
                "When true and the owner is deleted with foreground propagation, the owner stays until this object "
                "is gone. Defaults to false."},
    // ManagedFieldsEntry
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry",
                "The set of fields one manager owns, with the operation that last set them."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry.manager", "Name of the field manager."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry.operation",
                "How the fields were written: Apply or Update."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry.apiVersion",
                "API version the field set is expressed in."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry.time",
                "When this manager last changed one of its fields."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry.fieldsType",
                "Format of the field set; only FieldsV1 exists."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry.fieldsV1", "The owned fields, as a trie."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry.subresource",
                "Subresource the fields were written through (status, scale), empty for the main resource."},
    // Status
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.Status",
                "Outcome of a call that returns no object, notably every error: a code, a reason and a message."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.Status.metadata", "Standard list metadata."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.Status.status", "Success or Failure."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.Status.message", "Human-readable explanation."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.Status.reason",
                "Machine-readable cause of a failure (NotFound, AlreadyExists, Conflict, Invalid, ...); empty "
                "when unknown."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.Status.details",
                "More data about the failure, depending on reason: the object concerned and per-field causes."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.Status.code", "HTTP status code of the response."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.StatusDetails",
                "The object a Status is about and the individual causes of a failure."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.StatusDetails.name", "Name of the object concerned."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.StatusDetails.group", "API group of the object concerned."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.StatusDetails.kind", "Kind of the object concerned."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.StatusDetails.uid", "UID of the object concerned."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.StatusDetails.causes",
                "Individual problems, for example each invalid field."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.StatusDetails.retryAfterSeconds",
                "Seconds the client should wait before retrying, when set."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.StatusCause", "One problem behind a failed request."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.StatusCause.reason", "Machine-readable kind of problem."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.StatusCause.message", "Human-readable explanation."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.StatusCause.field",
                "Path of the field at fault, such as spec.containers[0].name."},
    // Options and watch events
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions", "Options of a DELETE request."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions.gracePeriodSeconds",
                "Seconds to let the object terminate before it is removed; 0 means at once. Defaults to the "
                "kind's own default."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions.preconditions",
                "Conditions (UID, resource version) the object must meet to be deleted."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions.orphanDependents",
                "Deprecated: use propagationPolicy. True orphans the dependents."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions.propagationPolicy",
                "What happens to dependents: Orphan leaves them, Background deletes them after the owner, "
                "Foreground before it."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions.dryRun",
                "When [\"All\"], the request is validated but nothing is stored."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.Preconditions", "Conditions an object must meet for a write."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.Preconditions.uid", "The UID the object must have."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.Preconditions.resourceVersion",
                "The resource version the object must have."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent", "One change delivered by a watch."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent.type", "ADDED, MODIFIED, DELETED, BOOKMARK or ERROR."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent.object",
                "The object after the change; its last state for DELETED, a Status for ERROR, and only the "
                "resource version for BOOKMARK."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.Condition",
                "One aspect of an object's state: a type, whether it holds, and why."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.Condition.type", "Name of the condition, in CamelCase."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.Condition.status", "True, False or Unknown."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.Condition.observedGeneration",
                "The metadata.generation the condition was computed from."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.Condition.lastTransitionTime", "When status last changed."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.Condition.reason",
                "Machine-readable reason for the last transition, in CamelCase."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.Condition.message", "Human-readable detail."},
    // Value types
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.Time",
                "A timestamp, written as an RFC 3339 string with second precision (2024-01-31T12:00:00Z)."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime",
                "A timestamp with microsecond precision, written as an RFC 3339 string."},
    Description{"k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1",
                "A set of fields, encoded as a JSON trie of field, key and value selectors."},
    Description{"k8s.io.apimachinery.pkg.api.resource.Quantity",
                "An amount of a resource: a number with an optional suffix, binary (Ki, Mi, Gi, Ti, Pi, Ei), "
                "decimal (m, k, M, G, T, P, E) or an exponent (1e3). Examples: 500m CPU, 128Mi memory."},
    Description{"k8s.io.apimachinery.pkg.util.intstr.IntOrString",
                "Either an integer or a string, such as 8080 or \"http\", 1 or \"25%\"."},
};

}  // namespace

std::span<const Description> meta_descriptions() { return k_meta; }

}  // namespace kw::http::openapi
