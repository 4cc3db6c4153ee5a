// The Service allocator alone: cluster IPs and node ports drawn, asked for, given back, and
// IPAddress objects written through its Writer.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "server/registry/service_allocator.hpp"

namespace {

using kw::registry::ServiceAllocator;
using kw::registry::ServiceRanges;
using nlohmann::json;

struct Recorder {
  std::set<std::string> objects;  // IPAddress names written and not removed
  std::set<std::string> held_elsewhere;

  ServiceAllocator::Writer writer() {
    return {.create = [this](const json& address) -> kw::registry::ApiResult<void> {
              const auto name = address["metadata"]["name"].get<std::string>();
              if (held_elsewhere.contains(name) || !objects.insert(name).second)
                return std::unexpected(kw::registry::ApiError{409, "AlreadyExists", name, {}});
              return {};
            },
            .remove = [this](const std::string& name) { objects.erase(name); }};
  }
};

json service(const std::string& name, json spec) {
  return {{"metadata", {{"name", name}, {"namespace", "default"}}}, {"spec", std::move(spec)}};
}

}  // namespace

TEST_CASE("a /29 hands out its six host addresses, then reports the range full") {
  Recorder recorder;
  auto allocator = ServiceAllocator::make({.cluster_ip_range = "10.1.0.0/29"}, recorder.writer());
  REQUIRE(allocator);
  CHECK((*allocator)->first_ip() == "10.1.0.1");
  std::set<std::string> seen;
  for (int i = 0; i < 6; ++i) {
    auto object = service("s" + std::to_string(i), {{"type", "ClusterIP"}});
    auto reserved = (*allocator)->allocate(object, nullptr, false);
    REQUIRE(reserved);
    reserved->commit();
    const auto ip = object["spec"]["clusterIP"].get<std::string>();
    CHECK(seen.insert(ip).second);
    CHECK(ip != "10.1.0.0");
    CHECK(ip != "10.1.0.7");
    CHECK(object["spec"]["clusterIPs"] == json::array({ip}));
    CHECK(object["spec"]["ipFamilies"] == json::array({"IPv4"}));
    CHECK(object["spec"]["ipFamilyPolicy"] == "SingleStack");
  }
  CHECK(recorder.objects == seen);
  auto full = service("full", {{"type", "ClusterIP"}});
  auto refused = (*allocator)->allocate(full, nullptr, false);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == 500);
  CHECK(refused.error().message == "Internal error occurred: failed to allocate a serviceIP: range is full");
  // One goes: its address is free again, and its IPAddress object is gone.
  const auto freed = service("s0", {{"type", "ClusterIP"}, {"clusterIP", *seen.begin()}, {"clusterIPs", {*seen.begin()}}});
  (*allocator)->release_unused(freed, nullptr);
  CHECK_FALSE(recorder.objects.contains(*seen.begin()));
  auto again = service("again", {{"type", "ClusterIP"}});
  REQUIRE((*allocator)->allocate(again, nullptr, false));
  CHECK(again["spec"]["clusterIP"] == *seen.begin());
}

TEST_CASE("a write that fails gives back what it took") {
  Recorder recorder;
  auto allocator = ServiceAllocator::make({.cluster_ip_range = "10.2.0.0/24", .node_port_first = 30000,
                                           .node_port_last = 30001},
                                          recorder.writer());
  REQUIRE(allocator);
  auto object = service("np", {{"type", "NodePort"}, {"clusterIP", "10.2.0.9"}, {"ports", {{{"port", 80}}}}});
  {
    auto reserved = (*allocator)->allocate(object, nullptr, false);
    REQUIRE(reserved);
    CHECK(recorder.objects.contains("10.2.0.9"));
    const auto port = object["spec"]["ports"][0]["nodePort"].get<std::int64_t>();
    CHECK((port == 30000 || port == 30001));
  }  // dropped uncommitted
  CHECK(recorder.objects.empty());
  auto same = service("np2", {{"type", "NodePort"}, {"clusterIP", "10.2.0.9"},
                              {"ports", {{{"port", 80}, {"nodePort", 30000}}, {{"port", 81}, {"nodePort", 30001}}}}});
  auto reserved = (*allocator)->allocate(same, nullptr, false);
  REQUIRE(reserved);
  reserved->commit();
  auto third = service("np3", {{"type", "NodePort"}, {"ports", {{{"port", 80}}}}});
  auto refused = (*allocator)->allocate(third, nullptr, false);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message == "Internal error occurred: failed to allocate a nodePort: range is full");
}

TEST_CASE("an address another server holds is skipped, and asked-for ones are checked") {
  Recorder recorder;
  auto allocator = ServiceAllocator::make({.cluster_ip_range = "10.3.0.0/30"}, recorder.writer());
  REQUIRE(allocator);
  recorder.held_elsewhere.insert("10.3.0.1");
  auto object = service("a", {{"type", "ClusterIP"}});
  auto held = (*allocator)->allocate(object, nullptr, false);
  REQUIRE(held);
  held->commit();
  CHECK(object["spec"]["clusterIP"] == "10.3.0.2");
  auto taken = service("b", {{"type", "ClusterIP"}, {"clusterIP", "10.3.0.2"}, {"clusterIPs", {"10.3.0.2"}}});
  auto refused = (*allocator)->allocate(taken, nullptr, false);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == 422);
  CHECK(refused.error().message == "Service \"b\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.3.0.2\"}: "
                                   "failed to allocate IP 10.3.0.2: provided IP is already allocated");
}

TEST_CASE("port ranges and cluster IP ranges are checked") {
  CHECK(kw::registry::parse_port_range("30000-32767") == std::pair<std::int64_t, std::int64_t>{30000, 32767});
  CHECK(kw::registry::parse_port_range("30000+2768") == std::pair<std::int64_t, std::int64_t>{30000, 32767});
  CHECK_FALSE(kw::registry::parse_port_range("32767-30000"));
  CHECK_FALSE(kw::registry::parse_port_range("a-b"));
  Recorder recorder;
  CHECK_FALSE(ServiceAllocator::make({.cluster_ip_range = "not-a-cidr"}, recorder.writer()));
  CHECK_FALSE(ServiceAllocator::make({.cluster_ip_range = "fd00::/64"}, recorder.writer()));
  auto v6 = ServiceAllocator::make({.cluster_ip_range = "fd00::/112"}, recorder.writer());
  REQUIRE(v6);
  CHECK((*v6)->first_ip() == "fd00::1");
  CHECK((*v6)->ip_family() == "IPv6");
}
