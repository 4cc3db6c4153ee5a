// The audit policy's rule matching and errors, the event line formats, the per-request record's
// stages, and the log writer's rotation.
#include <doctest/doctest.h>

#include <chrono>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/util/uuid.hpp"
#include "server/audit/auditor.hpp"

namespace kw::audit::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

auth::UserInfo user(std::string name, std::vector<std::string> groups = {"system:authenticated"}) {
  return auth::UserInfo{.name = std::move(name), .groups = std::move(groups), .uid = {}, .extra = {}};
}

auth::Attributes resource(const auth::UserInfo& who, std::string verb, std::string ns, std::string group,
                          std::string plural, std::string sub = "", std::string name = "") {
  return auth::resource_attributes(who, std::move(verb), std::move(ns), std::move(group), std::move(plural),
                                   std::move(sub), std::move(name), "");
}

Policy policy(const char* yaml) {
  auto parsed = Policy::parse(yaml);
  REQUIRE_MESSAGE(parsed.has_value(), (parsed ? "" : parsed.error().message));
  return *parsed;
}

std::string error_of(const char* yaml) {
  auto parsed = Policy::parse(yaml);
  REQUIRE_FALSE(parsed.has_value());
  return parsed.error().message;
}

// A scratch directory removed at the end of the test.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("kw-audit-test-" + util::new_uuid());
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

std::vector<std::string> lines_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("the first matching rule sets the level") {
  const auto p = policy(R"(apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  users: [system:kube-proxy]
- level: None
  nonResourceURLs: [/healthz*, /version]
- level: RequestResponse
  resources: [{group: "", resources: [configmaps]}]
  namespaces: [audited]
- level: Request
  resources: [{group: apps, resources: ["*/scale", "statefulsets/*"]}]
- level: Metadata
  resources: [{group: "", resources: [secrets], resourceNames: [token]}]
  omitStages: [ResponseStarted]
  omitManagedFields: true
- level: Request
  userGroups: [devs]
  verbs: [create]
- level: Metadata
  namespaces: [""]
- level: Metadata
  resources: [{group: batch}]
)");
  const auto alice = user("alice", {"devs", "system:authenticated"});
  CHECK(p.evaluate(resource(user("system:kube-proxy"), "get", "a", "", "pods")).level == Level::none);
  CHECK(p.evaluate(auth::non_resource_attributes(alice, "GET", "/healthz/etcd")).level == Level::none);
  CHECK(p.evaluate(auth::non_resource_attributes(alice, "GET", "/version")).level == Level::none);
  CHECK(p.evaluate(auth::non_resource_attributes(alice, "GET", "/versions")).level == Level::none);  // no rule
  CHECK(p.evaluate(resource(alice, "get", "audited", "", "configmaps")).level == Level::request_response);
  CHECK(p.evaluate(resource(alice, "get", "other", "", "configmaps")).level == Level::none);
  CHECK(p.evaluate(resource(alice, "get", "a", "apps", "deployments", "scale")).level == Level::request);
  CHECK(p.evaluate(resource(alice, "get", "a", "apps", "statefulsets", "status")).level == Level::request);
  CHECK(p.evaluate(resource(alice, "get", "a", "apps", "statefulsets")).level == Level::request);  // "x/*" is x too
  CHECK(p.evaluate(resource(alice, "get", "a", "apps", "deployments")).level == Level::none);
  const auto token = p.evaluate(resource(alice, "get", "a", "", "secrets", "", "token"));
  CHECK(token.level == Level::metadata);
  CHECK(token.omit_managed_fields);
  CHECK(token.omits(Stage::request_received));  // the policy's omission joins the rule's
  CHECK(token.omits(Stage::response_started));
  CHECK_FALSE(token.omits(Stage::response_complete));
  CHECK(p.evaluate(resource(alice, "get", "a", "", "secrets", "", "other")).level == Level::none);
  CHECK(p.evaluate(resource(alice, "create", "a", "", "pods")).level == Level::request);
  CHECK(p.evaluate(resource(user("bob"), "create", "a", "", "pods")).level == Level::none);
  CHECK(p.evaluate(resource(user("bob"), "list", "", "", "nodes")).level == Level::metadata);  // cluster scope
  CHECK(p.evaluate(resource(user("bob"), "list", "x", "batch", "jobs")).level == Level::metadata);
  // Without a user, rules that name users or groups never match.
  CHECK(p.evaluate(resource(user(""), "create", "a", "", "pods"), false).level == Level::none);
  const auto none = p.evaluate(resource(user("bob"), "get", "x", "", "pods"));
  CHECK(none.level == Level::none);
  CHECK(none.omits(Stage::request_received));
}

