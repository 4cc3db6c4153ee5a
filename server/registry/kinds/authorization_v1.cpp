// authorization.k8s.io/v1: LocalSubjectAccessReview, SelfSubjectAccessReview,
// SelfSubjectRulesReview, SubjectAccessReview. All are reviews: create-only, never stored,
// answered with their status filled in by the server's authorizer (Lifecycle::review). Kube has
// no Table printer for them, so they have no columns.
//
// Their checks read the metadata as the client sent it (with the namespace of the URL for a
// LocalSubjectAccessReview): the metadata of an access review must be empty.
#include <array>
#include <chrono>
#include <string>
#include <vector>

#include "core/api/print_support.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

// ---- values as Go's %#v prints them in a field error --------------------------------------------

// A metav1.Time: the zero time is UTC, a decoded one is in the server's local zone.
std::string go_time(const json& value) {
  const auto t = time_of(value);
  if (!t) return "time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)";
  static constexpr std::array<const char*, 12> k_months = {"January",   "February", "March",    "April",
                                                           "May",       "June",     "July",     "August",
                                                           "September", "October",  "November", "December"};
  const auto day = std::chrono::floor<std::chrono::days>(*t);
  const std::chrono::year_month_day ymd{day};
  const std::chrono::hh_mm_ss hms{std::chrono::floor<std::chrono::seconds>(*t - day)};
  return "time.Date(" + std::to_string(static_cast<int>(ymd.year())) + ", time." +
         k_months[static_cast<unsigned>(ymd.month()) - 1] + ", " + std::to_string(static_cast<unsigned>(ymd.day())) +
         ", " + std::to_string(hms.hours().count()) + ", " + std::to_string(hms.minutes().count()) + ", " +
         std::to_string(hms.seconds().count()) + ", 0, time.Local)";
}

// The metadata as kube renders a v1.ObjectMeta value (owner references and managed fields hold
// pointers kube prints as addresses; they are shown by count only).
std::string go_object_meta(const json& meta) {
  const auto& grace = at(meta, {"deletionGracePeriodSeconds"});
  const auto& owners = at(meta, {"ownerReferences"});
  const auto& managed = at(meta, {"managedFields"});
  const auto& finalizers = at(meta, {"finalizers"});  // an empty list prints as nil
  return "v1.ObjectMeta{Name:" + go_quoted(at(meta, {"name"})) +
         ", GenerateName:" + go_quoted(at(meta, {"generateName"})) +
         ", Namespace:" + go_quoted(at(meta, {"namespace"})) + ", SelfLink:" + go_quoted(at(meta, {"selfLink"})) +
         ", UID:" + go_quoted(at(meta, {"uid"})) + ", ResourceVersion:" + go_quoted(at(meta, {"resourceVersion"})) +
         ", Generation:" + std::to_string(num(at(meta, {"generation"}))) +
         ", CreationTimestamp:" + go_time(at(meta, {"creationTimestamp"})) + ", DeletionTimestamp:" +
         (time_of(at(meta, {"deletionTimestamp"})) ? go_time(at(meta, {"deletionTimestamp"})) : "<nil>") +
         ", DeletionGracePeriodSeconds:" + (grace.is_number() ? "(*int64)(" + grace.dump() + ")" : "(*int64)(nil)") +
         ", Labels:" + go_string_map(at(meta, {"labels"})) +
         ", Annotations:" + go_string_map(at(meta, {"annotations"})) + ", OwnerReferences:" +
         (size_of(owners) ? "[]v1.OwnerReference{... " + std::to_string(size_of(owners)) + " items}"
                          : "[]v1.OwnerReference(nil)") +
         ", Finalizers:" + go_slice(arr(finalizers).empty() ? json() : finalizers) + ", ManagedFields:" +
         (size_of(managed) ? "[]v1.ManagedFieldsEntry{... " + std::to_string(size_of(managed)) + " items}"
                           : "[]v1.ManagedFieldsEntry(nil)") +
         "}";
}

std::string go_non_resource_attributes(const json& attributes) {
  return "authorization.NonResourceAttributes{Path:" + go_quoted(at(attributes, {"path"})) +
         ", Verb:" + go_quoted(at(attributes, {"verb"})) + "}";
}

