// The describers of the workload controllers: Deployment, ReplicaSet, StatefulSet, DaemonSet,
// Job and CronJob. Each shows its pod template as rollout history does.
#include <algorithm>

#include "cli/print/describe.hpp"
#include "cli/print/describe_kinds.hpp"
#include "core/api/json_access.hpp"
#include "core/api/print_support.hpp"

namespace kw::cli::describe {

namespace {

using api::arr;
using api::at;
using api::num;
using api::str;
using nlohmann::json;

void write_template(Writer& w, const json& pod_template) { w.write(0, describe_pod_template(pod_template)); }

// "Conditions:" with Type, Status and Reason, as the replica controllers show them.
void write_conditions(Writer& w, const json& object) {
  const json& conditions = arr(at(object, {"status", "conditions"}));
  if (conditions.empty()) return;
  w.write(0, "Conditions:\n  Type\tStatus\tReason\n");
  w.write(1, "----\t------\t------\n");
  for (const auto& c : conditions)
    w.write(1, str(at(c, {"type"})) + " \t" + str(at(c, {"status"})) + "\t" + str(at(c, {"reason"})) + "\n");
}

bool controlled_by(const json& object, const json& owner) {
  for (const auto& reference : arr(at(object, {"metadata", "ownerReferences"})))
    if (at(reference, {"controller"}) == true)
      return str(at(reference, {"uid"})) == str(at(owner, {"metadata", "uid"}));
  return false;
}

json without_hash(json pod_template) {
  if (auto meta = pod_template.find("metadata"); meta != pod_template.end() && meta->is_object())
    if (auto labels = meta->find("labels"); labels != meta->end() && labels->is_object()) {
      labels->erase("pod-template-hash");
      if (labels->empty()) meta->erase("labels");
    }
  return pod_template;
}

std::string replica_sets_text(const std::vector<const json*>& sets) {
  std::string out;
  for (const json* set : sets)
    out += (out.empty() ? "" : ", ") + str(at(*set, {"metadata", "name"})) + " (" +
           std::to_string(num(at(*set, {"status", "replicas"}))) + "/" +
           std::to_string(num(at(*set, {"spec", "replicas"}))) + " replicas created)";
  return out.empty() ? "<none>" : out;
}

void describe_deployment(Writer& w, const json& deployment, const Related& related, TimePoint now) {
  const json& spec = at(deployment, {"spec"});
  write_name(w, deployment);
  w.write(0, "CreationTimestamp:\t" + rfc1123z(at(deployment, {"metadata", "creationTimestamp"})) + "\n");
  write_metadata(w, deployment);
  w.write(0, "Selector:\t" + api::print::selector_string(at(spec, {"selector"})) + "\n");
  const json& status = at(deployment, {"status"});
  w.write(0, "Replicas:\t" + std::to_string(num(at(spec, {"replicas"}))) + " desired | " +
                 std::to_string(num(at(status, {"updatedReplicas"}))) + " updated | " +
                 std::to_string(num(at(status, {"replicas"}))) + " total | " +
                 std::to_string(num(at(status, {"availableReplicas"}))) + " available | " +
                 std::to_string(num(at(status, {"unavailableReplicas"}))) + " unavailable\n");
  w.write(0, "StrategyType:\t" + str(at(spec, {"strategy", "type"})) + "\n");
  w.write(0, "MinReadySeconds:\t" + std::to_string(num(at(spec, {"minReadySeconds"}))) + "\n");
  if (const json& rolling = at(spec, {"strategy", "rollingUpdate"}); rolling.is_object())
    w.write(0, "RollingUpdateStrategy:\t" + value_text(at(rolling, {"maxUnavailable"})) + " max unavailable, " +
                   value_text(at(rolling, {"maxSurge"})) + " max surge\n");
  write_template(w, at(spec, {"template"}));
  write_conditions(w, deployment);
  // The Deployment's ReplicaSets: the oldest whose template is the Deployment's own is the new
  // one, the rest old (kubectl's deployment util).
  std::vector<const json*> owned;
  for (const auto& set : related.replica_sets)
    if (controlled_by(set, deployment)) owned.push_back(&set);
  std::vector<const json*> by_age = owned;
  std::ranges::stable_sort(by_age, [](const json* a, const json* b) {
    const std::string ta = str(at(*a, {"metadata", "creationTimestamp"})),
                      tb = str(at(*b, {"metadata", "creationTimestamp"}));
    if (ta != tb) return ta < tb;
    return str(at(*a, {"metadata", "name"})) < str(at(*b, {"metadata", "name"}));
  });
  const json wanted = without_hash(at(spec, {"template"}));
  const json* newest = nullptr;
  for (const json* set : by_age)
    if (without_hash(at(*set, {"spec", "template"})) == wanted) {
      newest = set;
      break;
    }
  std::vector<const json*> old;
  for (const json* set : owned)
    if (set != newest) old.push_back(set);
  if (!old.empty() || newest) {
    w.write(0, "OldReplicaSets:\t" + replica_sets_text(old) + "\n");
    w.write(0,
            "NewReplicaSet:\t" + replica_sets_text(newest ? std::vector{newest} : std::vector<const json*>{}) + "\n");
  }
  if (related.events) write_events(w, *related.events, now);
}

void describe_replica_set(Writer& w, const json& set, const Related& related, TimePoint now) {
  write_name(w, set);
  w.write(0, "Selector:\t" + api::print::format_label_selector(at(set, {"spec", "selector"})) + "\n");
  write_metadata(w, set);
  write_controller(w, set);
  w.write(0, "Replicas:\t" + std::to_string(num(at(set, {"status", "replicas"}))) + " current / " +
                 std::to_string(num(at(set, {"spec", "replicas"}))) + " desired\n");
  w.write(0, "Pods Status:\t" + pod_status_counts(set, related.pods) + "\n");
  write_template(w, at(set, {"spec", "template"}));
  write_conditions(w, set);
  if (related.events) write_events(w, *related.events, now);
}

// A ReplicaSet's description with an equality selector and no controller line.
void describe_replication_controller(Writer& w, const json& rc, const Related& related, TimePoint now) {
  write_name(w, rc);
  w.write(0, "Selector:\t" + api::print::format_labels(at(rc, {"spec", "selector"})) + "\n");
  write_metadata(w, rc);
  w.write(0, "Replicas:\t" + std::to_string(num(at(rc, {"status", "replicas"}))) + " current / " +
                 std::to_string(num(at(rc, {"spec", "replicas"}))) + " desired\n");
  w.write(0, "Pods Status:\t" + pod_status_counts(rc, related.pods) + "\n");
  write_template(w, at(rc, {"spec", "template"}));
  write_conditions(w, rc);
  if (related.events) write_events(w, *related.events, now);
}

void describe_daemon_set(Writer& w, const json& set, const Related& related, TimePoint now) {
  const json& status = at(set, {"status"});
  write_name(w, set);
  w.write(0, "Selector:\t" + api::print::selector_string(at(set, {"spec", "selector"})) + "\n");
  w.write(0,
          "Node-Selector:\t" + api::print::format_labels(at(set, {"spec", "template", "spec", "nodeSelector"})) + "\n");
  write_metadata(w, set);
  w.write(0,
          "Desired Number of Nodes Scheduled: " + std::to_string(num(at(status, {"desiredNumberScheduled"}))) + "\n");
  w.write(0,
          "Current Number of Nodes Scheduled: " + std::to_string(num(at(status, {"currentNumberScheduled"}))) + "\n");
  w.write(0, "Number of Nodes Scheduled with Up-to-date Pods: " +
                 std::to_string(num(at(status, {"updatedNumberScheduled"}))) + "\n");
  w.write(0, "Number of Nodes Scheduled with Available Pods: " + std::to_string(num(at(status, {"numberAvailable"}))) +
                 "\n");
  w.write(0, "Number of Nodes Misscheduled: " + std::to_string(num(at(status, {"numberMisscheduled"}))) + "\n");
  w.write(0, "Pods Status:\t" + pod_status_counts(set, related.pods) + "\n");
  write_template(w, at(set, {"spec", "template"}));
  if (related.events) write_events(w, *related.events, now);
}

void write_claim_templates(Writer& w, const json& templates) {
  if (arr(templates).empty()) return w.write(0, "Volume Claims:\t<none>\n");
  w.write(0, "Volume Claims:\n");
  for (const auto& claim : arr(templates)) {
    w.write(1, "Name:\t" + str(at(claim, {"metadata", "name"})) + "\n");
    w.write(1, "StorageClass:\t" + str(at(claim, {"spec", "storageClassName"})) + "\n");
    write_labels(w, "  Labels", at(claim, {"metadata", "labels"}));
    // kubectl prints the claim's annotations as labels here.
    write_labels(w, "  Annotations", at(claim, {"metadata", "annotations"}));
    const json& capacity = at(claim, {"spec", "resources", "requests", "storage"});
    w.write(1, "Capacity:\t" + (capacity.is_null() ? std::string("<default>") : value_text(capacity)) + "\n");
    w.write(1, "Access Modes:\t" + go_list(at(claim, {"spec", "accessModes"})) + "\n");
  }
}

void describe_stateful_set(Writer& w, const json& set, const Related& related, TimePoint now) {
  const json& spec = at(set, {"spec"});
  write_name(w, set);
  w.write(0, "CreationTimestamp:\t" + rfc1123z(at(set, {"metadata", "creationTimestamp"})) + "\n");
  w.write(0, "Selector:\t" + api::print::selector_string(at(spec, {"selector"})) + "\n");
  write_metadata(w, set);
  w.write(0, "Replicas:\t" + std::to_string(num(at(spec, {"replicas"}))) + " desired | " +
                 std::to_string(num(at(set, {"status", "replicas"}))) + " total\n");
  w.write(0, "Update Strategy:\t" + str(at(spec, {"updateStrategy", "type"})) + "\n");
  if (const json& partition = at(spec, {"updateStrategy", "rollingUpdate", "partition"}); partition.is_number()) {
    w.write(1, "Partition:\t" + std::to_string(num(partition)) + "\n");
    if (const json& most = at(spec, {"updateStrategy", "rollingUpdate", "maxUnavailable"}); !most.is_null())
      w.write(1, "MaxUnavailable:\t" + value_text(most) + "\n");
  }
  w.write(0, "Pods Status:\t" + pod_status_counts(set, related.pods) + "\n");
  write_template(w, at(spec, {"template"}));
  write_claim_templates(w, at(spec, {"volumeClaimTemplates"}));
  if (related.events) write_events(w, *related.events, now);
}

void describe_job(Writer& w, const json& job, const Related& related, TimePoint now) {
  const json& spec = at(job, {"spec"});
  const json& status = at(job, {"status"});
  write_name(w, job);
  w.write(0, "Selector:\t" + api::print::selector_string(at(spec, {"selector"})) + "\n");
  write_metadata(w, job);
  write_controller(w, job);
  if (at(spec, {"parallelism"}).is_number())
    w.write(0, "Parallelism:\t" + std::to_string(num(at(spec, {"parallelism"}))) + "\n");
  w.write(0, "Completions:\t" +
                 (at(spec, {"completions"}).is_number() ? std::to_string(num(at(spec, {"completions"}))) : "<unset>") +
                 "\n");
  if (const std::string mode = str(at(spec, {"completionMode"})); !mode.empty())
    w.write(0, "Completion Mode:\t" + mode + "\n");
  if (at(spec, {"suspend"}).is_boolean()) w.write(0, "Suspend:\t" + value_text(at(spec, {"suspend"})) + "\n");
  if (at(spec, {"backoffLimit"}).is_number())
    w.write(0, "Backoff Limit:\t" + std::to_string(num(at(spec, {"backoffLimit"}))) + "\n");
  if (at(spec, {"ttlSecondsAfterFinished"}).is_number())
    w.write(0, "TTL Seconds After Finished:\t" + std::to_string(num(at(spec, {"ttlSecondsAfterFinished"}))) + "\n");
  if (const std::string start = rfc1123z(at(status, {"startTime"})); !start.empty())
    w.write(0, "Start Time:\t" + start + "\n");
  if (const std::string done = rfc1123z(at(status, {"completionTime"})); !done.empty())
    w.write(0, "Completed At:\t" + done + "\n");
  const auto started = api::print::time_of(at(status, {"startTime"}));
  if (const auto completed = api::print::time_of(at(status, {"completionTime"})); started && completed)
    w.write(0, "Duration:\t" + api::print::since(started, *completed) + "\n");
  if (at(spec, {"activeDeadlineSeconds"}).is_number())
    w.write(0, "Active Deadline Seconds:\t" + std::to_string(num(at(spec, {"activeDeadlineSeconds"}))) + "s\n");
  const std::string active = std::to_string(num(at(status, {"active"})));
  const std::string ready =
      at(status, {"ready"}).is_number() ? " (" + std::to_string(num(at(status, {"ready"}))) + " Ready)" : "";
  w.write(0, "Pods Statuses:\t" + active + " Active" + ready + " / " + std::to_string(num(at(status, {"succeeded"}))) +
                 " Succeeded / " + std::to_string(num(at(status, {"failed"}))) + " Failed\n");
  if (str(at(spec, {"completionMode"})) == "Indexed") {
    std::string indexes = str(at(status, {"completedIndexes"}));
    if (indexes.empty()) {
      indexes = "<none>";
    } else if (indexes.size() > 50) {
      const auto comma = indexes.find(',', 50);
      if (comma != std::string::npos) indexes = indexes.substr(0, comma + 1) + "...";
    }
    w.write(0, "Completed Indexes:\t" + indexes + "\n");
  }
  write_template(w, at(spec, {"template"}));
  if (related.events) write_events(w, *related.events, now);
}

std::string number_or_unset(const json& value) { return value.is_number() ? std::to_string(num(value)) : "<unset>"; }

void describe_cron_job(Writer& w, const json& cron, const Related& related, TimePoint now) {
  const json& spec = at(cron, {"spec"});
  write_name(w, cron);
  write_metadata(w, cron);
  w.write(0, "Schedule:\t" + str(at(spec, {"schedule"})) + "\n");
  w.write(0, "Concurrency Policy:\t" + str(at(spec, {"concurrencyPolicy"})) + "\n");
  const json& suspend = at(spec, {"suspend"});
  w.write(0,
          std::string("Suspend:\t") + (suspend.is_boolean() ? (suspend == true ? "True" : "False") : "<unset>") + "\n");
  w.write(0, "Successful Job History Limit:\t" + number_or_unset(at(spec, {"successfulJobsHistoryLimit"})) + "\n");
  w.write(0, "Failed Job History Limit:\t" + number_or_unset(at(spec, {"failedJobsHistoryLimit"})) + "\n");
  const json& deadline = at(spec, {"startingDeadlineSeconds"});
  w.write(0, "Starting Deadline Seconds:\t" + (deadline.is_number() ? std::to_string(num(deadline)) + "s" : "<unset>") +
                 "\n");
  const json& job = at(spec, {"jobTemplate", "spec"});
  const json& selector = at(job, {"selector"});
  w.write(0, "Selector:\t" + (selector.is_object() ? api::print::selector_string(selector) : "<unset>") + "\n");
  w.write(0, "Parallelism:\t" + number_or_unset(at(job, {"parallelism"})) + "\n");
  w.write(0, "Completions:\t" + number_or_unset(at(job, {"completions"})) + "\n");
  if (at(job, {"activeDeadlineSeconds"}).is_number())
    w.write(0, "Active Deadline Seconds:\t" + std::to_string(num(at(job, {"activeDeadlineSeconds"}))) + "s\n");
  write_template(w, at(job, {"template"}));
  const std::string last = rfc1123z(at(cron, {"status", "lastScheduleTime"}));
  w.write(0, "Last Schedule Time:\t" + (last.empty() ? "<unset>" : last) + "\n");
  std::string active;
  for (const auto& reference : arr(at(cron, {"status", "active"})))
    active += (active.empty() ? "" : ", ") + str(at(reference, {"name"}));
  w.write(0, "Active Jobs:\t" + (active.empty() ? "<none>" : active) + "\n");
  if (related.events) write_events(w, *related.events, now);
}

}  // namespace

Describer workload_describer(std::string_view group, std::string_view kind) {
  if (group.empty() && kind == "ReplicationController") return describe_replication_controller;
  if (group == "apps") {
    if (kind == "Deployment") return describe_deployment;
    if (kind == "ReplicaSet") return describe_replica_set;
    if (kind == "DaemonSet") return describe_daemon_set;
    if (kind == "StatefulSet") return describe_stateful_set;
  }
  if (group == "batch") {
    if (kind == "Job") return describe_job;
    if (kind == "CronJob") return describe_cron_job;
  }
  return nullptr;
}

}  // namespace kw::cli::describe