TEST_CASE("policy errors are worded as kube-apiserver words them") {
  CHECK(error_of("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- users: [a]\n") ==
        "rules[0].level: Required value");
  CHECK(error_of("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n") == "loaded illegal policy with 0 rules");
  CHECK(error_of("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: [/a*b, x]\n"
                 "  namespaces: [team]\n") ==
        "[rules[0].nonResourceURLs[0]: Invalid value: \"/a*b\": non-resource URL wildcards '*' must be the final "
        "character of the rule, rules[0].nonResourceURLs[1]: Invalid value: \"x\": non-resource URL rules must begin "
        "with a '/' character, rules[0].nonResourceURLs: Invalid value: []string{\"/a*b\", \"x\"}: rules cannot apply "
        "to both regular resources and non-resource URLs]");
  CHECK(error_of("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  resources: [{group: "
                 "Bad_Group, resourceNames: [x]}]\n")
            .starts_with("[rules[0].resources.group: Invalid value: \"Bad_Group\": a lowercase RFC 1123 subdomain"));
  CHECK(error_of("apiVersion: audit.k8s.io/v2\nkind: Policy\nrules: []\n").starts_with("failed decoding: no kind"));
  CHECK(error_of("kind: Policy\nrules: [\n") .starts_with("failed decoding: "));
  CHECK(Policy::parse("apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: Metadata\n").has_value());
  auto missing = Policy::load("/nonexistent/policy.yaml");
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().message == "failed to read file path \"/nonexistent/policy.yaml\"");
}

TEST_CASE("an event is one JSON line in kube-apiserver's field order") {
  Event e;
  e.level = Level::request_response;
  e.audit_id = "id-1";
  e.stage = Stage::response_complete;
  e.request_uri = "/api/v1/namespaces/a/configmaps?limit=5";
  e.verb = "list";
  e.user = auth::UserInfo{.name = "alice", .groups = {"devs"}, .uid = "u1", .extra = {{"scopes", {"view"}}}};
  e.impersonated_user = user("carol");
  e.source_ips = {"127.0.0.1"};
  e.user_agent = std::string("agent\xff", 6);
  e.object_ref = ObjectRef{.resource = "configmaps", .namespace_ = "a", .name = {}, .uid = {}, .api_group = {},
                           .api_version = "v1", .resource_version = {}, .subresource = {}};
  e.response_status = ResponseStatus{.code = 404, .status = "Failure", .reason = "NotFound", .message = {}};
  e.request_object = json{{"data", {{"k", "v"}}}};
  e.received = std::chrono::system_clock::time_point(std::chrono::microseconds(1'700'000'000'123'456));
  e.stage_time = e.received + std::chrono::microseconds(2);
  e.annotations = {{"authorization.k8s.io/reason", ""}, {"authorization.k8s.io/decision", "allow"}};
  const std::string line = json_line(e);
  REQUIRE(line.ends_with("}\n"));
  const auto parsed = nlohmann::ordered_json::parse(line);
  std::vector<std::string> keys;
  for (const auto& [key, value] : parsed.items()) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"kind", "apiVersion", "level", "auditID", "stage", "requestURI", "verb", "user",
                                         "impersonatedUser", "sourceIPs", "userAgent", "objectRef", "responseStatus",
                                         "requestObject", "requestReceivedTimestamp", "stageTimestamp", "annotations"});
  CHECK(parsed["user"].dump() == R"({"username":"alice","uid":"u1","groups":["devs"],"extra":{"scopes":["view"]}})");
  CHECK(parsed["objectRef"].dump() == R"({"resource":"configmaps","namespace":"a","apiVersion":"v1"})");
  CHECK(parsed["responseStatus"].dump() == R"({"metadata":{},"status":"Failure","reason":"NotFound","code":404})");
  CHECK(parsed["userAgent"] == "agent\xef\xbf\xbd");  // not UTF-8: replaced, the line stays JSON
  CHECK(parsed["requestReceivedTimestamp"] == "2023-11-14T22:13:20.123456Z");
  CHECK(parsed["stageTimestamp"] == "2023-11-14T22:13:20.123458Z");
  CHECK(parsed["level"] == "RequestResponse");
  Event bare;
  bare.audit_id = "id-2";
  bare.stage = Stage::response_started;
  const auto minimal = nlohmann::ordered_json::parse(json_line(bare));
  CHECK(minimal["user"].dump() == "{}");  // authentication failed: no user
  CHECK_FALSE(minimal.contains("objectRef"));
  CHECK_FALSE(minimal.contains("annotations"));
}

