// authentication.k8s.io/v1: SelfSubjectReview and TokenReview. Both are reviews: create-only,
// never stored, answered with their status filled in by the server (Lifecycle::review). Kube
// has no Table printer for them, so they have no columns. TokenRequest is served as the
// serviceaccounts/token subresource, not from a row.
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

KindSpec review_row(const char* kind, const char* plural, Review review) {
  return {.info = {.group = "authentication.k8s.io",
                   .version = "v1",
                   .kind = kind,
                   .plural = plural,
                   .namespaced = false,
                   .verbs = {"create"}},
          .lifecycle = Lifecycle::review,
          .review = review};
}

}  // namespace

std::vector<KindSpec> authentication_v1_kinds() {
  return {review_row("SelfSubjectReview", "selfsubjectreviews", Review::self_subject),
          review_row("TokenReview", "tokenreviews", Review::token)};
}

}  // namespace kw::kinds