// ---- checks ------------------------------------------------------------------------------------

// Whether metadata holds anything but managedFields (and `except`), as Go's semantic equality
// with an empty ObjectMeta sees it.
bool metadata_set(const json& meta, std::string_view except = "") {
  if (!meta.is_object()) return false;
  for (const auto& [key, value] : meta.items()) {
    if (key == "managedFields" || key == except) continue;
    if (value.is_null() || value == "" || value == 0 || value == false) continue;
    if ((value.is_object() || value.is_array()) && value.empty()) continue;
    return true;
  }
  return false;
}

// ValidateSubjectAccessReviewSpec (with_subject) and ValidateSelfSubjectAccessReviewSpec.
void validate_access_spec(const json& spec, Causes& causes, bool with_subject) {
  const auto& resource = at(spec, {"resourceAttributes"});
  const auto& non_resource = at(spec, {"nonResourceAttributes"});
  if (resource.is_object() && non_resource.is_object())
    invalid_rendered(causes, "spec.nonResourceAttributes", go_non_resource_attributes(non_resource),
                     "cannot be specified in combination with resourceAttributes");
  if (!resource.is_object() && !non_resource.is_object())
    invalid_value(causes, "spec.resourceAttributes", "null",
                  "exactly one of nonResourceAttributes or resourceAttributes must be specified");
  if (with_subject && str(at(spec, {"user"})).empty() && arr(at(spec, {"groups"})).empty())
    invalid_value(causes, "spec.user", str(at(spec, {"user"})), "at least one of user or group must be specified");
}

void validate_subject_access_review(const json& review, Causes& causes) {
  validate_access_spec(at(review, {"spec"}), causes, true);
  if (const auto& meta = at(review, {"metadata"}); metadata_set(meta))
    invalid_rendered(causes, "metadata", go_object_meta(meta), "must be empty");
}

void validate_self_subject_access_review(const json& review, Causes& causes) {
  validate_access_spec(at(review, {"spec"}), causes, false);
  if (const auto& meta = at(review, {"metadata"}); metadata_set(meta))
    invalid_rendered(causes, "metadata", go_object_meta(meta), "must be empty");
}

void validate_local_subject_access_review(const json& review, Causes& causes) {
  const auto& spec = at(review, {"spec"});
  validate_access_spec(spec, causes, true);
  const auto& meta = at(review, {"metadata"});
  if (metadata_set(meta, "namespace"))
    invalid_rendered(causes, "metadata", go_object_meta(meta), "must be empty except for namespace");
  if (const auto& resource = at(spec, {"resourceAttributes"});
      resource.is_object() && str(at(resource, {"namespace"})) != str(at(meta, {"namespace"})))
    invalid_value(causes, "spec.resourceAttributes.namespace", str(at(resource, {"namespace"})),
                  "must match metadata.namespace");
  if (const auto& non_resource = at(spec, {"nonResourceAttributes"}); non_resource.is_object())
    invalid_rendered(causes, "spec.nonResourceAttributes", go_non_resource_attributes(non_resource),
                     "disallowed on this kind of request");
}

KindSpec review_row(const char* kind, const char* plural, bool namespaced, Review review,
                    void (*validate)(const json&, Causes&)) {
  return {.info = {.group = "authorization.k8s.io",
                   .version = "v1",
                   .kind = kind,
                   .plural = plural,
                   .namespaced = namespaced,
                   .verbs = {"create"}},
          .lifecycle = Lifecycle::review,
          .review = review,
          .strategy = {.validate = validate}};
}

}  // namespace

std::vector<KindSpec> authorization_v1_kinds() {
  return {review_row("LocalSubjectAccessReview", "localsubjectaccessreviews", true, Review::subject_access,
                     validate_local_subject_access_review),
          review_row("SelfSubjectAccessReview", "selfsubjectaccessreviews", false, Review::self_subject_access,
                     validate_self_subject_access_review),
          review_row("SelfSubjectRulesReview", "selfsubjectrulesreviews", false, Review::self_subject_rules, nullptr),
          review_row("SubjectAccessReview", "subjectaccessreviews", false, Review::subject_access,
                     validate_subject_access_review)};
}

}  // namespace kw::kinds
