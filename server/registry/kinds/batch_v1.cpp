// batch/v1: Job.
#include <cstdint>
#include <limits>

#include "core/api/print_support.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

bool condition_true(const json& job, std::string_view type) {
  for (const auto& c : arr(at(job, {"status", "conditions"})))
    if (str(at(c, {"type"})) == type) return str(at(c, {"status"})) == "True";
  return false;
}

Cells print_job(const json& job, TimePoint now) {
  const std::int64_t succeeded = num(at(job, {"status", "succeeded"}));
  std::string completions;
  if (at(job, {"spec", "completions"}).is_number()) {
    completions = std::to_string(succeeded) + "/" + std::to_string(num(at(job, {"spec", "completions"})));
  } else {
    const std::int64_t parallelism = num(at(job, {"spec", "parallelism"}));
    completions = std::to_string(succeeded) + "/1" + (parallelism > 1 ? " of " + std::to_string(parallelism) : "");
  }
  std::string duration;
  const auto start = time_of(at(job, {"status", "startTime"}));
  const auto end = time_of(at(job, {"status", "completionTime"}));
  if (start) duration = since(start, end ? *end : now);
  std::string status = "Running";
  if (condition_true(job, "Complete")) status = "Complete";
  else if (condition_true(job, "Failed")) status = "Failed";
  else if (!at(job, {"metadata", "deletionTimestamp"}).is_null()) status = "Terminating";
  else if (condition_true(job, "Suspended")) status = "Suspended";
  else if (condition_true(job, "FailureTarget")) status = "FailureTarget";
  auto [names, images] = container_cells(at(job, {"spec", "template", "spec", "containers"}));
  return {name_of(job), status, completions, duration, age_of(job, now), names, images,
          selector_string(at(job, {"spec", "selector"}))};
}

// SetDefaults_Job.
void default_job(json& job) {
  auto& spec = object_member(job, "spec");
  if (!spec.contains("parallelism")) {
    if (!spec.contains("completions")) spec["completions"] = 1;
    spec["parallelism"] = 1;
  }
  if (!spec.contains("backoffLimit"))
    spec["backoffLimit"] = spec.contains("backoffLimitPerIndex") ? std::numeric_limits<std::int32_t>::max() : 6;
  if (!spec.contains("completionMode")) spec["completionMode"] = "NonIndexed";
  if (!spec.contains("suspend")) spec["suspend"] = false;
  if (!spec.contains("podReplacementPolicy"))
    spec["podReplacementPolicy"] = spec.contains("podFailurePolicy") ? "Failed" : "TerminatingOrFailed";
  if (spec.contains("podFailurePolicy"))
    for (auto& rule : spec["podFailurePolicy"].value("rules", json::array()))
      for (auto& pattern : rule.value("onPodConditions", json::array()))
        if (pattern.is_object() && !pattern.contains("status")) pattern["status"] = "True";
  // A Job without labels takes its pod template's.
  const auto& labels = at(job, {"metadata", "labels"});
  const auto& template_labels = at(spec, {"template", "metadata", "labels"});
  if ((!labels.is_object() || labels.empty()) && template_labels.is_object() && !template_labels.empty())
    object_member(job, "metadata")["labels"] = template_labels;
}

// PrepareForCreate: no status yet, and unless the user picks the selector, pods are
// labelled with this Job's uid and name and selected by the uid.
void prepare_job(json& job) {
  job["status"] = json::object();
  auto& spec = object_member(job, "spec");
  if (spec.value("manualSelector", false) == true) return;
  const auto& meta = at(job, {"metadata"});
  const std::string uid = str(at(meta, {"uid"}));
  const std::string name = str(at(meta, {"name"}));
  auto& labels = object_member(object_member(object_member(spec, "template"), "metadata"), "labels");
  for (const char* key : {"batch.kubernetes.io/controller-uid", "controller-uid"})
    if (!labels.contains(key)) labels[key] = uid;
  for (const char* key : {"batch.kubernetes.io/job-name", "job-name"})
    if (!labels.contains(key)) labels[key] = name;
  auto& match_labels = object_member(object_member(spec, "selector"), "matchLabels");
  if (!match_labels.contains("batch.kubernetes.io/controller-uid"))
    match_labels["batch.kubernetes.io/controller-uid"] = uid;
}

void validate_job(const json& job, Causes& causes) {
  const auto& spec = at(job, {"spec"});
  for (const char* field : {"parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
                            "ttlSecondsAfterFinished", "backoffLimitPerIndex", "maxFailedIndexes"})
    non_negative(causes, std::string("spec.") + field, at(spec, {field}), field == std::string_view("activeDeadlineSeconds"));
  const auto& mode = at(spec, {"completionMode"});
  if (mode.is_string() && mode != "NonIndexed" && mode != "Indexed")
    unsupported(causes, "spec.completionMode", mode, {"NonIndexed", "Indexed"});
  if (mode == "Indexed" && !at(spec, {"completions"}).is_number())
    required(causes, "spec.completions", "when completion mode is Indexed");
  validate_selector_and_template(causes, spec, "spec");
  const auto& restart = at(spec, {"template", "spec", "restartPolicy"});
  if (restart != "OnFailure" && restart != "Never")
    required(causes, "spec.template.spec.restartPolicy", R"(valid values: "OnFailure", "Never")");
}

void validate_job_update(const json& job, const json& old, Causes& causes) {
  for (const char* field : {"selector", "template", "completionMode", "completions"})
    immutable(causes, std::string("spec.") + field, at(job, {"spec", field}), at(old, {"spec", field}));
}

KindSpec job_row() {
  return {.info = {.group = "batch", .version = "v1", .kind = "Job", .plural = "jobs", .categories = {"all"},
                   .subresources = {"status"},
                   .columns = {name_col(), col("Status", "string", "Status of the job."),
                               col("Completions", "string",
                                   "The number of pods which reached phase Succeeded. The value increases "
                                   "monotonically for a given spec. However, it may decrease in reaction to scale "
                                   "down of elastic indexed jobs."),
                               col("Duration", "string", "Time required to complete the job."), age_col(),
                               containers_col(), images_col(),
                               col("Selector", "string",
                                   "A label query over pods that should match the pod count. Normally, the system "
                                   "sets this field for you. More info: "
                                   "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"
                                   "#label-selectors",
                                   1)},
                   .printer = print_job},
          .fields = {{"status.successful", {"status", "succeeded"}, ""}},
          .strategy = {.defaults = default_job,
                       .prepare_create = prepare_job,
                       .validate = validate_job,
                       .validate_update = validate_job_update}};
}

}  // namespace

std::vector<KindSpec> batch_v1_kinds() { return {job_row()}; }

}  // namespace kw::kinds