TEST_CASE("the legacy line") {
  Event e;
  e.audit_id = "id-1";
  e.stage = Stage::request_received;
  e.verb = "get";
  e.request_uri = "/api";
  e.received = std::chrono::system_clock::time_point(std::chrono::nanoseconds(1'700'000'000'120'000'000LL));
  CHECK(legacy_line(e) == "2023-11-14T22:13:20.12Z AUDIT: id=\"id-1\" stage=\"RequestReceived\" ip=\"<unknown>\" "
                          "method=\"get\" user=\"<none>\" groups=\"<none>\" as=\"<self>\" asgroups=\"<lookup>\" "
                          "user-agent=\"\" namespace=\"<none>\" uri=\"/api\" response=\"<deferred>\"\n");
  e.user = user("alice", {"devs", "system:authenticated"});
  e.impersonated_user = auth::UserInfo{.name = "carol", .groups = {}, .uid = {}, .extra = {}};
  e.source_ips = {"10.0.0.1", "127.0.0.1"};
  e.object_ref = ObjectRef{.resource = "pods", .namespace_ = "team", .name = {}, .uid = {}, .api_group = {},
                           .api_version = "v1", .resource_version = {}, .subresource = {}};
  e.response_status = ResponseStatus{.code = 200, .status = {}, .reason = {}, .message = {}};
  e.received = std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000));
  CHECK(legacy_line(e) == "2023-11-14T22:13:20Z AUDIT: id=\"id-1\" stage=\"RequestReceived\" ip=\"10.0.0.1\" "
                          "method=\"get\" user=\"alice\" groups=\"\\\"devs\\\",\\\"system:authenticated\\\"\" "
                          "as=\"carol\" asgroups=\"<lookup>\" user-agent=\"\" namespace=\"team\" uri=\"/api\" "
                          "response=\"200\"\n");
}

