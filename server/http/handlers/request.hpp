#pragma once
// One REST request on one served resource, as every verb handler sees it, and the steps the
// handlers share: the query, the body, content negotiation, write options and the reply.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"
#include "core/net/server/http_server.hpp"
#include "server/audit/auditor.hpp"
#include "server/auth/authenticator.hpp"
#include "server/auth/authorizer.hpp"
#include "server/auth/service_account.hpp"
#include "server/auth/user_info.hpp"
#include "server/http/request_info.hpp"
#include "server/http/respond.hpp"
#include "server/registry/registry.hpp"

namespace kw::http::handlers {

// What the API server's options say about watches.
struct WatchSettings {
  std::size_t max_queue_bytes = 8 * 1024 * 1024;  // a watcher queuing more is slow
  std::chrono::seconds min_request_timeout{1800};  // watches end after 1-2x this
  std::atomic<std::uint64_t>* started = nullptr;   // counts the watches started
};

struct ResourceRequest {
  const net::Request& request;
  const RequestInfo& info;
  const std::map<std::string, std::string>& query;
  const api::ResourceInfo& resource;  // the served resource the path names
  const std::shared_ptr<net::ResponseStream>& stream;
  registry::Registry& registry;
  // Who asks, and the server's authenticator and authorizer (null when not configured): the
  // reviews answer with them.
  const auth::UserInfo& user;
  const auth::Authenticator* authenticator = nullptr;
  const auth::Authorizer* authorizer = nullptr;
  // What signs and checks ServiceAccount tokens (null: serviceaccounts/token is unavailable).
  const auth::ServiceAccountTokens* service_accounts = nullptr;
  // The request's audit record (null when the policy does not audit it): what the request
  // sends and answers goes into its events.
  audit::RequestAudit* audit = nullptr;

  // A query parameter; "" when absent.
  std::string param(const char* key) const;
  bool has_param(const char* key) const { return query.contains(key); }
  // The error as a Status; `warnings`, what the request collected first, as Warning headers.
  void fail(const registry::ApiError& error, const std::vector<std::string>& warnings = {}) const;
  // The object the request sends, for the audit log (kinds answered without a store).
  void audited_request(const nlohmann::json& object) const;
};

// The request body as JSON (a JSON, YAML or protobuf Content-Type). With `duplicates`, the
// members a JSON body repeats are named there (codec::parse_json), and `json_text` (if given)
// is set to a body that was JSON.
registry::ApiResult<nlohmann::json> read_body(const net::Request& request,
                                              std::vector<std::string>* duplicates = nullptr,
                                              std::string_view* json_text = nullptr);

// The response format, includeObject applied; answers 406 itself and returns nullopt when the
// client accepts none of what the resource offers.
std::optional<Negotiated> negotiate(const ResourceRequest& r, const Offers& offers);

// What every writing verb starts with: the response format, and dryRun and fieldValidation
// from the query, with the warnings a write collects. Not movable: the options point at the
// warnings.
// What a PATCH is, for the checks of its options (force only with apply).
struct PatchKind {
  bool patch = false;
  bool apply = false;
};

struct WriteContext {
  WriteContext() = default;
  WriteContext(const WriteContext&) = delete;
  WriteContext& operator=(const WriteContext&) = delete;

  // False when the request was answered already: 406, or 422 on the `options_kind`
  // (CreateOptions, UpdateOptions, PatchOptions, DeleteOptions) for an unsupported dryRun or
  // fieldValidation.
  bool begin(const ResourceRequest& r, const Offers& offers, std::string_view options_kind);
  // Who writes, for managedFields: fieldManager from the query (checked as kube-apiserver
  // checks its CreateOptions, UpdateOptions or PatchOptions: `options_kind`), else the product
  // of the User-Agent. `patch`: force is allowed only with `apply`, which needs a fieldManager.
  // False when the request was answered already (422).
  bool track(const ResourceRequest& r, std::string_view options_kind, PatchKind patch = {});
  // The object a create or update sends (read_body), with the members a JSON body repeats
  // (and the body) noted for field validation.
  registry::ApiResult<nlohmann::json> read_object(const ResourceRequest& r);

  Negotiated format;
  registry::WriteOptions options;
  std::vector<std::string> warnings;
};

// An object (or the error) in the negotiated format: a one-row Table when it was asked for.
void reply(const ResourceRequest& r, const Negotiated& format, int status,
           const registry::ApiResult<nlohmann::json>& result, const std::vector<std::string>& warnings = {});

// A cached object (a read at resourceVersion "0") in the negotiated format: its JSON and
// protobuf bytes as the cache keeps them, re-encoded only for other formats.
void reply_cached(const ResourceRequest& r, const Negotiated& format, const cache::StoredObject& object,
                  const std::vector<std::string>& warnings = {});

// A list answer in the negotiated format (JSON joined from the cached objects' bytes).
void reply_list(const ResourceRequest& r, const Negotiated& format, const registry::ListResult& listed);

// kube's 422 about the query's options: `OPTIONS_KIND.meta.k8s.io "" is invalid: ...`.
registry::ApiError options_invalid(std::string_view options_kind, nlohmann::json causes);
// dryRun must list only "All" (ValidateDryRun); `modes` is the list the client sent.
std::optional<registry::ApiError> dry_run_refusal(std::string_view options_kind, const nlohmann::json& modes);

registry::ApiError method_not_allowed();
registry::ApiError resource_not_found();

}  // namespace kw::http::handlers
