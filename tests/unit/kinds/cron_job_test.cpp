// The CronJob row's create and update checks (server/registry/kinds/batch_v1.cpp): what a new
// CronJob must meet and an old one may keep.
#include <doctest/doctest.h>

#include <string>

#include "server/registry/kinds/kind_spec.hpp"

using namespace kw::kinds;
using nlohmann::json;

namespace {

const KindSpec& cron_job_row() {
  const KindSpec* row = find_kind("batch", "v1", "cronjobs");
  REQUIRE(row != nullptr);
  return *row;
}

json cron_job(const std::string& name, const std::string& schedule) {
  json object = json::parse(R"({"apiVersion": "batch/v1", "kind": "CronJob",
      "metadata": {"namespace": "default"},
      "spec": {"jobTemplate": {"spec": {"template": {"spec": {
          "restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "busybox"}]}}}}}})");
  object["metadata"]["name"] = name;
  object["spec"]["schedule"] = schedule;
  default_object(cron_job_row(), object);
  return object;
}

std::string lines(const Causes& causes) {
  std::string out;
  for (const auto& cause : causes) out += cause.value("field", "") + "|" + cause.value("message", "") + "\n";
  return out;
}

std::string create_causes(const json& object) {
  Causes causes = json::array();
  REQUIRE(static_cast<bool>(cron_job_row().strategy.validate_create));
  cron_job_row().strategy.validate_create(object, causes);
  return lines(causes);
}

std::string update_causes(const json& object, const json& old) {
  Causes causes = json::array();
  if (cron_job_row().strategy.validate) cron_job_row().strategy.validate(object, causes);
  cron_job_row().strategy.validate_update(object, old, causes);
  return lines(causes);
}

}  // namespace

TEST_CASE("cronjobs: a new name leaves room for the Jobs' suffix, and an old one is kept") {
  const std::string long_name(53, 'a');
  CHECK(create_causes(cron_job(long_name, "*/5 * * * *")) ==
        "metadata.name|Invalid value: \"" + long_name + "\": must be no more than 52 characters\n");
  CHECK(create_causes(cron_job(std::string(52, 'a'), "*/5 * * * *")).empty());
  const json old = cron_job(long_name, "*/5 * * * *");
  CHECK(update_causes(cron_job(long_name, "*/10 * * * *"), old).empty());
}

TEST_CASE("cronjobs: TZ= in a schedule is refused, unless the stored schedule had it") {
  const std::string tz_refused =
      "spec.schedule|Invalid value: \"TZ=UTC 0 * * * *\": cannot use TZ or CRON_TZ in schedule, use timeZone field "
      "instead\n";
  CHECK(create_causes(cron_job("nightly", "TZ=UTC 0 * * * *")) == tz_refused);
  CHECK(update_causes(cron_job("nightly", "TZ=UTC 0 * * * *"), cron_job("nightly", "0 * * * *")) == tz_refused);
  CHECK(update_causes(cron_job("nightly", "TZ=UTC 0 * * * *"), cron_job("nightly", "CRON_TZ=UTC 5 * * * *")).empty());
}
