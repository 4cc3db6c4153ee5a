// batch/v1: CronJob and Job.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/api/print_support.hpp"
#include "core/util/go_time.hpp"
#include "core/util/text.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

const char* const k_job_selector_doc =
    "A label query over pods that should match the pod count. Normally, the system sets this field for you. More "
    "info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors";

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

// The part of JobSpec validation a Job and a CronJob's jobTemplate share (validateJobSpec),
// before the template's containers.
void validate_job_numbers(const json& spec, const std::string& path, Causes& causes) {
  for (const char* field : {"parallelism", "completions", "activeDeadlineSeconds", "backoffLimit",
                            "ttlSecondsAfterFinished", "backoffLimitPerIndex", "maxFailedIndexes"})
    non_negative(causes, path + "." + field, at(spec, {field}), field == std::string_view("activeDeadlineSeconds"));
  const auto& mode = at(spec, {"completionMode"});
  if (mode.is_string() && mode != "NonIndexed" && mode != "Indexed")
    unsupported(causes, path + ".completionMode", mode, {"NonIndexed", "Indexed"});
  if (mode == "Indexed" && !at(spec, {"completions"}).is_number())
    required(causes, path + ".completions", "when completion mode is Indexed");
}

// A Job's pods may not restart in place: OnFailure or Never (Always and unset are the
// "required" case, since pod defaults turn unset into Always).
void validate_job_restart_policy(const json& spec, const std::string& path, Causes& causes) {
  const auto& restart = at(spec, {"template", "spec", "restartPolicy"});
  const std::string field = path + ".template.spec.restartPolicy";
  if (restart.is_null() || restart == "" || restart == "Always")
    required(causes, field, R"(valid values: "OnFailure", "Never")");
  else if (restart != "OnFailure" && restart != "Never")
    unsupported(causes, field, restart, {"OnFailure", "Never"});
}

// ValidateJobSpec: the numbers, the template and its restart policy, then the selector, which
// must match the template's labels whether it was generated or set by hand. `old` is the stored
// Job of an update (null on create).
void validate_job(const json& job, const json* old, Causes& causes) {
  const auto& spec = at(job, {"spec"});
  validate_job_numbers(spec, "spec", causes);
  validate_pod_template(causes, at(spec, {"template"}), "spec.template",
                        old ? &at(*old, {"spec", "template"}) : nullptr);
  validate_job_restart_policy(spec, "spec", causes);
  const json& selector = at(spec, {"selector"});
  if (selector.is_null()) required(causes, "spec.selector");
  else validate_label_selector(causes, selector, "spec.selector");
  if (const auto parsed = workload_selector(selector))
    selector_matches_template(causes, *parsed, at(spec, {"template"}), "spec.template");
}

void validate_job_update(const json& job, const json& old, Causes& causes) {
  validate_job(job, &old, causes);
  for (const char* field : {"selector", "template", "completionMode", "completions"})
    immutable(causes, std::string("spec.") + field, at(job, {"spec", field}), at(old, {"spec", field}));
}

// ---- CronJob ----------------------------------------------------------------------------------

std::vector<std::string> split_fields(std::string_view s) {  // strings.Fields
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    const std::size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > start) out.emplace_back(s.substr(start, i - start));
  }
  return out;
}

// Go's time.LoadLocation, answered from the system zoneinfo database. Without any database on
// this machine every name is taken.
std::optional<std::string> load_location_error(const std::string& name) {
  if (name.empty() || name == "UTC" || name == "Local") return std::nullopt;
  if (name.find("..") != std::string::npos || name.front() == '/' || name.front() == '\\')
    return "time: invalid location name";
  bool any_database = false;
  for (const char* dir : {"/usr/share/zoneinfo/", "/usr/share/lib/zoneinfo/", "/usr/lib/locale/TZ/", "/etc/zoneinfo/"}) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    any_database = true;
    const std::filesystem::path file = std::string(dir) + name;
    if (!std::filesystem::is_regular_file(file, ec)) continue;
    std::ifstream in(file, std::ios::binary);
    char magic[4] = {};
    if (in.read(magic, 4) && std::string_view(magic, 4) == "TZif") return std::nullopt;
  }
  if (!any_database) return std::nullopt;
  return "unknown time zone " + name;
}

// Go's time.ParseDuration: the error, or nothing when `s` is a duration.
std::optional<std::string> parse_duration_error(std::string_view text) {
  auto parsed = util::parse_go_duration(text);
  if (parsed) return std::nullopt;
  return parsed.error().message;
}

// The range of one cron field and the names it accepts (months, week days).
struct CronBounds {
  unsigned min, max;
  std::span<const std::string_view> names;
  unsigned first_named;  // the value the first name stands for
};

