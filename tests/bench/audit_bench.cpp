// What auditing adds to one request, in CPU: the record of a GET of a ConfigMap as kw serve
// makes it (RequestReceived, the authorization annotations, ResponseComplete), at level
// Metadata, written to a real log file in batch and in blocking mode. CPU is the whole
// process's (the batch writer's thread included), per request.
//
// The baseline in the same run is a policy whose level for the request is None: the rule
// lookup every request pays once a policy is configured.
//
//   audit_bench [--requests=N] [--dir=PATH]
// Output: "RESULT audit.<none|batch|blocking>.cpu_ns_per_request VALUE ns" lines.
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>

#include "bench/bench_util.hpp"
#include "server/audit/auditor.hpp"
#include "core/util/uuid.hpp"

namespace {

using namespace kw::audit;

double process_cpu_ns() {
  timespec at{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &at);
  return static_cast<double>(at.tv_sec) * 1e9 + static_cast<double>(at.tv_nsec);
}

constexpr const char* k_metadata_policy = "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n";
constexpr const char* k_none_policy = "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n"
                                      "- level: Metadata\n  users: [nobody]\n- level: None\n";

// CPU ns per request of `requests` audited GETs; the log (if any) is closed, and so written,
// before the clock stops.
double run(const std::string& policy_text, LogMode mode, const std::filesystem::path& file, int requests) {
  auto policy = Policy::parse(policy_text);
  auto log = LogBackend::open({.path = file.string(), .mode = mode});
  if (!policy || !log) {
    std::fprintf(stderr, "audit_bench: %s\n", (!policy ? policy.error() : log.error()).message.c_str());
    std::exit(1);
  }
  const kw::auth::UserInfo admin{.name = "admin", .groups = {"system:masters", "system:authenticated"}, .uid = "1",
                                 .extra = {}};
  const double start = process_cpu_ns();
  {
    Auditor auditor(std::move(*policy), std::move(*log));
    for (int i = 0; i < requests; ++i) {
      RequestFacts facts{.audit_id = kw::util::new_uuid(),
                         .request_uri = "/api/v1/namespaces/default/configmaps/c",
                         .user_agent = "h2load nghttp2/1.52.0",
                         .source_ips = {"127.0.0.1"},
                         .api_version = "v1",
                         .received = Event::Clock::now(),
                         .long_running = false};
      const auto attributes = kw::auth::resource_attributes(admin, "get", "default", "", "configmaps", "", "c",
                                                            "/api/v1/namespaces/default/configmaps/c");
      auto record = auditor.begin(std::move(facts), attributes);
      if (!record) continue;
      record->annotate("authorization.k8s.io/decision", "allow");
      record->annotate("authorization.k8s.io/reason", "");
      record->started(200);
      record->complete();
    }
  }
  return (process_cpu_ns() - start) / requests;
}

}  // namespace

int main(int argc, char** argv) {
  const int requests = std::stoi(kw::bench::flag(argc, argv, "requests", "200000"));
  const std::filesystem::path dir =
      kw::bench::flag(argc, argv, "dir", (std::filesystem::temp_directory_path() / "kw-audit-bench").string());
  std::filesystem::create_directories(dir);
  const auto file = dir / "audit.log";
  kw::bench::report("audit.none.cpu_ns_per_request", run(k_none_policy, LogMode::batch, file, requests), "ns");
  std::filesystem::remove(file);
  kw::bench::report("audit.batch.cpu_ns_per_request", run(k_metadata_policy, LogMode::batch, file, requests), "ns");
  std::filesystem::remove(file);
  kw::bench::report("audit.blocking.cpu_ns_per_request", run(k_metadata_policy, LogMode::blocking, file, requests),
                    "ns");
  std::filesystem::remove_all(dir);
}
