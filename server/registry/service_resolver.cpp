#include "server/registry/service_resolver.hpp"

#include <random>

#include "core/util/text.hpp"
#include "server/registry/lookup.hpp"

namespace kw::registry {
namespace {

std::size_t random_index(std::size_t size) {
  std::random_device device;
  return std::uniform_int_distribution<std::size_t>(0, size - 1)(device);
}

}  // namespace

std::expected<ServiceEndpoint, ResolveError> resolve_service(Registry& registry, const std::string& namespace_,
                                                             const std::string& name, int port) {
  auto fail = [](Unreachable why, std::string message, std::string port_name = {}) {
    return std::unexpected(ResolveError{why, std::move(message), std::move(port_name)});
  };
  auto found = cached_object(registry, "", "v1", "services", namespace_, name);
  if (!found) return fail(Unreachable::read_error, found.error().message);
  if (!*found) return fail(Unreachable::no_service, "service " + util::go_quote(name) + " not found");
  const auto& spec = (**found).value("spec", nlohmann::json::object());
  const std::string type = spec.value("type", std::string("ClusterIP"));
  std::optional<std::string> port_name;
  for (const auto& service_port : spec.value("ports", nlohmann::json::array()))
    if (service_port.is_object() && service_port.value("port", 0) == port) {
      port_name = service_port.value("name", std::string());
      break;
    }
  if (!port_name) return fail(Unreachable::no_port, "no service port " + std::to_string(port) + " found for service " + util::go_quote(name));
  if (type != "ClusterIP" && type != "NodePort" && type != "LoadBalancer")
    return fail(Unreachable::unsupported_type, "unsupported service type " + util::go_quote(type));
  auto slices = cached(registry, "discovery.k8s.io", "v1", "endpointslices", namespace_);
  if (!slices) return fail(Unreachable::read_error, slices.error().message);
  std::vector<ServiceEndpoint> ready;
  bool any_slice = false;
  for (const auto& slice : *slices) {
    if (auto owner = slice->labels.find("kubernetes.io/service-name"); owner == slice->labels.end() || owner->second != name)
      continue;
    any_slice = true;
    const auto& object = slice->object();
    int target = 0;
    for (const auto& p : object.value("ports", nlohmann::json::array()))
      if (p.is_object() && p.value("name", std::string()) == *port_name && p.value("port", 0) > 0) target = p.value("port", 0);
    if (target == 0) continue;
    for (const auto& endpoint : object.value("endpoints", nlohmann::json::array())) {
      const auto conditions = endpoint.value("conditions", nlohmann::json::object());
      if (conditions.value("ready", true) != true) continue;  // unset counts as ready
      for (const auto& address : endpoint.value("addresses", nlohmann::json::array()))
        if (address.is_string()) ready.push_back({address.get<std::string>(), target});
    }
  }
  // (kube-apiserver 1.23 reads the Service's Endpoints: none at all is their NotFound)
  if (!any_slice) return fail(Unreachable::no_endpoints, "endpoints " + util::go_quote(name) + " not found");
  if (ready.empty())
    return fail(Unreachable::no_ready_endpoints, "no endpoints available for service " + util::go_quote(name), *port_name);
  return ready[random_index(ready.size())];
}

std::string https_url(const ServiceEndpoint& endpoint) {
  const bool v6 = endpoint.host.find(':') != std::string::npos;
  return "https://" + (v6 ? "[" + endpoint.host + "]" : endpoint.host) + ":" + std::to_string(endpoint.port);
}

}  // namespace kw::registry
