// RBAC decisions with a cluster-sized policy: 1,000 ClusterRoles and 10,000 RoleBindings
// (100 namespaces), plus 200 ClusterRoleBindings to groups, as RbacPolicy holds them after
// the watch caches fed it. Each decision is timed on its own; the mix is requests that a
// RoleBinding allows, that a group's ClusterRoleBinding allows, that nothing allows (every
// binding of the user and its groups is visited), ServiceAccounts and unknown users.
//
// The baseline in the same run is kube-apiserver's way of deciding: every ClusterRoleBinding,
// then every RoleBinding of the namespace, each checked for the user (rbac.DefaultRuleResolver
// over listers), written here against the same rows.
//
//   rbac_bench [--decisions=N]
// Output: "RESULT rbac.<indexed|scan>.<p50_ns|p99_ns|mean_ns> VALUE" lines.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/auth/rbac.hpp"

namespace {

using nlohmann::json;
using kw::auth::Attributes;
using kw::auth::RbacKind;
using kw::auth::RbacPolicy;
using kw::auth::UserInfo;

constexpr int k_cluster_roles = 1000;
constexpr int k_role_bindings = 10000;
constexpr int k_namespaces = 100;
constexpr int k_cluster_bindings = 200;

json cluster_role(int i) {
  const std::string n = std::to_string(i);
  return {{"metadata", {{"name", "role-" + n}}},
          {"rules",
           {{{"verbs", {"get", "list", "watch"}}, {"apiGroups", {""}}, {"resources", {"pods", "r" + n}}},
            {{"verbs", {"create", "update"}}, {"apiGroups", {"apps"}}, {"resources", {"deployments", "d" + n}}},
            {{"verbs", {"get"}}, {"apiGroups", {""}}, {"resources", {"configmaps"}}, {"resourceNames", {"cm-" + n}}}}}};
}

json role_binding(int i) {
  const std::string n = std::to_string(i);
  json subjects = json::array({{{"kind", "User"}, {"name", "user-" + n}}});
  if (i % 3 == 0) subjects.push_back({{"kind", "ServiceAccount"}, {"name", "sa-" + n}});
  if (i % 7 == 0) subjects.push_back({{"kind", "Group"}, {"name", "team-" + std::to_string(i % 50)}});
  return {{"metadata", {{"name", "rb-" + n}, {"namespace", "ns-" + std::to_string(i % k_namespaces)}}},
          {"roleRef", {{"kind", "ClusterRole"}, {"name", "role-" + std::to_string(i % k_cluster_roles)}}},
          {"subjects", subjects}};
}

json cluster_binding(int i) {
  return {{"metadata", {{"name", "crb-" + std::to_string(i)}}},
          {"roleRef", {{"kind", "ClusterRole"}, {"name", "role-" + std::to_string(i % k_cluster_roles)}}},
          {"subjects", {{{"kind", "Group"}, {"name", "group-" + std::to_string(i)}}}}};
}

// kube-apiserver's DefaultRuleResolver, visiting every binding of the scope.
struct ScanPolicy {
  struct Binding {
    std::string ns, role;
    std::vector<kw::auth::Subject> subjects;
  };
  std::vector<Binding> cluster, namespaced;
  std::vector<std::vector<const Binding*>> by_namespace = std::vector<std::vector<const Binding*>>(k_namespaces);
  std::vector<std::vector<kw::auth::PolicyRule>> roles = std::vector<std::vector<kw::auth::PolicyRule>>(k_cluster_roles);