TEST_CASE("a request's record writes its stages") {
  TempDir dir;
  const auto file = dir.path / "audit.log";
  {
    auto log = LogBackend::open({.path = file.string(), .mode = LogMode::blocking});
    REQUIRE(log.has_value());
    Auditor auditor(policy("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n"
                           "- level: None\n  verbs: [get]\n"
                           "- level: Request\n  verbs: [watch]\n  omitStages: [RequestReceived]\n"
                           "- level: Metadata\n"),
                    std::move(*log));
    const auto alice = user("alice");
    RequestFacts facts{.audit_id = "a1", .request_uri = "/api/v1/pods", .user_agent = std::string(1100, 'x'),
                       .source_ips = {"127.0.0.1"}, .api_version = "v1",
                       .received = std::chrono::system_clock::now(), .long_running = false};
    CHECK(auditor.begin(facts, resource(alice, "get", "a", "", "pods")) == nullptr);

    auto listed = auditor.begin(facts, resource(alice, "list", "a", "", "pods"));
    REQUIRE(listed != nullptr);
    listed->annotate("authorization.k8s.io/decision", "allow");
    listed->annotate("authorization.k8s.io/decision", "forbid");  // the first value stays
    listed->impersonating(user("carol"));
    listed->request_object(json{{"metadata", {{"name", "n"}, {"uid", "u"}, {"resourceVersion", "7"}}}});
    listed->response_object(json{{"kind", "Status"}, {"status", "Failure"}, {"reason", "NotFound"}, {"code", 404}});
    listed->started(404);
    listed->complete();
    listed->complete();  // once

    facts.audit_id = "w1";
    facts.long_running = true;
    auto watched = auditor.begin(facts, resource(alice, "watch", "a", "", "pods"));
    REQUIRE(watched != nullptr);
    watched->started(200);
    watched->complete();

    facts.audit_id = "w2";
    auto dropped = auditor.begin(facts, resource(alice, "watch", "a", "", "pods"));
    dropped->complete();  // never answered

    facts.audit_id = "f1";
    facts.long_running = false;
    auto failed = auditor.begin_unauthenticated(facts, resource(user(""), "list", "a", "", "pods"));
    REQUIRE(failed != nullptr);
    failed->response_object(json{{"kind", "Status"}, {"status", "Failure"}, {"reason", "Unauthorized"}, {"code", 401}});
    failed->started(401);
    failed->complete();
  }
  const auto lines = lines_of(file);
  std::vector<std::string> stages;
  for (const auto& line : lines) {
    const auto event = json::parse(line);
    stages.push_back(event["auditID"].get<std::string>() + ":" + event["stage"].get<std::string>());
  }
  CHECK(stages == std::vector<std::string>{"a1:RequestReceived", "a1:ResponseComplete", "w1:ResponseStarted",
                                           "w1:ResponseComplete", "w2:ResponseStarted", "w2:ResponseComplete",
                                           "f1:ResponseStarted"});
  const auto first = json::parse(lines[0]);
  CHECK(first["userAgent"].get<std::string>().size() == 1024 + std::string("...TRUNCATED").size());
  CHECK_FALSE(first.contains("responseStatus"));
  CHECK_FALSE(first.contains("impersonatedUser"));
  const auto complete = json::parse(lines[1]);
  CHECK(complete["impersonatedUser"]["username"] == "carol");
  CHECK(complete["objectRef"].dump() ==
        R"({"apiVersion":"v1","name":"n","namespace":"a","resource":"pods","resourceVersion":"7","uid":"u"})");
  CHECK(complete["responseStatus"].dump() == R"({"code":404,"metadata":{},"reason":"NotFound","status":"Failure"})");
  CHECK(complete["annotations"]["authorization.k8s.io/decision"] == "allow");
  CHECK_FALSE(complete.contains("requestObject"));  // Metadata level
  CHECK(json::parse(lines[4])["responseStatus"].dump() ==
        R"({"code":200,"message":"Connection closed early","metadata":{},"status":"Success"})");
  const auto failed = json::parse(lines[6]);
  CHECK(failed["user"].dump() == "{}");
  CHECK(failed["responseStatus"]["code"] == 401);
}

