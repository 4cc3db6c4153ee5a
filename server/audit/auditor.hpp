#pragma once
// Auditing of requests as kube-apiserver audits them: the policy picks each request's level,
// and a RequestAudit collects what the request did and writes its events (RequestReceived,
// ResponseStarted for long-running requests, ResponseComplete) to the log.
//
//   auto record = auditor.begin(facts, attributes);   // null: the policy says None
//   if (record) record->annotate("authorization.k8s.io/decision", "allow");
//   ... record->request_object(body); record->response_object(result);
//   record->started(200); ... record->complete();
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/audit/event.hpp"
#include "server/audit/log_backend.hpp"
#include "server/audit/policy.hpp"
#include "server/auth/authorizer.hpp"

namespace kw::audit {

// What the transport knows of a request.
struct RequestFacts {
  std::string audit_id = {};
  std::string request_uri = {};  // path and query as the client sent them
  std::string user_agent = {};
  std::vector<std::string> source_ips = {};
  std::string api_version = {};  // of a resource request
  Event::Clock::time_point received = {};
  bool long_running = false;  // watch, proxy, exec, attach, log, portforward
};

class RequestAudit {
 public:
  RequestAudit(Event event, RequestConfig config, std::shared_ptr<LogBackend> log, bool long_running,
               bool failed_authentication);

  Level level() const { return m_config.level; }

  void annotate(const std::string& key, const std::string& value);
  // The user the request acts as (Impersonate-* headers).
  void impersonating(const auth::UserInfo& user);
  // The object the request sends: it completes the object reference (name, namespace, uid,
  // resourceVersion), and is logged at level Request and above.
  void request_object(const nlohmann::json& object);
  // A patch body, logged as it is at level Request and above (when it is JSON).
  void request_patch(std::string_view body);
  // What the request answers. A meta/v1 Status sets the status and reason of responseStatus;
  // the object is logged at level RequestResponse.
  void response_object(const nlohmann::json& object);
  // Whether response_object() keeps the object, so that a caller can skip building one.
  bool wants_response_object() const { return m_config.level >= Level::request_response; }

  // Logs RequestReceived (Auditor::begin does).
  void received();
  // The answer began with `code`: a long-running request logs ResponseStarted.
  void started(int code);
  // The answer ended: ResponseComplete (once). A request that never answered is logged as
  // kube-apiserver logs a connection closed early.
  void complete();

 private:
  void emit(Stage stage);

  std::mutex m_mutex;
  Event m_event;
  RequestConfig m_config;
  std::shared_ptr<LogBackend> m_log;  // a response may end after the server let go of the log
  bool m_long_running;
  bool m_failed_authentication;
  bool m_started = false;
  bool m_completed = false;
};

class Auditor {
 public:
  Auditor(Policy policy, std::unique_ptr<LogBackend> log);

  // The record of a request by an authenticated user (`attributes`, before impersonation), or
  // null when the policy's level for it is None. Logs RequestReceived.
  std::shared_ptr<RequestAudit> begin(RequestFacts facts, const auth::Attributes& attributes) const;
  // The record of a request whose credentials were refused (`attributes` name no user): one
  // ResponseStarted event, written when the 401 begins.
  std::shared_ptr<RequestAudit> begin_unauthenticated(RequestFacts facts, const auth::Attributes& attributes) const;

  // Events handed to the log, and those dropped or not written (the audit metrics).
  std::uint64_t events() const { return m_log->events(); }
  std::uint64_t errors() const { return m_log->dropped() + m_log->write_errors(); }

 private:
  std::shared_ptr<RequestAudit> make(RequestFacts facts, const auth::Attributes& attributes, bool authenticated) const;

  Policy m_policy;
  std::shared_ptr<LogBackend> m_log;
};

}  // namespace kw::audit
