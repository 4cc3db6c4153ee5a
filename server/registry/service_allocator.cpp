#include "server/registry/service_allocator.hpp"

#include <algorithm>
#include <charconv>

#include "core/api/json_access.hpp"
#include "server/registry/kinds/service_fields.hpp"

namespace kw::registry {
namespace {

using nlohmann::json;
namespace service = kinds::service;

constexpr int k_dynamic_ip_attempts = 16;  // IPAddress objects another server created meanwhile

std::optional<std::int64_t> parse_number(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}


// The cluster IPs a stored Service holds ("None" holds none).
std::vector<std::string> ips_of(const json& object) {
  std::vector<std::string> out;
  if (!service::needs_cluster_ip(object)) return out;
  const auto& ips = service::spec_field(object, "clusterIPs");
  if (ips.is_array())
    for (const auto& ip : ips)
      if (ip.is_string() && ip != "None" && !ip.get<std::string>().empty()) out.push_back(ip.get<std::string>());
  const auto single = api::str(service::spec_field(object, "clusterIP"));
  if (out.empty() && !single.empty() && single != "None") out.push_back(single);
  return out;
}

// The node ports (and health check port) a stored Service holds.
std::set<std::int64_t> ports_of(const json& object) {
  std::set<std::int64_t> out;
  const auto& ports = service::spec_field(object, "ports");
  if (ports.is_array())
    for (const auto& port : ports)
      if (port.is_object() && port.value("nodePort", std::int64_t{0}) != 0) out.insert(port.value("nodePort", std::int64_t{0}));
  const auto& health = service::spec_field(object, "healthCheckNodePort");
  if (health.is_number_integer() && health.get<std::int64_t>() != 0) out.insert(health.get<std::int64_t>());
  return out;
}

// Kubernetes' band sizes: the lower part of a range is kept for values asked for by number.
std::uint64_t ip_band(std::uint64_t size) { return std::min<std::uint64_t>(std::max<std::uint64_t>(16, size / 16), 256); }
std::uint64_t port_band(std::uint64_t size) { return std::min<std::uint64_t>(std::max<std::uint64_t>(16, size / 32), 128); }

ApiError field_invalid(const json& object, const std::string& field, const json& value, const std::string& why) {
  kinds::Causes causes = json::array();
  kinds::invalid_value(causes, field, value, why);
  return invalid("", "Service", object.value("metadata", json::object()).value("name", std::string()), causes,
                 causes_summary(causes));
}

ApiError field_invalid_rendered(const json& object, const std::string& field, const std::string& rendered,
                                const std::string& why) {
  kinds::Causes causes = json::array();
  kinds::invalid_rendered(causes, field, rendered, why);
  return invalid("", "Service", object.value("metadata", json::object()).value("name", std::string()), causes,
                 causes_summary(causes));
}

}  // namespace

std::optional<std::pair<std::int64_t, std::int64_t>> parse_port_range(const std::string& text) {
  const auto dash = text.find_first_of("-+");
  if (dash == std::string::npos) {
    const auto single = parse_number(text);
    if (!single) return std::nullopt;
    return std::pair{*single, *single};
  }
  const auto first = parse_number(std::string_view(text).substr(0, dash));
  const auto second = parse_number(std::string_view(text).substr(dash + 1));
  if (!first || !second) return std::nullopt;
  const auto last = text[dash] == '+' ? *first + *second - 1 : *second;
  if (*first < 1 || last > 65535 || last < *first) return std::nullopt;
  return std::pair{*first, last};
}

ServiceAllocator::Reservation::Reservation(Reservation&& other) noexcept
    : m_owner(std::exchange(other.m_owner, nullptr)), m_ips(std::move(other.m_ips)), m_ports(std::move(other.m_ports)) {}

ServiceAllocator::Reservation& ServiceAllocator::Reservation::operator=(Reservation&& other) noexcept {
  if (this != &other) {
    if (m_owner) m_owner->give_back(*this);
    m_owner = std::exchange(other.m_owner, nullptr);
    m_ips = std::move(other.m_ips);
    m_ports = std::move(other.m_ports);
  }
  return *this;
}

ServiceAllocator::Reservation::~Reservation() {
  if (m_owner) m_owner->give_back(*this);
}

std::expected<std::unique_ptr<ServiceAllocator>, std::string> ServiceAllocator::make(const ServiceRanges& ranges,
                                                                                    Writer writer) {
  const auto range = kinds::parse_cidr(ranges.cluster_ip_range);
  if (!range) return std::unexpected("--service-cluster-ip-range: \"" + ranges.cluster_ip_range + "\" is not a CIDR");
  const int width = kinds::is_v4(range->ip) ? 32 : 128;
  const int host_bits = width - range->bits;
  if (width == 128 && range->bits < 108)
    return std::unexpected("--service-cluster-ip-range: \"" + ranges.cluster_ip_range +
                           "\" is too large; for 128-bit addresses, the mask must be >= 108");
  if (host_bits < 2)
    return std::unexpected("--service-cluster-ip-range: \"" + ranges.cluster_ip_range + "\" holds no usable address");
  if (ranges.node_port_first < 1 || ranges.node_port_last > 65535 || ranges.node_port_last < ranges.node_port_first)
    return std::unexpected("--service-node-port-range: not a range of ports");
  return std::unique_ptr<ServiceAllocator>(
      new ServiceAllocator(*range, ranges.node_port_first, ranges.node_port_last, std::move(writer)));
}

ServiceAllocator::ServiceAllocator(kinds::Cidr range, std::int64_t port_first, std::int64_t port_last, Writer writer)
    : m_range(range),
      m_port_first(port_first),
      m_port_last(port_last),
      m_writer(std::move(writer)),
      m_random(std::random_device{}()) {
  m_range.ip = m_range.network();
  const int host_bits = (kinds::is_v4(m_range.ip) ? 32 : 128) - m_range.bits;
  // The network address is never handed out, nor IPv4's broadcast address.
  m_ip_count = (std::uint64_t{1} << host_bits) - (kinds::is_v4(m_range.ip) ? 2 : 1);
}

std::string ServiceAllocator::ip_family() const { return kinds::is_v4(m_range.ip) ? "IPv4" : "IPv6"; }
std::string ServiceAllocator::cidr() const { return kinds::cidr_string(m_range); }
std::string ServiceAllocator::first_ip() const { return ip_at(0); }

std::string ServiceAllocator::ip_at(std::uint64_t offset) const {
  auto ip = m_range.ip;
  std::uint64_t carry = offset + 1;
  for (int i = 15; i >= 0 && carry != 0; --i) {
    const std::uint64_t sum = ip.bytes[static_cast<std::size_t>(i)] + (carry & 0xff);
    ip.bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(sum);
    carry = (carry >> 8) + (sum >> 8);
  }
  return kinds::ip_string(ip);
}

std::optional<std::uint64_t> ServiceAllocator::offset_of(const kinds::Ip& ip) const {
  if (kinds::is_v4(ip) != kinds::is_v4(m_range.ip) || !m_range.contains(ip)) return std::nullopt;
  // The range spans at most 20 host bits: the last eight bytes hold the whole difference.
  std::uint64_t value = 0;
  std::uint64_t base = 0;
  for (std::size_t i = 8; i < 16; ++i) {
    value = (value << 8) | ip.bytes[i];
    base = (base << 8) | m_range.ip.bytes[i];
  }
  if (value <= base || value - base > m_ip_count) return std::nullopt;
  return value - base - 1;
}

std::optional<std::uint64_t> ServiceAllocator::pick(std::uint64_t size, std::uint64_t band,
                                                    const std::function<bool(std::uint64_t)>& taken) {
  band = std::min(size, band);
  // The upper band from a random start, then the lower band.
  if (band < size) {
    std::uniform_int_distribution<std::uint64_t> draw(band, size - 1);
    const auto start = draw(m_random);
    for (std::uint64_t i = 0; i < size - band; ++i) {
      const auto candidate = band + (start - band + i) % (size - band);
      if (!taken(candidate)) return candidate;
    }
  }
  for (std::uint64_t candidate = 0; candidate < band; ++candidate)
    if (!taken(candidate)) return candidate;
  return std::nullopt;
}

void ServiceAllocator::load(const std::vector<json>& services, const std::vector<std::string>& ip_addresses) {
  std::lock_guard lock(m_mutex);
  for (const auto& object : services) {
    for (auto& ip : ips_of(object)) m_ips.insert(std::move(ip));
    for (const auto port : ports_of(object)) m_ports.insert(port);
  }
  for (const auto& ip : ip_addresses) m_ips.insert(ip);
}

void ServiceAllocator::give_back(const Reservation& reservation) {
  {
    std::lock_guard lock(m_mutex);
    for (const auto& ip : reservation.m_ips) m_ips.erase(ip);
    for (const auto port : reservation.m_ports) m_ports.erase(port);
  }
  for (const auto& ip : reservation.m_ips) m_writer.remove(ip);
}

ApiResult<void> ServiceAllocator::take_ip(const std::string& ip, const json& object, Reservation& reservation,
                                          bool dry_run) {
  if (dry_run) return {};
  const auto& meta = object.value("metadata", json::object());
  const json address = {
      {"apiVersion", "networking.k8s.io/v1"},
      {"kind", "IPAddress"},
      {"metadata",
       {{"name", ip},
        {"labels", {{"ipaddress.kubernetes.io/ip-family", ip_family()},
                    {"ipaddress.kubernetes.io/managed-by", "ipallocator.k8s.io"}}}}},
      {"spec",
       {{"parentRef",
         {{"resource", "services"}, {"namespace", meta.value("namespace", std::string())},
          {"name", meta.value("name", std::string())}}}}}};
  auto created = m_writer.create(address);
  if (!created) return created;
  reservation.m_ips.push_back(ip);
  return {};
}

ApiResult<ServiceAllocator::Reservation> ServiceAllocator::allocate(json& object, const json* old, bool dry_run) {
  Reservation reservation;
  reservation.m_owner = this;
  auto& spec = kinds::object_member(object, "spec");
  const auto old_ips = old ? ips_of(*old) : std::vector<std::string>();
  const auto old_ports = old ? ports_of(*old) : std::set<std::int64_t>();

  if (service::needs_cluster_ip(object)) {
    // IP families: this cluster is single-stack. A headless Service without a selector asks
    // for both families unless told otherwise, as Kubernetes has it even then.
    const auto other_family = ip_family() == "IPv4" ? "IPv6" : "IPv4";
    const bool selectorless_headless = service::headless(object) && !service::spec_field(object, "selector").is_object();
    if (kinds::unset(spec, "ipFamilyPolicy"))
      spec["ipFamilyPolicy"] = selectorless_headless ? "RequireDualStack" : "SingleStack";
    if (spec["ipFamilyPolicy"] == "RequireDualStack" && !service::headless(object))
      return std::unexpected(field_invalid(object, "spec.ipFamilyPolicy", spec["ipFamilyPolicy"],
                                           "this cluster is not configured for dual-stack services"));
    auto families = spec.value("ipFamilies", json::array());
    if (!families.is_array() || families.empty()) {
      families = json::array();
      const auto ip = kinds::parse_ip(api::str(spec.value("clusterIP", json())));
      families.push_back(ip ? (kinds::is_v4(*ip) ? "IPv4" : "IPv6") : ip_family());
      if (selectorless_headless && spec["ipFamilyPolicy"] != "SingleStack") families.push_back(other_family);
    }
    if (!service::headless(object))
      for (std::size_t i = 0; i < families.size(); ++i)
        if (families[i] != ip_family())
          return std::unexpected(field_invalid(object, kinds::index_path("spec.ipFamilies", i), families[i],
                                               "not configured on this cluster"));
    spec["ipFamilies"] = families;

    const auto requested = api::str(spec.value("clusterIP", json()));
    if (requested.empty() && dry_run) {
      // A dry run shows the range's network address, as Kubernetes' dry-run allocator does.
      spec["clusterIP"] = kinds::ip_string(m_range.ip);
      spec["clusterIPs"] = json::array({spec["clusterIP"]});
    } else if (requested.empty()) {
      for (int attempt = 0;; ++attempt) {
        std::optional<std::string> chosen;
        {
          std::lock_guard lock(m_mutex);
          const auto offset = pick(m_ip_count, ip_band(m_ip_count), [&](std::uint64_t o) { return m_ips.contains(ip_at(o)); });
          if (offset) {
            chosen = ip_at(*offset);
            if (!dry_run) m_ips.insert(*chosen);
          }
        }
        if (!chosen)
          return std::unexpected(ApiError{500, "InternalError",
                                          "Internal error occurred: failed to allocate a serviceIP: range is full",
                                          {}});
        auto taken = take_ip(*chosen, object, reservation, dry_run);
        if (taken) {
          spec["clusterIP"] = *chosen;
          spec["clusterIPs"] = json::array({*chosen});
          break;
        }
        if (taken.error().code != 409 || attempt >= k_dynamic_ip_attempts) {
          std::lock_guard lock(m_mutex);
          m_ips.erase(*chosen);
          return std::unexpected(taken.error());
        }
        // Another server holds it: it stays marked taken here, and another one is drawn.
      }
    } else if (requested != "None" && std::find(old_ips.begin(), old_ips.end(), requested) == old_ips.end()) {
      const auto ips = spec.value("clusterIPs", json::array({requested}));
      const auto parsed = kinds::parse_ip(requested);
      if (!parsed || kinds::is_v4(*parsed) != kinds::is_v4(m_range.ip) || !m_range.contains(*parsed))
        return std::unexpected(field_invalid_rendered(
            object, "spec.clusterIPs", kinds::go_slice(ips),
            "failed to allocate IP " + requested + ": the provided network does not match the current range"));
      if (!offset_of(*parsed))  // the network or broadcast address
        return std::unexpected(field_invalid_rendered(
            object, "spec.clusterIPs", kinds::go_slice(ips),
            "failed to allocate IP " + requested + ": the provided IP (" + requested +
                ") is not in the valid range. The range of valid IPs is " + cidr()));
      bool free = false;
      {
        std::lock_guard lock(m_mutex);
        free = m_ips.insert(requested).second;
        if (free && dry_run) m_ips.erase(requested);
      }
      const auto already = [&] {
        return field_invalid_rendered(object, "spec.clusterIPs", kinds::go_slice(ips),
                                      "failed to allocate IP " + requested + ": provided IP is already allocated");
      };
      if (!free) return std::unexpected(already());
      if (auto taken = take_ip(requested, object, reservation, dry_run); !taken) {
        if (taken.error().code != 409) {
          std::lock_guard lock(m_mutex);
          m_ips.erase(requested);
          return std::unexpected(taken.error());
        }
        return std::unexpected(already());
      }
    }
  }

  // Node ports: asked-for ones whenever a port names one, drawn ones when the type needs them.
  // Two entries for one port number (TCP and UDP) share their node port.
  const auto port_count = static_cast<std::uint64_t>(m_port_last - m_port_first + 1);
  std::set<std::int64_t> mine;  // taken by this write (dry runs included)
  const auto take_port = [&](std::int64_t port, const std::string& field) -> ApiResult<void> {
    if (old_ports.contains(port) || mine.contains(port)) return {};
    if (port < m_port_first || port > m_port_last)
      return std::unexpected(field_invalid(object, field, port,
                                           "provided port is not in the valid range. The range of valid ports is " +
                                               std::to_string(m_port_first) + "-" + std::to_string(m_port_last)));
    std::lock_guard lock(m_mutex);
    if (m_ports.contains(port)) return std::unexpected(field_invalid(object, field, port, "provided port is already allocated"));
    mine.insert(port);
    if (!dry_run) {
      m_ports.insert(port);
      reservation.m_ports.push_back(port);
    }
    return {};
  };
  const auto draw_port = [&](const std::string& what) -> ApiResult<std::int64_t> {
    std::lock_guard lock(m_mutex);
    const auto offset = pick(port_count, port_band(port_count), [&](std::uint64_t o) {
      const auto port = m_port_first + static_cast<std::int64_t>(o);
      return m_ports.contains(port) || mine.contains(port);
    });
    if (!offset)
      return std::unexpected(ApiError{500, "InternalError",
                                      "Internal error occurred: failed to allocate a " + what + ": range is full", {}});
    const auto port = m_port_first + static_cast<std::int64_t>(*offset);
    mine.insert(port);
    if (!dry_run) {
      m_ports.insert(port);
      reservation.m_ports.push_back(port);
    }
    return port;
  };
  const auto type = service::type_of(object);
  if ((type == "NodePort" || type == "LoadBalancer") && spec["ports"].is_array()) {
    auto& ports = spec["ports"];
    for (std::size_t i = 0; i < ports.size(); ++i) {
      if (!ports[i].is_object()) continue;
      const auto wanted = ports[i].value("nodePort", std::int64_t{0});
      if (wanted != 0)
        if (auto taken = take_port(wanted, kinds::index_path("spec.ports", i) + ".nodePort"); !taken)
          return std::unexpected(taken.error());
    }
    if (service::needs_node_ports(object))
      for (std::size_t i = 0; i < ports.size(); ++i) {
        if (!ports[i].is_object() || ports[i].value("nodePort", std::int64_t{0}) != 0) continue;
        std::int64_t shared = 0;
        for (std::size_t j = 0; j < ports.size() && shared == 0; ++j)
          if (j != i && ports[j].is_object() && ports[j].value("port", json()) == ports[i].value("port", json()) &&
              ports[j].value("protocol", json()) != ports[i].value("protocol", json()))
            shared = ports[j].value("nodePort", std::int64_t{0});
        if (shared == 0) {
          auto drawn = draw_port("nodePort");
          if (!drawn) return std::unexpected(drawn.error());
          shared = *drawn;
        }
        ports[i]["nodePort"] = shared;
      }
  }
  if (service::needs_health_check(object)) {
    // Kubernetes answers a health check port it cannot have as an internal error.
    const auto internal = [](const std::string& what, const ApiError& error) {
      const auto why = error.details.value("causes", json::array());
      const auto reason = why.empty() ? error.message : why[0].value("message", std::string());
      const auto colon = reason.rfind(": ");
      return ApiError{500, "InternalError",
                      "Internal error occurred: " + what + ": " + (colon == std::string::npos ? reason : reason.substr(colon + 2)),
                      {}};
    };
    const auto wanted = spec.value("healthCheckNodePort", std::int64_t{0});
    if (wanted != 0) {
      if (auto taken = take_port(wanted, "spec.healthCheckNodePort"); !taken)
        return std::unexpected(internal("failed to allocate requested HealthCheck NodePort " + std::to_string(wanted),
                                        taken.error()));
    } else {
      auto drawn = draw_port("nodePort");
      if (!drawn) return std::unexpected(internal("failed to allocate a HealthCheck NodePort", drawn.error()));
      spec["healthCheckNodePort"] = *drawn;
    }
  }
  if (dry_run) reservation.m_owner = nullptr;
  return reservation;
}

void ServiceAllocator::release_unused(const json& old, const json* now) {
  const auto now_ips = now ? ips_of(*now) : std::vector<std::string>();
  const auto now_ports = now ? ports_of(*now) : std::set<std::int64_t>();
  std::vector<std::string> freed;
  {
    std::lock_guard lock(m_mutex);
    for (const auto& ip : ips_of(old))
      if (std::find(now_ips.begin(), now_ips.end(), ip) == now_ips.end() && m_ips.erase(ip)) freed.push_back(ip);
    for (const auto port : ports_of(old))
      if (!now_ports.contains(port)) m_ports.erase(port);
  }
  for (const auto& ip : freed) m_writer.remove(ip);
}

}  // namespace kw::registry
