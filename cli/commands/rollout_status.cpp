#include "cli/commands/rollout_status.hpp"

#include <charconv>

#include "core/api/json_access.hpp"
#include "core/util/text.hpp"

namespace kw::cli {

using nlohmann::json;

namespace {

std::int64_t number(const json& object, std::initializer_list<std::string_view> path, std::int64_t fallback = 0) {
  const json& value = api::at(object, path);
  return value.is_number_integer() ? value.get<std::int64_t>() : fallback;
}

bool has_number(const json& object, std::initializer_list<std::string_view> path) {
  return api::at(object, path).is_number_integer();
}

std::string n(std::int64_t value) { return std::to_string(value); }

// The deployment.kubernetes.io/revision annotation as a number (0 when there is none), or
// Go's ParseInt error.
Result<std::int64_t> deployment_revision(const json& d) {
  const json& annotation = api::at(d, {"metadata", "annotations", "deployment.kubernetes.io/revision"});
  if (!annotation.is_string()) return std::int64_t{0};
  const std::string& text = annotation.get_ref<const std::string&>();
  // Go's ParseInt takes a sign, '+' too.
  const char* first = text.data() + (text.starts_with('+') && text.size() > 1 && text[1] != '-' ? 1 : 0);
  const char* last = text.data() + text.size();
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(first, last, value);
  if (error == std::errc::result_out_of_range)
    return fail("strconv.ParseInt: parsing " + util::go_quote(text) + ": value out of range");
  if (error != std::errc() || end != last || first == last)
    return fail("strconv.ParseInt: parsing " + util::go_quote(text) + ": invalid syntax");
  return value;
}

Result<RolloutProgress> deployment_progress(const json& d, std::int64_t revision) {
  const std::string name = util::go_quote(api::str(api::at(d, {"metadata", "name"})));
  if (revision > 0) {
    auto running = deployment_revision(d);
    if (!running) return fail("cannot get the revision of deployment " + name + ": " + running.error().message);
    if (*running != revision)
      return fail("desired revision (" + n(revision) + ") is different from the running revision (" + n(*running) +
                  ")");
  }
  if (number(d, {"metadata", "generation"}) > number(d, {"status", "observedGeneration"}))
    return RolloutProgress{"Waiting for deployment spec update to be observed...\n", false};
  for (const auto& condition : api::arr(api::at(d, {"status", "conditions"})))
    if (api::str(api::at(condition, {"type"})) == "Progressing" &&
        api::str(api::at(condition, {"reason"})) == "ProgressDeadlineExceeded")
      return fail("deployment " + name + " exceeded its progress deadline");
  const std::int64_t updated = number(d, {"status", "updatedReplicas"});
  const std::int64_t replicas = number(d, {"status", "replicas"});
  const std::int64_t available = number(d, {"status", "availableReplicas"});
  const std::string waiting = "Waiting for deployment " + name + " rollout to finish: ";
  if (has_number(d, {"spec", "replicas"}) && updated < number(d, {"spec", "replicas"}))
    return RolloutProgress{waiting + n(updated) + " out of " + n(number(d, {"spec", "replicas"})) +
                               " new replicas have been updated...\n",
                           false};
  if (replicas > updated)
    return RolloutProgress{waiting + n(replicas - updated) + " old replicas are pending termination...\n", false};
  if (available < updated)
    return RolloutProgress{waiting + n(available) + " of " + n(updated) + " updated replicas are available...\n", false};
  return RolloutProgress{"deployment " + name + " successfully rolled out\n", true};
}

Result<RolloutProgress> statefulset_progress(const json& s) {
  const json& strategy = api::at(s, {"spec", "updateStrategy"});
  const std::string type = api::str(api::at(strategy, {"type"}));
  if (!type.empty() && type != "RollingUpdate")
    return fail("rollout status is only available for RollingUpdate strategy type");
  const std::int64_t observed = number(s, {"status", "observedGeneration"});
  if (observed == 0 || number(s, {"metadata", "generation"}) > observed)
    return RolloutProgress{"Waiting for statefulset spec update to be observed...\n", false};
  const bool has_replicas = has_number(s, {"spec", "replicas"});
  const std::int64_t replicas = number(s, {"spec", "replicas"});
  const std::int64_t ready = number(s, {"status", "readyReplicas"});
  if (has_replicas && ready < replicas)
    return RolloutProgress{"Waiting for " + n(replicas - ready) + " pods to be ready...\n", false};
  const std::int64_t updated = number(s, {"status", "updatedReplicas"});
  if (api::at(strategy, {"rollingUpdate"}).is_object()) {
    if (has_replicas && has_number(strategy, {"rollingUpdate", "partition"})) {
      const std::int64_t wanted = replicas - number(strategy, {"rollingUpdate", "partition"});
      if (updated < wanted)
        return RolloutProgress{"Waiting for partitioned roll out to finish: " + n(updated) + " out of " + n(wanted) +
                                   " new pods have been updated...\n",
                               false};
    }
    return RolloutProgress{"partitioned roll out complete: " + n(updated) + " new pods have been updated...\n", true};
  }
  const std::string update_revision = api::str(api::at(s, {"status", "updateRevision"}));
  const std::string current_revision = api::str(api::at(s, {"status", "currentRevision"}));
  if (update_revision != current_revision)
    return RolloutProgress{"waiting for statefulset rolling update to complete " + n(updated) +
                               " pods at revision " + update_revision + "...\n",
                           false};
  return RolloutProgress{"statefulset rolling update complete " + n(number(s, {"status", "currentReplicas"})) +
                             " pods at revision " + current_revision + "...\n",
                         true};
}

Result<RolloutProgress> daemonset_progress(const json& d) {
  const std::string type = api::str(api::at(d, {"spec", "updateStrategy", "type"}));
  if (!type.empty() && type != "RollingUpdate")
    return fail("rollout status is only available for RollingUpdate strategy type");
  const std::string name = util::go_quote(api::str(api::at(d, {"metadata", "name"})));
  if (number(d, {"metadata", "generation"}) > number(d, {"status", "observedGeneration"}))
    return RolloutProgress{"Waiting for daemon set spec update to be observed...\n", false};
  const std::int64_t desired = number(d, {"status", "desiredNumberScheduled"});
  const std::int64_t updated = number(d, {"status", "updatedNumberScheduled"});
  const std::int64_t available = number(d, {"status", "numberAvailable"});
  const std::string waiting = "Waiting for daemon set " + name + " rollout to finish: ";
  if (updated < desired)
    return RolloutProgress{waiting + n(updated) + " out of " + n(desired) + " new pods have been updated...\n", false};
  if (available < desired)
    return RolloutProgress{waiting + n(available) + " of " + n(desired) + " updated pods are available...\n", false};
  return RolloutProgress{"daemon set " + name + " successfully rolled out\n", true};
}

}  // namespace

Result<RolloutProgress> rollout_progress(const std::string& kind, const json& object, std::int64_t revision) {
  if (kind == "Deployment") return deployment_progress(object, revision);
  if (kind == "StatefulSet") return statefulset_progress(object);
  if (kind == "DaemonSet") return daemonset_progress(object);
  return fail("no status viewer has been implemented for " + kind);
}

}  // namespace kw::cli
