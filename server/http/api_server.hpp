#pragma once
// The Kubernetes REST API as a transport Handler: discovery, health, version, metrics, and
// the verbs on every resource of the registry, watches included.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/net/server/http_server.hpp"
#include "server/aggregator/aggregator.hpp"
#include "server/audit/auditor.hpp"
#include "server/auth/authenticator.hpp"
#include "server/auth/authorizer.hpp"
#include "server/auth/service_account.hpp"
#include "server/flowcontrol/flow_control.hpp"
#include "server/registry/registry.hpp"

namespace kw::http {

class AuditedStream;  // a response that carries its Audit-Id and reports to the audit record

struct ApiServerOptions {
  // Who may do what. Null authenticator: every request is trusted (the loopback
  // insecure port); null authorizer: every authenticated request is allowed.
  const auth::Authenticator* authenticator = nullptr;
  const auth::Authorizer* authorizer = nullptr;
  // Signs TokenRequests and serves the OpenID discovery documents (null: neither).
  const auth::ServiceAccountTokens* service_accounts = nullptr;
  // Writes the audit log (null: no audit log; every answer still carries an Audit-Id).
  const audit::Auditor* auditor = nullptr;
  // The APIServices served by other API servers: their requests are proxied there, their groups
  // listed in discovery (null: none).
  const aggregator::Aggregator* aggregator = nullptr;
  // API priority and fairness: when given, it admits requests instead of the in-flight limits
  // (kube-apiserver's --enable-priority-and-fairness). Shared by every listener.
  flowcontrol::FlowControl* flow_control = nullptr;
  std::size_t max_watch_queue_bytes = 8 * 1024 * 1024;  // a watcher queuing more is slow
  std::chrono::seconds min_request_timeout{1800};       // watches end after 1-2x this
};

class ApiServer {
 public:
  ApiServer(registry::Registry& registry, ApiServerOptions options);
  void handle(net::Request request, std::shared_ptr<net::ResponseStream> stream);
  // The transport's in-flight limits (kube-apiserver's --max-requests-inflight and
  // --max-mutating-requests-inflight; 0 = no limit). Watches and the other long-running
  // requests are exempt, and so is every request of a system:masters user (as kube-apiserver
  // does); get/list and non-resource GETs are read-only, the rest mutating. A refused request
  // gets 429 TooManyRequests with Retry-After: 1. Counted per listener.
  // With a flow control (ApiServerOptions), the limits are not used: every request but the
  // long-running ones other than watches (which hold a seat until their handler returns, as a
  // watch's initialization does in kube) is classified and admitted by priority and fairness,
  // with the same 429 answer.
  net::AdmissionConfig admission(std::size_t max_read_only, std::size_t max_mutating);
  net::RequestClass classify(const net::Request& request) const;
  // What priority and fairness classifies a request by; nullopt for a request it does not
  // limit (long-running but for watches; unauthenticated ones, answered 401 unlimited).
  std::optional<flowcontrol::RequestDigest> flow_digest(const net::Request& request) const;
  // Whether a request's body is worth reading (net::ServerConfig::admit_body): not when the
  // request is refused anyway for its credentials (401), or on the insecure port as
  // cross-site, so that nobody without credentials makes the server buffer a body.
  bool admits_body(const net::Request& head) const;

 private:
  void handle_resource(const net::Request& request, const struct RequestInfo& info,
                       const std::map<std::string, std::string>& query,
                       const std::shared_ptr<net::ResponseStream>& stream, const auth::UserInfo& user,
                       audit::RequestAudit* audit);
  bool handle_discovery(const net::Request& request, const struct RequestInfo& info, net::ResponseStream& stream);
  void handle_metrics(net::ResponseStream& stream);
  bool serve_openid(const net::Request& request, net::ResponseStream& stream);
  // Authentication, the audit record, impersonation and authorization, in kube-apiserver's
  // order. 401/403 answered (true) or the request may go on as `user`; the stream gets the
  // request's audit record when the policy audits it.
  bool refuse_unauthorized(const net::Request& request, const struct RequestInfo& info,
                           const std::map<std::string, std::string>& query, AuditedStream& stream,
                           auth::UserInfo& user);

  registry::Registry& m_registry;
  ApiServerOptions m_options;
  std::atomic<std::uint64_t> m_requests{0};
  std::atomic<std::uint64_t> m_watches_started{0};
  std::atomic<std::uint64_t> m_dropped_read_only{0};  // refused by the in-flight limit
  std::atomic<std::uint64_t> m_dropped_mutating{0};
};

}  // namespace kw::http
