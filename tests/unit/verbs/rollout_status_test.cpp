#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli/commands/rollout_status.hpp"

using kw::cli::rollout_progress;
using nlohmann::json;

namespace {

json with(json spec, json status, int generation = 1) {
  return {{"metadata", {{"name", "x"}, {"generation", generation}}}, {"spec", std::move(spec)}, {"status", std::move(status)}};
}

}  // namespace

TEST_CASE("a deployment's rollout goes from unobserved through updated and available to done") {
  const json spec = {{"replicas", 3}};
  CHECK(rollout_progress("Deployment", with(spec, json::object()))->message ==
        "Waiting for deployment spec update to be observed...\n");
  CHECK(rollout_progress("Deployment", with(spec, {{"observedGeneration", 1}, {"updatedReplicas", 1}}))->message ==
        "Waiting for deployment \"x\" rollout to finish: 1 out of 3 new replicas have been updated...\n");
  CHECK(rollout_progress("Deployment", with(spec, {{"observedGeneration", 1}, {"replicas", 4}, {"updatedReplicas", 3}}))
            ->message == "Waiting for deployment \"x\" rollout to finish: 1 old replicas are pending termination...\n");
  auto done = rollout_progress(
      "Deployment", with(spec, {{"observedGeneration", 1}, {"replicas", 3}, {"updatedReplicas", 3}, {"availableReplicas", 3}}));
  CHECK(done->done);
  CHECK(done->message == "deployment \"x\" successfully rolled out\n");
}

TEST_CASE("a deployment past its progress deadline is an error") {
  const json status = {{"observedGeneration", 1},
                       {"conditions", {{{"type", "Progressing"}, {"reason", "ProgressDeadlineExceeded"}}}}};
  CHECK(rollout_progress("Deployment", with(json::object(), status)).error().message ==
        "deployment \"x\" exceeded its progress deadline");
}

TEST_CASE("a statefulset waits for ready pods, then for its revisions to agree") {
  const json spec = {{"replicas", 2}, {"updateStrategy", {{"type", "RollingUpdate"}}}};
  CHECK(rollout_progress("StatefulSet", with(spec, {{"observedGeneration", 1}, {"readyReplicas", 1}}))->message ==
        "Waiting for 1 pods to be ready...\n");
  CHECK(rollout_progress("StatefulSet", with(spec, {{"observedGeneration", 1}, {"readyReplicas", 2}, {"updatedReplicas", 1},
                                                    {"updateRevision", "b"}, {"currentRevision", "a"}}))
            ->message == "waiting for statefulset rolling update to complete 1 pods at revision b...\n");
  auto done = rollout_progress("StatefulSet", with(spec, {{"observedGeneration", 1}, {"readyReplicas", 2}, {"currentReplicas", 2},
                                                          {"updateRevision", "b"}, {"currentRevision", "b"}}));
  CHECK(done->done);
  CHECK(done->message == "statefulset rolling update complete 2 pods at revision b...\n");
  CHECK_FALSE(rollout_progress("StatefulSet", with({{"updateStrategy", {{"type", "OnDelete"}}}}, json::object())));
}

TEST_CASE("a daemon set waits for updated, then available pods") {
  const json spec = {{"updateStrategy", {{"type", "RollingUpdate"}}}};
  CHECK(rollout_progress("DaemonSet", with(spec, {{"observedGeneration", 1}, {"desiredNumberScheduled", 2}, {"updatedNumberScheduled", 1}}))
            ->message == "Waiting for daemon set \"x\" rollout to finish: 1 out of 2 new pods have been updated...\n");
  CHECK(rollout_progress("DaemonSet", with(spec, {{"observedGeneration", 1}, {"desiredNumberScheduled", 2},
                                                  {"updatedNumberScheduled", 2}, {"numberAvailable", 2}}))
            ->done);
}

TEST_CASE("kinds without a rollout are named in the error") {
  CHECK(rollout_progress("Pod", json::object()).error().message == "no status viewer has been implemented for Pod");
}
