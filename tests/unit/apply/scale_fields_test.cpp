#include <doctest/doctest.h>

#include "server/apply/scale_fields.hpp"

using namespace kw::apply;
using json = nlohmann::json;

namespace {

// apps/v1 (any version of the group) keeps replicas at .spec.replicas; other groups are unknown.
std::optional<Path> apps_replicas(std::string_view api_version) {
  if (!api_version.starts_with("apps/")) return std::nullopt;
  return field_path(".spec.replicas");
}

json entry(const std::string& manager, const std::string& operation, const std::string& api_version,
           const json& fields, const std::string& subresource = "", const std::string& time = "") {
  json e = {{"manager", manager}, {"operation", operation}, {"apiVersion", api_version}};
  if (!time.empty()) e["time"] = time;
  e["fieldsType"] = "FieldsV1";
  e["fieldsV1"] = fields;
  if (!subresource.empty()) e["subresource"] = subresource;
  return e;
}

const json k_replicas = {{"f:spec", {{"f:replicas", json::object()}}}};
const json k_replicas_and_selector = {{"f:spec", {{"f:replicas", json::object()}, {"f:selector", json::object()}}}};
const json k_selector = {{"f:spec", {{"f:selector", json::object()}}}};

}  // namespace

TEST_CASE("field_path splits a dotted replicas path into field names") {
  const Path path = field_path(".spec.forProvider.replicas");
  REQUIRE(path.size() == 3);
  CHECK(to_string(path) == ".spec.forProvider.replicas");
  CHECK(field_path("").empty());
}

TEST_CASE("the Scale's entries: workload managers owning replicas own spec.replicas at autoscaling/v1") {
  const json workload = json::array({
      entry("mgr1", "Apply", "apps/v1", k_replicas_and_selector, "", "2026-11-26T06:22:58Z"),
      entry("labeler", "Update", "apps/v1", k_selector, "", "2026-11-26T06:23:00Z"),
      entry("old", "Update", "extensions/v1beta1", k_replicas, "", "2026-11-26T06:23:01Z"),
  });
  const auto scale = scale_managed_fields(workload, apps_replicas);
  REQUIRE(scale.has_value());
  CHECK(*scale == json::array({entry("mgr1", "Apply", "autoscaling/v1", k_replicas, "", "2026-11-26T06:22:58Z")}));

  const auto none = scale_managed_fields(json::array({workload[1]}), apps_replicas);
  REQUIRE(none.has_value());
  CHECK(none->is_null());
  CHECK_FALSE(scale_managed_fields(json::array({{{"operation", "Nope"}}}), apps_replicas).has_value());
}

TEST_CASE("a Scale write by a new manager takes the replicas from the Apply manager (kube-apiserver's B6)") {
  const json workload = json::array({entry("mgr1", "Apply", "apps/v1", k_replicas_and_selector, "", "2026-11-26T06:22:58Z")});
  // The Scale after the scaler changed spec.replicas: mgr1 lost it, the scaler owns it.
  const json scale = json::array({entry("scaler", "Update", "autoscaling/v1", k_replicas, "scale", "2026-11-26T06:30:00Z")});
  const auto out = workload_managed_fields(workload, scale, apps_replicas, "apps/v1");
  REQUIRE(out.has_value());
  // The scaler's entry is the workload's version's and has no time: it had no workload entry.
  CHECK(*out == json::array({entry("mgr1", "Apply", "apps/v1", k_selector, "", "2026-11-26T06:22:58Z"),
                             entry("scaler", "Update", "apps/v1", k_replicas, "scale")}));
}

TEST_CASE("an Apply manager still owning spec.replicas on the Scale keeps its entry as it was") {
  const json workload = json::array({entry("mgr1", "Apply", "apps/v1", k_replicas_and_selector, "", "2026-11-26T06:22:58Z")});
  const json scale = json::array({entry("mgr1", "Apply", "autoscaling/v1", k_replicas, "", "2026-11-26T06:22:58Z")});
  const auto out = workload_managed_fields(workload, scale, apps_replicas, "apps/v1");
  REQUIRE(out.has_value());
  CHECK(*out == workload);
}

TEST_CASE("an Update manager's entry is matched by identity, which names its apiVersion") {
  // kube-apiserver's scale handler matches the Scale's autoscaling/v1 Update entry against the
  // workload's apps/v1 one by identity, and the two differ: the workload entry loses replicas,
  // and the Scale's entry comes back as a second entry of the same manager.
  const json workload =
      json::array({entry("kubectl-create", "Update", "apps/v1", k_replicas_and_selector, "", "2026-11-26T06:22:58Z")});
  const json scale = json::array({entry("kubectl-create", "Update", "autoscaling/v1", k_replicas, "", "2026-11-26T06:22:58Z")});
  const auto out = workload_managed_fields(workload, scale, apps_replicas, "apps/v1");
  REQUIRE(out.has_value());
  REQUIRE(out->size() == 2);
  CHECK((*out)[0] == entry("kubectl-create", "Update", "apps/v1", k_replicas));
  CHECK((*out)[1] == entry("kubectl-create", "Update", "apps/v1", k_selector, "", "2026-11-26T06:22:58Z"));
}

TEST_CASE("workload entries of unknown versions are dropped, those of versions without scale kept") {
  const auto crd_paths = [](std::string_view api_version) -> std::optional<Path> {
    if (api_version == "example.com/v1") return field_path(".spec.size");
    if (api_version == "example.com/v1alpha1") return Path();  // served without a scale subresource
    return std::nullopt;
  };
  const json size = {{"f:spec", {{"f:size", json::object()}}}};
  const json workload = json::array({
      entry("alpha", "Update", "example.com/v1alpha1", size, "", "2026-11-26T06:00:00Z"),
      entry("gone", "Update", "example.com/v0", size, "", "2026-11-26T06:00:01Z"),
  });
  const json scale = json::array({entry("hpa", "Update", "autoscaling/v1", k_replicas, "scale")});
  const auto out = workload_managed_fields(workload, scale, crd_paths, "example.com/v1");
  REQUIRE(out.has_value());
  // (Entries without a time sort first among Update entries, as kube sorts them.)
  CHECK(*out == json::array({entry("hpa", "Update", "example.com/v1", size, "scale"),
                             entry("alpha", "Update", "example.com/v1alpha1", size, "", "2026-11-26T06:00:00Z")}));
}