TEST_CASE("the log rotates by size and keeps the newest backups") {
  TempDir dir;
  const auto file = dir.path / "logs" / "audit.log";
  const std::string big(300 * 1024, 'x');
  {
    auto log = LogBackend::open(
        {.path = file.string(), .max_backups = 2, .max_size_mb = 1, .compress = true, .mode = LogMode::blocking});
    REQUIRE(log.has_value());
    CHECK((fs::status(file).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write));
    for (int i = 0; i < 14; ++i) {
      Event e;
      e.audit_id = std::to_string(i);
      e.user_agent = big;
      (*log)->process(std::move(e));
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // backups are named by the millisecond
    }
  }
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(file.parent_path())) names.insert(entry.path().filename().string());
  REQUIRE(names.size() == 3);
  CHECK(names.contains("audit.log"));
  const std::regex backup(R"(audit-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}\.log\.gz)");
  for (const auto& name : names)
    if (name != "audit.log") CHECK(std::regex_match(name, backup));
  CHECK(fs::file_size(file) <= 1024 * 1024);
  // Three lines of about 300 KiB fit a 1 MiB file: 14 events leave 2 in the current one.
  CHECK(lines_of(file).size() == 2);
}

TEST_CASE("a batch that crosses the size limit is split at a line and rotates the file") {
  TempDir dir;
  const auto file = dir.path / "audit.log";
  const std::string big(100 * 1024, 'x');
  std::uint64_t errors = 0;
  {
    auto log = LogBackend::open({.path = file.string(), .max_size_mb = 1, .mode = LogMode::batch});
    REQUIRE(log.has_value());
    for (int i = 0; i < 40; ++i) {
      Event e;
      e.audit_id = std::to_string(i);
      e.user_agent = i == 20 ? std::string(1024 * 1024, 'z') : big;  // no file can hold event 20
      CHECK((*log)->process(std::move(e)));
    }
    for (int wait = 0; wait < 200 && errors == 0; ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      errors = (*log)->write_errors();
    }
  }
  CHECK(errors == 1);
  // Backups' names sort by time; the current file holds the newest lines.
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir.path))
    if (entry.path() != file) files.push_back(entry.path());
  std::ranges::sort(files);
  files.push_back(file);
  CHECK(files.size() >= 4);
  std::vector<std::string> ids;
  for (const auto& path : files) {
    CHECK(fs::file_size(path) <= 1024 * 1024);
    for (const auto& line : lines_of(path)) ids.push_back(nlohmann::json::parse(line)["auditID"]);
  }
  std::vector<std::string> expected;
  for (int i = 0; i < 40; ++i)
    if (i != 20) expected.push_back(std::to_string(i));
  CHECK(ids == expected);
}

TEST_CASE("a full buffer drops events in batch mode") {
  TempDir dir;
  auto log = LogBackend::open({.path = (dir.path / "a.log").string(), .mode = LogMode::batch, .buffer_size = 1});
  REQUIRE(log.has_value());
  int accepted = 0;
  for (int i = 0; i < 2000; ++i) {
    Event e;
    e.user_agent = std::string(4096, 'y');
    accepted += (*log)->process(std::move(e)) ? 1 : 0;
  }
  CHECK((*log)->dropped() == static_cast<std::uint64_t>(2000 - accepted));
  CHECK(accepted >= 1);
}

TEST_CASE("log options are checked as kube-apiserver checks them") {
  CHECK(check_log_options({.max_age_days = -1}, "json").error().message == "--audit-log-maxage -1 can't be a negative number");
  CHECK(check_log_options({}, "yaml").error().message == "invalid audit log format yaml, allowed formats are \"legacy,json\"");
  CHECK(parse_log_mode("sometimes").error().message ==
        "invalid audit log mode sometimes, allowed modes are \"batch,blocking,blocking-strict\"");
  CHECK(check_log_options({}, "legacy").has_value());
}

TEST_CASE("uuids are random version 4") {
  const std::regex form("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const auto id = util::new_uuid();
    CHECK(std::regex_match(id, form));
    seen.insert(id);
  }
  CHECK(seen.size() == 1000);
}

}  // namespace kw::audit::test
