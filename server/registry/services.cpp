// The registry's part in Services: cluster IPs and node ports taken on writes and given back
// when Services go, and the objects kube-apiserver keeps for itself — the `kubernetes`
// Service in `default` with its Endpoints and EndpointSlice, and the default ServiceCIDR.
#include <iostream>

#include "server/registry/registry.hpp"
#include "server/registry/stored_value.hpp"

namespace kw::registry {
namespace {

using nlohmann::json;

const api::ResourceInfo* served(const api::ResourceTable& table, const char* group, const char* plural) {
  return table.find_plural(group, "v1", plural);
}

}  // namespace

storage::Result<std::vector<json>> Registry::read_all(const api::ResourceInfo& info) {
  std::vector<json> out;
  std::string start;
  for (;;) {
    auto page = m_backend.list(key_prefix(info, ""), storage::ListOptions{0, 500, start, false});
    if (!page) return std::unexpected(page.error());
    for (const auto& kv : page->items)
      if (auto object = decode_stored(info, kv.value)) out.push_back(std::move(*object));
    if (!page->more || page->items.empty()) return out;
    start = page->items.back().key + '\0';
  }
}

ApiResult<ServiceAllocator::Reservation> Registry::allocate(const api::ResourceInfo& info, json& object,
                                                            const json* old, bool dry_run) {
  if (!m_services || kinds::lifecycle_of(info) != kinds::Lifecycle::service) return ServiceAllocator::Reservation();
  return m_services->allocate(object, old, dry_run);
}

void Registry::released(const api::ResourceInfo& info, const json& old, const json* now) {
  if (m_services && kinds::lifecycle_of(info) == kinds::Lifecycle::service) m_services->release_unused(old, now);
}

storage::Result<void> Registry::start_services() {
  const auto table = resources();
  const auto* services = served(*table, "", "services");
  const auto* addresses = served(*table, "networking.k8s.io", "ipaddresses");
  if (services == nullptr || addresses == nullptr) return {};
  // The table may be replaced (CRDs) while the allocator lives: it keeps its own copy.
  ServiceAllocator::Writer writer{
      .create = [this, addresses = *addresses](const json& address) -> ApiResult<void> {
        auto created = create(addresses, "", address, {});
        if (!created) return std::unexpected(created.error());
        return {};
      },
      .remove = [this, addresses = *addresses](const std::string& name) {
        auto removed = remove(addresses, "", name, json(), {});
        if (!removed && removed.error().code != 404)
          std::cerr << "kw: cannot remove the IPAddress " << name << ": " << removed.error().message << "\n";
      }};
  auto made = ServiceAllocator::make(m_options.services, std::move(writer));
  if (!made) return std::unexpected(storage::Error{storage::ErrorCode::invalid, "", 0, made.error()});
  auto stored_services = read_all(*services);
  if (!stored_services) return std::unexpected(stored_services.error());
  auto stored_addresses = read_all(*addresses);
  if (!stored_addresses) return std::unexpected(stored_addresses.error());
  std::vector<std::string> taken;
  for (const auto& address : *stored_addresses)
    taken.push_back(address.value("metadata", json::object()).value("name", std::string()));
  (*made)->load(*stored_services, taken);
  m_services = std::move(*made);
  return {};
}

void Registry::write_service_objects() {
  const auto table = resources();
  const auto* services = served(*table, "", "services");
  if (services == nullptr || m_services == nullptr) return;

  // The default ServiceCIDR, the range the cluster's Services draw from. Made once, as the
  // kubernetes Service below: a create of one that exists would be admitted before it is refused.
  if (const auto* cidrs = served(*table, "networking.k8s.io", "servicecidrs"); cidrs && !get(*cidrs, "", "kubernetes", "")) {
    json cidr = {{"apiVersion", "networking.k8s.io/v1"},
                 {"kind", "ServiceCIDR"},
                 {"metadata", {{"name", "kubernetes"}}},
                 {"spec", {{"cidrs", {m_services->cidr()}}}}};
    auto created = create(*cidrs, "", cidr, {});
    if (created)
      update_with(
          *cidrs, "", "kubernetes",
          [this](const json& now) -> ApiResult<json> {
            json out = now;
            out["status"]["conditions"] = json::array({{{"type", "Ready"},
                                                        {"status", "True"},
                                                        {"lastTransitionTime", now_rfc3339()},
                                                        {"reason", ""},
                                                        {"message", "Kubernetes default Service CIDR is ready"}}});
            return out;
          },
          {.subresource = "status"});
  }
  if (m_options.kubernetes_service_port <= 0) return;

  // The `kubernetes` Service: the range's first address, port 443 to the secure port.
  json service = {{"apiVersion", "v1"},
                  {"kind", "Service"},
                  {"metadata",
                   {{"name", "kubernetes"},
                    {"namespace", "default"},
                    {"labels", {{"component", "apiserver"}, {"provider", "kubernetes"}}}}},
                  {"spec",
                   {{"type", "ClusterIP"},
                    {"clusterIP", m_services->first_ip()},
                    {"ports",
                     {{{"name", "https"},
                       {"port", 443},
                       {"protocol", "TCP"},
                       {"targetPort", m_options.kubernetes_service_port}}}},
                    {"sessionAffinity", "None"}}}};
  // Made once; a later start finds it (its IP already allocated, so a create would be refused).
  if (!get(*services, "default", "kubernetes", ""))
    if (auto created = create(*services, "default", service, {}); !created && created.error().code != 409)
      std::cerr << "kw: cannot create the kubernetes Service: " << created.error().message << "\n";
  if (m_options.advertise_address.empty()) return;

  // Its endpoints: this server. Written whenever they differ, as kube-apiserver's reconciler does.
  const json port = {{"name", "https"}, {"port", m_options.kubernetes_service_port}, {"protocol", "TCP"}};
  const auto put = [this](const api::ResourceInfo* info, const json& object, std::vector<std::string> fields) {
    if (info == nullptr) return;
    if (auto kept = reconcile_owned(*info, "default", object, fields); !kept)
      std::cerr << "kw: cannot write the kubernetes " << info->kind << ": " << kept.error().message << "\n";
  };
  put(served(*table, "", "endpoints"),
      {{"apiVersion", "v1"},
       {"kind", "Endpoints"},
       {"metadata",
        {{"name", "kubernetes"}, {"namespace", "default"}, {"labels", {{"endpointslice.kubernetes.io/skip-mirror", "true"}}}}},
       {"subsets", {{{"addresses", {{{"ip", m_options.advertise_address}}}}, {"ports", {port}}}}}},
      {"subsets"});
  put(served(*table, "discovery.k8s.io", "endpointslices"),
      {{"apiVersion", "discovery.k8s.io/v1"},
       {"kind", "EndpointSlice"},
       {"metadata",
        {{"name", "kubernetes"}, {"namespace", "default"}, {"labels", {{"kubernetes.io/service-name", "kubernetes"}}}}},
       {"addressType", m_services->ip_family()},
       {"endpoints", {{{"addresses", {m_options.advertise_address}}, {"conditions", {{"ready", true}}}}}},
       {"ports", {port}}},
      {"addressType", "endpoints", "ports"});
}

ApiResult<void> Registry::reconcile_owned(const api::ResourceInfo& info, const std::string& ns, const json& object,
                                          const std::vector<std::string>& fields) {
  const auto name = object["metadata"].value("name", std::string());
  // What `object` owns of `now`: the fields, and the labels when it has them.
  const auto owned = [&](const json& now) {
    json out = now;
    for (const auto& field : fields)
      if (object.contains(field)) out[field] = object[field];
      else out.erase(field);
    if (object["metadata"].contains("labels")) out["metadata"]["labels"] = object["metadata"]["labels"];
    return out;
  };
  // Read first and written only when it differs, as kube-apiserver's endpoint reconciler does:
  // every write is admitted, even one that changes nothing.
  auto found = get(info, ns, name, "");
  if (found && owned(*found) == *found) return {};
  if (!found && found.error().code != 404) return std::unexpected(found.error());
  if (!found) {
    auto created = create(info, ns, object, {});
    if (created) return {};
    if (created.error().code != 409) return std::unexpected(created.error());
  }
  auto updated = update_with(info, ns, name, [&](const json& now) -> ApiResult<json> { return owned(now); }, {});
  if (!updated) return std::unexpected(updated.error());
  return {};
}

}  // namespace kw::registry