constexpr std::string_view k_month_names[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                              "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::string_view k_day_names[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

std::optional<unsigned> name_value(std::string_view expr, const CronBounds& bounds) {
  const std::string lower = util::to_lower(expr);
  unsigned value = bounds.first_named;
  for (std::string_view name : bounds.names) {
    if (lower == name) return value;
    ++value;
  }
  return std::nullopt;
}

// robfig/cron's mustParseInt (strconv.Atoi, then no negatives).
std::expected<unsigned long long, std::string> cron_int(std::string_view expr) {
  std::string_view digits = expr;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  const std::string prefix = "failed to parse int from " + std::string(expr) + ": strconv.Atoi: parsing " + util::go_quote(expr);
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::unexpected(prefix + ": invalid syntax");
  unsigned long long value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  const unsigned long long limit = negative ? 9223372036854775808ULL : 9223372036854775807ULL;
  if (ec != std::errc{} || ptr != digits.data() + digits.size() || value > limit) return std::unexpected(prefix + ": value out of range");
  if (negative && value != 0)
    return std::unexpected("negative number (-" + std::to_string(value) + ") not allowed: " + std::string(expr));
  return value;
}

std::expected<unsigned long long, std::string> cron_int_or_name(std::string_view expr, const CronBounds& bounds) {
  if (auto named = name_value(expr, bounds)) return *named;
  return cron_int(expr);
}

// robfig/cron's getRange for one comma-separated part of a field.
std::optional<std::string> cron_range_error(std::string_view expr, const CronBounds& bounds) {
  const auto range_and_step = split(expr, '/');
  const auto low_and_high = split(range_and_step[0], '-');
  unsigned long long start = 0, end = 0, step = 1;
  if (low_and_high[0] == "*" || low_and_high[0] == "?") {
    start = bounds.min;
    end = bounds.max;
  } else {
    auto first = cron_int_or_name(low_and_high[0], bounds);
    if (!first) return first.error();
    start = *first;
    if (low_and_high.size() == 1) {
      end = start;
    } else if (low_and_high.size() == 2) {
      auto second = cron_int_or_name(low_and_high[1], bounds);
      if (!second) return second.error();
      end = *second;
    } else {
      return "too many hyphens: " + std::string(expr);
    }
  }
  if (range_and_step.size() == 2) {
    auto parsed = cron_int(range_and_step[1]);
    if (!parsed) return parsed.error();
    step = *parsed;
    if (low_and_high.size() == 1) end = bounds.max;  // "N/step" runs to the maximum
  } else if (range_and_step.size() > 2) {
    return "too many slashes: " + std::string(expr);
  }
  const std::string text(expr);
  if (start < bounds.min)
    return "beginning of range (" + std::to_string(start) + ") below minimum (" + std::to_string(bounds.min) + "): " + text;
  if (end > bounds.max)
    return "end of range (" + std::to_string(end) + ") above maximum (" + std::to_string(bounds.max) + "): " + text;
  if (start > end)
    return "beginning of range (" + std::to_string(start) + ") beyond end of range (" + std::to_string(end) + "): " + text;
  if (step == 0) return "step of range should be a positive number: " + text;
  return std::nullopt;
}

// robfig/cron v3's ParseStandard (five fields or a descriptor, optional TZ=/CRON_TZ= prefix):
// the error it returns, or nothing for a valid schedule.
std::optional<std::string> cron_schedule_error(std::string_view spec) {
  if (spec.empty()) return "empty spec string";
  std::string rest(spec);
  if (rest.starts_with("TZ=") || rest.starts_with("CRON_TZ=")) {
    const auto space = rest.find(' ');
    const auto eq = rest.find('=');
    const std::string location = rest.substr(eq + 1, space == std::string::npos ? std::string::npos : space - eq - 1);
    if (auto error = load_location_error(location)) return "provided bad location " + location + ": " + *error;
    rest = space == std::string::npos ? std::string() : rest.substr(space);
    const auto first = rest.find_first_not_of(" \t\n\v\f\r");
    const auto last = rest.find_last_not_of(" \t\n\v\f\r");
    rest = first == std::string::npos ? std::string() : rest.substr(first, last - first + 1);
  }
  if (rest.starts_with("@")) {
    for (std::string_view named : {"@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"})
      if (rest == named) return std::nullopt;
    constexpr std::string_view k_every = "@every ";
    if (rest.starts_with(k_every)) {
      if (auto error = parse_duration_error(std::string_view(rest).substr(k_every.size())))
        return "failed to parse duration " + rest + ": " + *error;
      return std::nullopt;
    }
    return "unrecognized descriptor: " + rest;
  }
  const auto fields = split_fields(rest);
  if (fields.size() != 5) {
    std::string listed;
    for (const auto& f : fields) listed += (listed.empty() ? "" : " ") + f;
    return "expected exactly 5 fields, found " + std::to_string(fields.size()) + ": [" + listed + "]";
  }
  static const CronBounds k_bounds[] = {
      {0, 59, {}, 0}, {0, 23, {}, 0}, {1, 31, {}, 0}, {1, 12, k_month_names, 1}, {0, 6, k_day_names, 0}};
  for (std::size_t i = 0; i < fields.size(); ++i)
    for (std::string_view part : split(fields[i], ','))
      if (!part.empty())
        if (auto error = cron_range_error(part, k_bounds[i])) return error;
  return std::nullopt;
}

// validateTimeZone: an IANA name the time zone database knows; not Local.
void validate_time_zone(const json& zone, Causes& causes) {
  if (!zone.is_string()) return;
  const std::string name = zone.get<std::string>();
  const std::string field = "spec.timeZone";
  if (name.empty()) return invalid_value(causes, field, zone, "timeZone must be nil or non-empty string");
  for (std::string_view part : split(name, '/')) {
    const bool allowed = !part.empty() && part.size() <= 14 && std::all_of(part.begin(), part.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' || c == '+';
    });
    if (part == "." || part == ".." || part.starts_with("-") || !allowed)
      return invalid_value(causes, field, zone, "unknown time zone " + name);
  }
  if (util::to_lower(name) == "local")
    invalid_value(causes, field, zone, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones");
  if (auto error = load_location_error(name)) invalid_value(causes, field, zone, *error);
}

Cells print_cron_job(const json& cron_job, TimePoint now) {
  const auto& spec = at(cron_job, {"spec"});
  const auto& suspend = at(spec, {"suspend"});
  const auto last_schedule = time_of(at(cron_job, {"status", "lastScheduleTime"}));
  const auto& zone = at(spec, {"timeZone"});
  const auto& job_spec = at(spec, {"jobTemplate", "spec"});
  auto [names, images] = container_cells(at(job_spec, {"template", "spec", "containers"}));
  return {name_of(cron_job),
          str(at(spec, {"schedule"})),
          zone.is_string() ? zone.get<std::string>() : std::string("<none>"),
          suspend.is_boolean() ? std::string(suspend.get<bool>() ? "True" : "False") : std::string("<unset>"),
          size_of(at(cron_job, {"status", "active"})),
          last_schedule ? since(last_schedule, now) : std::string("<none>"),
          age_of(cron_job, now),
          names,
          images,
          format_label_selector(at(job_spec, {"selector"}))};
}

// SetDefaults_CronJob, and the defaults of the job template's pod template (the job template's
// own spec is not defaulted).
void default_cron_job(json& cron_job) {
  auto& spec = object_member(cron_job, "spec");
  default_string(spec, "concurrencyPolicy", "Allow");
  default_value(spec, "suspend", false);
  default_value(spec, "successfulJobsHistoryLimit", 3);
  default_value(spec, "failedJobsHistoryLimit", 1);
}

void prepare_cron_job(json& cron_job) { cron_job["status"] = json::object(); }

// The checks of ValidateCronJobCreate and ValidateCronJobUpdate. A new CronJob's schedule may not
// carry TZ=, and its name leaves room for the 11-character suffix of the Jobs it creates; an
// update keeps a TZ= the stored schedule had, and a name made before the limit.
void validate_cron_job_common(const json& cron_job, const json* old, Causes& causes) {
  const auto& spec = at(cron_job, {"spec"});
  const auto& schedule = at(spec, {"schedule"});
  const std::string schedule_text = str(schedule);
  const bool tz_allowed = old != nullptr && str(at(*old, {"spec", "schedule"})).find("TZ") != std::string::npos;
  if (schedule_text.empty()) {
    required(causes, "spec.schedule");
  } else {
    if (auto error = cron_schedule_error(schedule_text)) invalid_value(causes, "spec.schedule", schedule, *error);
    if (!tz_allowed && schedule_text.find("TZ") != std::string::npos)
      invalid_value(causes, "spec.schedule", schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead");
  }
  non_negative(causes, "spec.startingDeadlineSeconds", at(spec, {"startingDeadlineSeconds"}));
  validate_time_zone(at(spec, {"timeZone"}), causes);
  const auto& policy = at(spec, {"concurrencyPolicy"});
  if (str(policy).empty()) required(causes, "spec.concurrencyPolicy");
  else if (policy != "Allow" && policy != "Forbid" && policy != "Replace")
    unsupported(causes, "spec.concurrencyPolicy", policy, {"Allow", "Forbid", "Replace"});
  // ValidateJobTemplateSpec: the Job spec without its selector, which the Job generates.
  const auto& job_spec = at(spec, {"jobTemplate", "spec"});
  const std::string job_path = "spec.jobTemplate.spec";
  validate_job_numbers(job_spec, job_path, causes);
  validate_pod_template(causes, at(job_spec, {"template"}), job_path + ".template",
                        old ? &at(*old, {"spec", "jobTemplate", "spec", "template"}) : nullptr);
  validate_job_restart_policy(job_spec, job_path, causes);
  if (const auto& selector = at(job_spec, {"selector"}); !selector.is_null())
    invalid_value(causes, job_path + ".selector", selector, "`selector` will be auto-generated");
  if (at(job_spec, {"manualSelector"}) == true)
    unsupported(causes, job_path + ".manualSelector", true, {"nil", "false"});
  non_negative(causes, "spec.successfulJobsHistoryLimit", at(spec, {"successfulJobsHistoryLimit"}));
  non_negative(causes, "spec.failedJobsHistoryLimit", at(spec, {"failedJobsHistoryLimit"}));
  const std::string name = str(at(cron_job, {"metadata", "name"}));
  if (old == nullptr && name.size() > 52)
    invalid_value(causes, "metadata.name", name, "must be no more than 52 characters");
}

void validate_cron_job_create(const json& cron_job, Causes& causes) { validate_cron_job_common(cron_job, nullptr, causes); }

void validate_cron_job_update(const json& cron_job, const json& old, Causes& causes) {
  validate_cron_job_common(cron_job, &old, causes);
}

KindSpec cron_job_row() {
  return {.info = {.group = "batch", .version = "v1", .kind = "CronJob", .plural = "cronjobs", .short_names = {"cj"},
                   .categories = {"all"}, .subresources = {"status"},
                   .columns = {name_col(),
                               col("Schedule", "string", "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."),
                               col("Timezone", "string",
                                   "The time zone name for the given schedule, see "
                                   "https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this "
                                   "will default to the time zone of the kube-controller-manager process. The set of "
                                   "valid time zone names and the time zone offset is loaded from the system-wide time "
                                   "zone database by the API server during CronJob validation and the controller "
                                   "manager during execution. If no system-wide time zone database can be found a "
                                   "bundled version of the database is used instead. If the time zone name becomes "
                                   "invalid during the lifetime of a CronJob or due to a change in host configuration, "
                                   "the controller will stop creating new new Jobs and will create a system event with "
                                   "the reason UnknownTimeZone. More information can be found in "
                                   "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones"),
                               col("Suspend", "boolean",
                                   "This flag tells the controller to suspend subsequent executions, it does not apply "
                                   "to already started executions.  Defaults to false."),
                               col("Active", "integer", "A list of pointers to currently running jobs."),
                               col("Last Schedule", "string",
                                   "Information when was the last time the job was successfully scheduled."),
                               age_col(), containers_col(), images_col(),
                               col("Selector", "string", k_job_selector_doc, 1)},
                   .printer = print_cron_job},
          .generation = std::vector<std::string>{"spec"},
          // The status strategy resets only spec: metadata stays writable through /status.
          .status_keeps_meta = {},
          .pod_template = {"spec", "jobTemplate", "spec", "template"},
          .strategy = {.defaults = default_cron_job, .prepare_create = prepare_cron_job,
                       .validate_create = validate_cron_job_create,
                       .validate_update = validate_cron_job_update}};
}

KindSpec job_row() {
  return {.info = {.group = "batch",
                   .version = "v1",
                   .kind = "Job",
                   .plural = "jobs",
                   .categories = {"all"},
                   .subresources = {"status"},
                   .columns = {name_col(), col("Status", "string", "Status of the job."),
                               col("Completions", "string",
                                   "The number of pods which reached phase Succeeded. The value increases "
                                   "monotonically for a given spec. However, it may decrease in reaction to scale "
                                   "down of elastic indexed jobs."),
                               col("Duration", "string", "Time required to complete the job."), age_col(),
                               containers_col(), images_col(), col("Selector", "string", k_job_selector_doc, 1)},
                   .printer = print_job},
          .fields = {{"status.successful", {"status", "succeeded"}, ""}},
          .generation = std::vector<std::string>{"spec"},
          // The status strategy resets only spec: metadata stays writable through /status.
          .status_keeps_meta = {},
          .pod_template = {"spec", "template"},
          .strategy = {.defaults = default_job,
                       .prepare_create = prepare_job,
                       .validate_create = check_create<validate_job>,
                       .validate_update = validate_job_update}};
}

}  // namespace

// In the order kube-apiserver's discovery lists them (by resource name).
std::vector<KindSpec> batch_v1_kinds() { return {cron_job_row(), job_row()}; }

}  // namespace kw::kinds
