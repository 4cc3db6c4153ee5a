#pragma once
// API aggregation (kube-aggregator): an APIService with a `service` hands /apis/GROUP/VERSION/...
// to another API server. kw follows the stored APIServices, and for each such one:
// - proxies every request under its group version to a ready endpoint of the Service (its
//   EndpointSlices), over TLS checked against caBundle (or not, with insecureSkipTLSVerify),
//   as the requester: X-Remote-User, X-Remote-Group and X-Remote-Extra-* headers, and the client
//   certificate --proxy-client-cert-file / --proxy-client-key-file. Responses, watches too, are
//   streamed back as they come;
// - checks the server every few seconds (GET /apis/GROUP/VERSION) and keeps the APIService's
//   Available condition in kube's words (Passed, ServiceNotFound, MissingEndpoints,
//   FailedDiscoveryCheck...); an unavailable one answers 503 "service unavailable";
// - lists the group in discovery (/apis, /apis/GROUP and aggregated discovery, with the
//   resources the server last listed).
//
//   auto aggregator = aggregator::Aggregator::start(registry, {.client_cert_file = ...});
//   if ((*aggregator)->serves(group, version)) (*aggregator)->proxy(request, group, version, user, stream);
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/net/server/http_server.hpp"
#include "core/util/error.hpp"
#include "server/auth/user_info.hpp"
#include "server/registry/informer.hpp"
#include "server/registry/registry.hpp"

namespace kw::aggregator {

struct AggregatorOptions {
  std::string client_cert_file = {};  // --proxy-client-cert-file ("" = none)
  std::string client_key_file = {};   // --proxy-client-key-file
  std::chrono::milliseconds check_period{10'000};  // how often each server's discovery is checked
};

// A group served elsewhere, as discovery lists it.
struct RemoteGroup {
  std::string name;
  // Its versions, preferred first, each with the APIResourceList its server last answered
  // (null until a check passed).
  std::vector<std::pair<std::string, nlohmann::json>> versions;
};

class Aggregator {
 public:
  // Follows the APIServices from now on and starts checking them; the registry must be started.
  // Destroy it before the registry.
  static Result<std::unique_ptr<Aggregator>> start(registry::Registry& registry, AggregatorOptions options);
  ~Aggregator();
  Aggregator(const Aggregator&) = delete;
  Aggregator& operator=(const Aggregator&) = delete;

  // Whether GROUP/VERSION is served by another server (an APIService with a service).
  bool serves(std::string_view group, std::string_view version) const;
  // Forwards the request (already authorized) under /apis/GROUP/VERSION as `user` and streams
  // the answer back. Blocks the calling worker until the answer ends or the client goes.
  void proxy(const net::Request& request, std::string_view group, std::string_view version,
             const auth::UserInfo& user, net::ResponseStream& stream) const;
  // The groups served elsewhere, by groupPriorityMinimum (highest first), then name.
  std::vector<RemoteGroup> groups() const;

  struct State;

 private:
  explicit Aggregator(std::shared_ptr<State> state) : m_state(std::move(state)) {}

  std::shared_ptr<State> m_state;
  std::unique_ptr<registry::Informer> m_informer;
  std::thread m_checker;  // checks each server's discovery
};

}  // namespace kw::aggregator
