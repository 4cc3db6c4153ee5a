#pragma once
// Cluster IPs and node ports of Services, allocated as kube-apiserver 1.33 allocates them:
// cluster IPs from --service-cluster-ip-range, each one recorded as a networking.k8s.io/v1
// IPAddress object naming its Service (so that another server on the same etcd, or
// `kubectl get ipaddresses`, sees it taken); node ports from --service-node-port-range.
// Dynamic values are drawn at random from the upper part of a range first, leaving the lower
// part for values clients ask for by number, as Kubernetes does.
#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/registry/api_error.hpp"
#include "server/registry/kinds/checks.hpp"

namespace kw::registry {

struct ServiceRanges {
  std::string cluster_ip_range = "10.0.0.0/24";  // kube-apiserver's default
  std::int64_t node_port_first = 30000;
  std::int64_t node_port_last = 32767;
};

// "30000-32767" or "30000+2768" (kube's PortRange forms).
std::optional<std::pair<std::int64_t, std::int64_t>> parse_port_range(const std::string& text);

class ServiceAllocator {
 public:
  // What the allocator does to IPAddress objects (the registry's create and remove).
  struct Writer {
    std::function<ApiResult<void>(const nlohmann::json& ip_address)> create;
    std::function<void(const std::string& name)> remove;
  };

  // Values taken for one write. Given back when it is dropped uncommitted (the write failed).
  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& other) noexcept;
    Reservation& operator=(Reservation&& other) noexcept;
    Reservation(const Reservation&) = delete;
    Reservation& operator=(const Reservation&) = delete;
    ~Reservation();
    void commit() { m_owner = nullptr; }

   private:
    friend class ServiceAllocator;
    ServiceAllocator* m_owner = nullptr;
    std::vector<std::string> m_ips;
    std::vector<std::int64_t> m_ports;
  };

  // Fails with a message naming the bad flag value.
  static std::expected<std::unique_ptr<ServiceAllocator>, std::string> make(const ServiceRanges& ranges, Writer writer);

  // What is taken already: the cluster IPs and node ports of stored Services and the names of
  // stored IPAddress objects.
  void load(const std::vector<nlohmann::json>& services, const std::vector<std::string>& ip_addresses);

  // The cluster IP of the `kubernetes` Service: the first address of the range.
  std::string first_ip() const;
  std::string ip_family() const;  // "IPv4" or "IPv6"
  std::string cidr() const;

  // Fills in the IP families, cluster IPs and node ports `service` needs (an update: `old` is
  // the stored object, whose values it keeps) and takes the new ones. A dry run takes nothing.
  // 422 for a value that is taken or out of range; 500 when a range is full.
  ApiResult<Reservation> allocate(nlohmann::json& service, const nlohmann::json* old, bool dry_run);
  // After `old` was replaced by `now` (null: deleted): what it held and `now` does not is free.
  void release_unused(const nlohmann::json& old, const nlohmann::json* now);

 private:
  ServiceAllocator(kinds::Cidr range, std::int64_t port_first, std::int64_t port_last, Writer writer);
  std::string ip_at(std::uint64_t offset) const;
  std::optional<std::uint64_t> offset_of(const kinds::Ip& ip) const;
  // A free value: random in the upper band first, then anywhere; nullopt when all are taken.
  std::optional<std::uint64_t> pick(std::uint64_t size, std::uint64_t band,
                                    const std::function<bool(std::uint64_t)>& taken);
  void give_back(const Reservation& reservation);
  ApiResult<void> take_ip(const std::string& ip, const nlohmann::json& service, Reservation& reservation,
                          bool dry_run);

  kinds::Cidr m_range;
  std::uint64_t m_ip_count = 0;  // usable addresses: the network (and IPv4 broadcast) address excluded
  std::int64_t m_port_first;
  std::int64_t m_port_last;
  Writer m_writer;
  std::mutex m_mutex;  // guards the sets and the generator
  std::set<std::string> m_ips;
  std::set<std::int64_t> m_ports;
  std::mt19937_64 m_random;
};

}  // namespace kw::registry
