// ValidatePodUpdate's spec rules (server/registry/kinds/pod_update.cpp), through the Pod row's
// update hook as the registry calls it.
#include <doctest/doctest.h>

#include <string>

#include "server/registry/kinds/kind_spec.hpp"

using namespace kw::kinds;
using nlohmann::json;

namespace {

json stored_pod() {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "web"}, {"namespace", "default"}}},
              {"spec",
               {{"containers",
                 {{{"name", "web"},
                   {"image", "nginx:1.25"},
                   {"resources", {{"requests", {{"cpu", "500m"}, {"memory", "1Gi"}}}}}}}},
                {"tolerations", {{{"key", "a"}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", 60}}}},
                {"schedulingGates", {{{"name", "example.com/quota"}}}}}}};
  const KindSpec* row = find_kind("", "v1", "pods");
  REQUIRE(row != nullptr);
  default_object(*row, pod);
  return pod;
}

// The causes of updating `old` to `pod`, as "field|message" lines.
std::string causes_of(const json& pod, const json& old) {
  const KindSpec* row = find_kind("", "v1", "pods");
  REQUIRE(row != nullptr);
  REQUIRE(static_cast<bool>(row->strategy.validate_update));
  Causes causes = json::array();
  row->strategy.validate_update(pod, old, causes);
  std::string out;
  for (const auto& cause : causes) out += cause.value("field", "") + "|" + cause.value("message", "") + "\n";
  return out;
}

}  // namespace

TEST_CASE("pod updates: images, a shorter deadline, added tolerations and removed gates are allowed") {
  const json old = stored_pod();
  json pod = old;
  pod["metadata"]["labels"] = {{"tier", "front"}};
  pod["spec"]["containers"][0]["image"] = "nginx:1.27";
  pod["spec"]["activeDeadlineSeconds"] = 600;
  pod["spec"]["tolerations"][0]["tolerationSeconds"] = 30;
  pod["spec"]["tolerations"].push_back({{"key", "b"}, {"operator", "Exists"}});
  pod["spec"]["schedulingGates"] = json::array();
  pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "0.5";  // the same quantity
  pod["spec"]["terminationGracePeriodSeconds"] = json(30U);             // the same number, unsigned
  CHECK(causes_of(pod, old).empty());
  json later = pod;
  later["spec"]["activeDeadlineSeconds"] = 300;
  CHECK(causes_of(later, pod).empty());
}

TEST_CASE("pod updates: any other spec change is one Forbidden cause at spec") {
  const json old = stored_pod();
  json pod = old;
  pod["spec"]["containers"][0]["env"] = {{{"name", "A"}, {"value", "1"}}};
  const std::string got = causes_of(pod, old);
  CHECK(got.starts_with("spec|Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"));
  CHECK(got.find("spec.containers: changed") != std::string::npos);

  json more = old;
  more["spec"]["containers"].push_back({{"name", "side"}, {"image", "busybox"}});
  default_object(*find_kind("", "v1", "pods"), more);  // as the registry defaults a write before checking it
  CHECK(causes_of(more, old) == "spec.containers|Forbidden: pod updates may not add or remove containers\n");

  json blank = old;
  blank["spec"]["containers"][0]["image"] = " nginx";
  CHECK(causes_of(blank, old).find("spec.containers[0].image|Invalid value: \" nginx\": must not have leading or "
                                   "trailing whitespace") != std::string::npos);
}

TEST_CASE("pod updates: deadlines only shrink, tolerations only grow, gates only go") {
  json old = stored_pod();
  old["spec"]["activeDeadlineSeconds"] = 100;
  json longer = old;
  longer["spec"]["activeDeadlineSeconds"] = 200;
  CHECK(causes_of(longer, old) ==
        "spec.activeDeadlineSeconds|Invalid value: 200: must be less than or equal to previous value\n");
  json unset = old;
  unset["spec"].erase("activeDeadlineSeconds");
  CHECK(causes_of(unset, old).starts_with(
      "spec.activeDeadlineSeconds|Invalid value: null: must not update from a positive integer to nil value\n"));

  json removed = stored_pod();
  const json before = removed;
  removed["spec"]["tolerations"] = json::array();
  CHECK(causes_of(removed, before) ==
        "spec.tolerations|Forbidden: existing toleration can not be modified except its tolerationSeconds\n");

  json gated = before;
  gated["spec"]["schedulingGates"].push_back({{"name", "example.com/new"}});
  CHECK(causes_of(gated, before) ==
        "spec.schedulingGates[1].name|Forbidden: only deletion is allowed, but found new scheduling gate "
        "'example.com/new'\n");
}

TEST_CASE("pod updates: a gated pod may add node selector terms, an ungated one may not") {
  const json gated = stored_pod();
  json narrowed = gated;
  narrowed["spec"]["nodeSelector"] = {{"zone", "a"}};
  CHECK(causes_of(narrowed, gated).empty());
  json ungated = gated;
  ungated["spec"].erase("schedulingGates");
  json moved = ungated;
  moved["spec"]["nodeSelector"] = {{"zone", "a"}};
  CHECK(causes_of(moved, ungated).find("spec.nodeSelector: changed") != std::string::npos);
}