  static Binding binding_of(const json& object) {
    Binding b{object["metadata"].value("namespace", ""), object["roleRef"]["name"], {}};
    for (const auto& s : object["subjects"]) b.subjects.push_back({s["kind"], s["name"], s.value("namespace", "")});
    return b;
  }
  static bool applies(const kw::auth::Subject& s, const UserInfo& user, const std::string& ns) {
    if (s.kind == "User") return s.name == user.name;
    if (s.kind == "Group") return user.in_group(s.name);
    return user.name == "system:serviceaccount:" + (s.namespace_.empty() ? ns : s.namespace_) + ":" + s.name;
  }
  bool allows(const Attributes& a, int ns) const {
    auto visit = [&](const Binding& b, const std::string& scope) {
      if (std::ranges::none_of(b.subjects, [&](const auto& s) { return applies(s, a.user, scope); })) return false;
      const auto& rules = roles[std::stoi(b.role.substr(5))];
      return kw::auth::rules_allow(a, rules);
    };
    for (const auto& b : cluster)
      if (visit(b, "")) return true;
    if (ns >= 0)
      for (const auto* b : by_namespace[static_cast<std::size_t>(ns)])
        if (visit(*b, b->ns)) return true;
    return false;
  }
};

struct Request {
  Attributes attributes;
  int ns;
};

std::vector<Request> requests(int count) {
  std::mt19937 random(42);
  std::vector<Request> out;
  out.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    const int n = static_cast<int>(random() % k_role_bindings);
    const int ns = n % k_namespaces;
    UserInfo user{.name = "user-" + std::to_string(n), .groups = {"system:authenticated"}, .uid = {}, .extra = {}};
    std::string resource = "pods", verb = "get";
    switch (i % 5) {
      case 0: break;                                         // allowed by its RoleBinding
      case 1: verb = "delete"; break;                        // denied after its bindings
      case 2: user.groups.push_back("group-" + std::to_string(n % k_cluster_bindings)); resource = "r" + std::to_string(n % k_cluster_bindings % k_cluster_roles); break;
      case 3: user.name = "system:serviceaccount:ns-" + std::to_string(ns) + ":sa-" + std::to_string(n - n % 3); break;
      case 4: user.name = "stranger-" + std::to_string(n); break;  // no binding at all
    }
    out.push_back({kw::auth::resource_attributes(user, verb, "ns-" + std::to_string(ns), "", resource, "", "", ""), ns});
  }
  return out;
}

// Times each decision; prints the figures unless `name` is null (a warm-up pass). Returns how
// many were allowed.
template <class Decide>
std::size_t measure(const char* name, const std::vector<Request>& reqs, Decide&& decide) {
  std::vector<double> ns_each;
  ns_each.reserve(reqs.size());
  std::size_t allowed = 0;
  const auto all_start = std::chrono::steady_clock::now();
  for (const auto& r : reqs) {
    const auto start = std::chrono::steady_clock::now();
    allowed += decide(r) ? 1 : 0;
    ns_each.push_back(static_cast<double>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count()));
  }
  const double total = static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - all_start).count());
  if (name == nullptr) return allowed;
  std::ranges::sort(ns_each);
  auto pct = [&](double p) { return ns_each[std::min(ns_each.size() - 1, static_cast<std::size_t>(p * ns_each.size()))]; };
  std::printf("RESULT rbac.%s.p50_ns %.0f\nRESULT rbac.%s.p99_ns %.0f\nRESULT rbac.%s.mean_ns %.0f\n", name, pct(0.5),
              name, pct(0.99), name, total / static_cast<double>(reqs.size()));
  std::printf("# %s: %zu of %zu allowed\n", name, allowed, reqs.size());
  return allowed;
}

}  // namespace

int main(int argc, char** argv) {
  int decisions = 200000;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--decisions=", 12) == 0) decisions = std::max(1, std::atoi(argv[i] + 12));
  RbacPolicy policy;
  ScanPolicy scan;
  for (int i = 0; i < k_cluster_roles; ++i) {
    const json role = cluster_role(i);
    policy.apply(RbacKind::cluster_role, role);
    for (const auto& rule : role["rules"]) scan.roles[static_cast<std::size_t>(i)].push_back(kw::auth::PolicyRule::from_json(rule));
  }
  scan.namespaced.reserve(k_role_bindings);
  for (int i = 0; i < k_role_bindings; ++i) {
    const json binding = role_binding(i);
    policy.apply(RbacKind::role_binding, binding);
    scan.namespaced.push_back(ScanPolicy::binding_of(binding));
  }
  for (const auto& b : scan.namespaced) scan.by_namespace[static_cast<std::size_t>(std::stoi(b.ns.substr(3)))].push_back(&b);
  for (int i = 0; i < k_cluster_bindings; ++i) {
    const json binding = cluster_binding(i);
    policy.apply(RbacKind::cluster_role_binding, binding);
    scan.cluster.push_back(ScanPolicy::binding_of(binding));
  }
  const auto reqs = requests(decisions);
  std::string reason;
  auto indexed = [&](const Request& r) {
    return policy.authorize(r.attributes, reason) == kw::auth::AuthorizerMode::Verdict::allow;
  };
  auto scanned = [&](const Request& r) { return scan.allows(r.attributes, r.ns); };
  measure(nullptr, reqs, indexed);  // warm-up
  const std::size_t by_scan = measure("scan", reqs, scanned);
  const std::size_t by_index = measure("indexed", reqs, indexed);
  if (by_scan != by_index) {
    std::fprintf(stderr, "rbac_bench: the index allowed %zu requests, the scan %zu\n", by_index, by_scan);
    return 1;
  }
  return 0;
}
