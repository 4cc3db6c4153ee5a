// A pod spec's pod-level rules (server/registry/kinds/pod_level.cpp): the security context,
// affinity, DNS config, gates, topology spread, host process and host users, host aliases, the
// runtime class and preemption policy, and the operating system's rules. Expected messages are
// those of Kubernetes' pkg/apis/core/validation.
#include <doctest/doctest.h>

#include <string>

#include "server/registry/kinds/kind_spec.hpp"

using namespace kw::kinds;
using nlohmann::json;

namespace {

const KindSpec& lvl_row(const char* group, const char* plural) {
  const KindSpec* found = find_kind(group, "v1", plural);
  REQUIRE(found != nullptr);
  return *found;
}

// Causes as "field|message" lines.
std::string lvl_lines(const Causes& causes) {
  std::string out;
  for (const auto& cause : causes) out += cause.value("field", "") + "|" + cause.value("message", "") + "\n";
  return out;
}

// The causes of creating a pod whose spec has `spec_extra` merged in.
std::string lvl_pod(const json& spec_extra) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "web"}, {"namespace", "default"}}},
              {"spec", {{"containers", {{{"name", "web"}, {"image", "nginx"}}}}}}};
  pod["spec"].update(spec_extra, true);
  const KindSpec& row = lvl_row("", "pods");
  default_object(row, pod);
  row.strategy.prepare_create(pod);
  Causes causes = json::array();
  row.strategy.validate_create(pod, causes);
  return lvl_lines(causes);
}

// The causes of creating a Deployment whose pod template's spec has `spec_extra` merged in.
std::string lvl_template(const json& spec_extra) {
  const KindSpec& row = lvl_row("apps", "deployments");
  json deployment = {{"apiVersion", "apps/v1"},
                     {"kind", "Deployment"},
                     {"metadata", {{"name", "web"}, {"namespace", "default"}}},
                     {"spec",
                      {{"selector", {{"matchLabels", {{"app", "web"}}}}},
                       {"template",
                        {{"metadata", {{"labels", {{"app", "web"}}}}},
                         {"spec", {{"containers", {{{"name", "web"}, {"image", "nginx"}}}}}}}}}}};
  deployment["spec"]["template"]["spec"].update(spec_extra, true);
  default_object(row, deployment);
  Causes causes = json::array();
  if (row.strategy.validate_create)
    row.strategy.validate_create(deployment, causes);
  else
    row.strategy.validate(deployment, causes);
  return lvl_lines(causes);
}

const char* k_lvl_range = "must be between 0 and 2147483647, inclusive";
const char* k_lvl_qualified_regex =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

}  // namespace

TEST_CASE("pod level: a plain pod and template pass") {
  CHECK(lvl_pod(json::object()).empty());
  CHECK(lvl_template(json::object()).empty());
}

TEST_CASE("pod level: security context IDs are within 0..2147483647") {
  CHECK(lvl_pod(
            {{"securityContext",
              {{"fsGroup", -1}, {"runAsUser", 2147483648LL}, {"runAsGroup", -2}, {"supplementalGroups", {1, -3}}}}}) ==
        std::string("spec.securityContext.fsGroup|Invalid value: -1: ") + k_lvl_range + "\n" +
            "spec.securityContext.runAsUser|Invalid value: 2147483648: " + k_lvl_range + "\n" +
            "spec.securityContext.runAsGroup|Invalid value: -2: " + k_lvl_range + "\n" +
            "spec.securityContext.supplementalGroups[1]|Invalid value: -3: " + k_lvl_range + "\n");
}

TEST_CASE("pod level: shareProcessNamespace and hostPID exclude each other") {
  CHECK(lvl_pod({{"shareProcessNamespace", true}, {"hostPID", true}}) ==
        "spec.securityContext.shareProcessNamespace|Invalid value: true: ShareProcessNamespace and HostPID cannot "
        "both be enabled\n");
  CHECK(lvl_pod({{"shareProcessNamespace", false}, {"hostPID", true}}).empty());
}

TEST_CASE("pod level: sysctls are named validly, once, and not of a namespace shared with the host") {
  CHECK(lvl_pod({{"securityContext",
                  {{"sysctls",
                    {{{"name", ""}, {"value", "1"}},
                     {{"name", "Kernel.x"}, {"value", "1"}},
                     {{"name", "kernel.shm_rmid_forced"}, {"value", "1"}},
                     {{"name", "kernel.shm_rmid_forced"}, {"value", "0"}},
                     {{"name", "net/ipv4/conf/eth0.100/rp_filter"}, {"value", "1"}}}}}}}) ==
        "spec.securityContext.sysctls[0].name|Required value\n"
        "spec.securityContext.sysctls[1].name|Invalid value: \"Kernel.x\": must have at most 253 characters and "
        "match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$\n"
        "spec.securityContext.sysctls[3].name|Duplicate value: \"kernel.shm_rmid_forced\"\n");
  CHECK(lvl_pod({{"hostNetwork", true},
                 {"hostIPC", true},
                 {"securityContext",
                  {{"sysctls",
                    {{{"name", "net.ipv4.ip_forward"}, {"value", "1"}},
                     {{"name", "kernel.msgmax"}, {"value", "1"}},
                     {{"name", "fs/mqueue/msg_max"}, {"value", "1"}},
                     {{"name", "kernel.domainname"}, {"value", "x"}}}}}}}) ==
        "spec.securityContext.sysctls[0].name|Invalid value: \"net.ipv4.ip_forward\": may not be specified when "
        "'hostNetwork' is true\n"
        "spec.securityContext.sysctls[1].name|Invalid value: \"kernel.msgmax\": may not be specified when 'hostIPC' "
        "is true\n"
        "spec.securityContext.sysctls[2].name|Invalid value: \"fs/mqueue/msg_max\": may not be specified when "
        "'hostIPC' is true\n");
}

TEST_CASE("pod level: fsGroupChangePolicy and supplementalGroupsPolicy take known values") {
  CHECK(lvl_pod({{"securityContext", {{"fsGroupChangePolicy", "Sometimes"}, {"supplementalGroupsPolicy", "Loose"}}}}) ==
        "spec.securityContext.fsGroupChangePolicy|Unsupported value: \"Sometimes\": supported values: \"Always\", "
        "\"OnRootMismatch\"\n"
        "spec.securityContext.supplementalGroupsPolicy|Unsupported value: \"Loose\": supported values: \"Merge\", "
        "\"Strict\"\n");
  CHECK(lvl_pod(
            {{"securityContext", {{"fsGroupChangePolicy", "OnRootMismatch"}, {"supplementalGroupsPolicy", "Strict"}}}})
            .empty());
}

TEST_CASE("pod level: seLinuxChangePolicy is Recursive, or MountOption where the stored pod set a policy") {
  CHECK(lvl_pod({{"securityContext", {{"seLinuxChangePolicy", "Recursive"}}}}).empty());
  CHECK(lvl_pod({{"securityContext", {{"seLinuxChangePolicy", "MountOption"}}}}) ==
        "spec.securityContext.seLinuxChangePolicy|Unsupported value: \"MountOption\": supported values: "
        "\"Recursive\"\n");
  CHECK(lvl_template({{"securityContext", {{"seLinuxChangePolicy", "MountOption"}}}}) ==
        "spec.template.spec.securityContext.seLinuxChangePolicy|Unsupported value: \"MountOption\": supported "
        "values: \"Recursive\"\n");

  const KindSpec& row = lvl_row("", "pods");
  json old = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "web"}, {"namespace", "default"}, {"resourceVersion", "1"}}},
              {"spec", {{"containers", {{{"name", "web"}, {"image", "nginx"}}}}}}};
  default_object(row, old);
  json pod = old;
  pod["spec"]["containers"][0]["image"] = "nginx:2";
  pod["spec"]["securityContext"]["seLinuxChangePolicy"] = "Bogus";
  Causes causes = json::array();
  row.strategy.validate_update(pod, old, causes);
  CHECK(lvl_lines(causes).find("seLinuxChangePolicy|Unsupported value: \"Bogus\": supported values: \"Recursive\"\n") !=
        std::string::npos);
  old["spec"]["securityContext"]["seLinuxChangePolicy"] = "MountOption";
  causes = json::array();
  row.strategy.validate_update(pod, old, causes);
  CHECK(lvl_lines(causes).find("seLinuxChangePolicy|Unsupported value: \"Bogus\": supported values: "
                               "\"MountOption\", \"Recursive\"\n") != std::string::npos);
}

TEST_CASE("pod level: the pod's AppArmor profile is checked") {
  CHECK(lvl_pod({{"securityContext", {{"appArmorProfile", {{"type", "Localhost"}}}}}}) ==
        "spec.securityContext.appArmorProfile.localhostProfile|Required value: must be set when AppArmor type is "
        "Localhost\n");
}

TEST_CASE("pod level: node affinity's required selector and preferred terms") {
  const std::string na = "spec.affinity.nodeAffinity.";
  CHECK(lvl_pod({{"affinity",
                  {{"nodeAffinity",
                    {{"requiredDuringSchedulingIgnoredDuringExecution", {{"nodeSelectorTerms", json::array()}}}}}}}}) ==
        na + "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms|Required value: must have at least one "
             "node selector term\n");
  const json required_terms = {{"nodeSelectorTerms",
                                {{{"matchExpressions",
                                   {{{"key", "zone"}, {"operator", "In"}},
                                    {{"key", "zone"}, {"operator", "Exists"}, {"values", {"a"}}},
                                    {{"key", "size"}, {"operator", "Gt"}, {"values", {"1", "2"}}},
                                    {{"key", "a/b/c"}, {"operator", "Near"}, {"values", {"-bad-"}}}}},
                                  {"matchFields",
                                   {{{"key", "metadata.name"}, {"operator", "In"}, {"values", {"Node_1"}}},
                                    {{"key", "spec.unschedulable"}, {"operator", "Exists"}}}}}}}};
  const std::string term = na + "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].";
  CHECK(lvl_pod(
            {{"affinity", {{"nodeAffinity", {{"requiredDuringSchedulingIgnoredDuringExecution", required_terms}}}}}}) ==
        term + "matchExpressions[0].values|Required value: must be specified when `operator` is 'In' or 'NotIn'\n" +
            term +
            "matchExpressions[1].values|Forbidden: may not be specified when `operator` is 'Exists' or "
            "'DoesNotExist'\n" +
            term +
            "matchExpressions[2].values|Required value: must be specified single value when `operator` is 'Lt' "
            "or 'Gt'\n" +
            term + "matchExpressions[3].operator|Invalid value: \"Near\": not a valid selector operator\n" + term +
            "matchExpressions[3].key|Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric "
            "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
            "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with "
            "an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')\n" +
            term +
            "matchExpressions[3].values[0]|Invalid value: \"-bad-\": a valid label must be an empty string or "
            "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
            "character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')\n" +
            term +
            "matchFields[0].values[0]|Invalid value: \"Node_1\": a lowercase RFC 1123 subdomain must consist of "
            "lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
            "character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n" +
            term + "matchFields[1].operator|Invalid value: \"Exists\": not a valid selector operator\n" + term +
            "matchFields[1].key|Invalid value: \"spec.unschedulable\": not a valid field selector key\n");
  // A preferred term's weight is 1-100; its values are not held to label values.
  CHECK(
      lvl_pod(
          {{"affinity",
            {{"nodeAffinity",
              {{"preferredDuringSchedulingIgnoredDuringExecution",
                {{{"weight", 0},
                  {"preference", {{"matchExpressions", {{{"key", "zone"}, {"operator", "In"}, {"values", {"-x-"}}}}}}}},
                 {{"weight", 101}, {"preference", json::object()}}}}}}}}}) ==
      na + "preferredDuringSchedulingIgnoredDuringExecution[0].weight|Invalid value: 0: must be in the range 1-100\n" +
          na +
          "preferredDuringSchedulingIgnoredDuringExecution[1].weight|Invalid value: 101: must be in the range "
          "1-100\n");
}

TEST_CASE("pod level: pod affinity terms") {
  const std::string pa = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].";
  CHECK(lvl_pod({{"affinity",
                  {{"podAffinity",
                    {{"requiredDuringSchedulingIgnoredDuringExecution",
                      {{{"labelSelector", {{"matchLabels", {{"app", "-x"}}}}},
                        {"namespaceSelector", {{"matchExpressions", {{{"key", "team"}, {"operator", "In"}}}}}},
                        {"namespaces", {"Bad_NS"}}}}}}}}}}) ==
        pa +
            "labelSelector.matchLabels|Invalid value: \"-x\": a valid label must be an empty string or consist of "
            "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
            "'MyValue',  or 'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')\n" +
            pa +
            "namespaceSelector.matchExpressions[0].values|Required value: must be specified when `operator` is "
            "'In' or 'NotIn'\n" +
            pa +
            "namespace|Invalid value: \"Bad_NS\": a lowercase RFC 1123 label must consist of lower case "
            "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. "
            "'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n" +
            pa + "topologyKey|Required value: can not be empty\n" + pa +
            "topologyKey|Invalid value: \"\": name part must be non-empty\n" + pa +
            "topologyKey|Invalid value: \"\": " + k_lvl_qualified_regex + "\n");
  const std::string anti = "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].";
  CHECK(lvl_pod(
            {{"affinity",
              {{"podAntiAffinity",
                {{"preferredDuringSchedulingIgnoredDuringExecution",
                  {{{"weight", 0},
                    {"podAffinityTerm",
                     {{"topologyKey", "zone"}, {"matchLabelKeys", {"app"}}, {"mismatchLabelKeys", {"app"}}}}}}}}}}}}) ==
        anti + "weight|Invalid value: 0: must be in the range 1-100\n" + anti +
            "podAffinityTerm.matchLabelKeys|Forbidden: must not be specified when labelSelector is not set\n" + anti +
            "podAffinityTerm.mismatchLabelKeys|Forbidden: must not be specified when labelSelector is not set\n" +
            anti +
            "podAffinityTerm.matchLabelKeys[0]|Invalid value: \"app\": exists in both matchLabelKeys and "
            "mismatchLabelKeys\n");
}

TEST_CASE("pod level: matchLabelKeys already in the label selector are reported at the term's index") {
  // The pod's own label value joins the selector on create (mutatePodAffinity); a key the
  // selector already had is then there twice.
  json pod_extra = {{"affinity",
                     {{"podAffinity",
                       {{"requiredDuringSchedulingIgnoredDuringExecution",
                         {{{"topologyKey", "zone"},
                           {"labelSelector", {{"matchLabels", {{"app", "web"}}}}},
                           {"matchLabelKeys", {"app"}}}}}}}}}};
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", "web"}, {"namespace", "default"}, {"labels", {{"app", "web"}}}}},
              {"spec", {{"containers", {{{"name", "web"}, {"image", "nginx"}}}}}}};
  pod["spec"].update(pod_extra, true);
  const KindSpec& row = lvl_row("", "pods");
  default_object(row, pod);
  row.strategy.prepare_create(pod);
  Causes causes = json::array();
  row.strategy.validate_create(pod, causes);
  CHECK(lvl_lines(causes) ==
        "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0][0]|Invalid value: \"app\": "
        "exists in both matchLabelKeys and labelSelector\n");
}

TEST_CASE("pod level: dnsPolicy None needs a config with a nameserver") {
  CHECK(lvl_pod({{"dnsPolicy", "None"}}) ==
        "spec.dnsConfig|Required value: must provide `dnsConfig` when `dnsPolicy` is None\n");
  CHECK(lvl_pod({{"dnsPolicy", "None"}, {"dnsConfig", {{"searches", {"-bad"}}}}}) ==
        "spec.dnsConfig.nameservers|Required value: must provide at least one DNS nameserver when `dnsPolicy` is "
        "None\n");
  CHECK(lvl_pod({{"dnsPolicy", "None"}, {"dnsConfig", {{"nameservers", {"10.0.0.10"}}, {"searches", {"ns.svc."}}}}})
            .empty());
}

TEST_CASE("pod level: dnsConfig nameservers, searches and options") {
  CHECK(lvl_pod({{"dnsConfig",
                  {{"nameservers", {"1.1.1.1", "2.2.2.2", "3.3.3.3", "bad"}},
                   {"searches", {"Example.com", "a.b."}},
                   {"options", {{{"name", ""}}, {{"name", "ndots"}, {"value", "2"}}}}}}}) ==
        "spec.dnsConfig.nameservers|Invalid value: []string{\"1.1.1.1\", \"2.2.2.2\", \"3.3.3.3\", \"bad\"}: must not "
        "have more than 3 nameservers\n"
        "spec.dnsConfig.nameservers[3]|Invalid value: \"bad\": must be a valid IP address, (e.g. 10.9.8.7 or "
        "2001:db8::ffff)\n"
        "spec.dnsConfig.searches[0]|Invalid value: \"Example.com\": a lowercase RFC 1123 subdomain must consist of "
        "lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n"
        "spec.dnsConfig.options[0]|Required value: must not be empty\n");
  json searches = json::array();
  for (int i = 0; i < 33; ++i) searches.push_back("s" + std::to_string(i));
  const std::string causes = lvl_pod({{"dnsConfig", {{"searches", searches}}}});
  CHECK(causes.starts_with("spec.dnsConfig.searches|Invalid value: []string{\"s0\", \"s1\","));
  CHECK(causes.ends_with("\"s32\"}: must not have more than 32 search paths\n"));
  const json long_searches = {std::string(253, 'a'), std::string(253, 'b'), std::string(253, 'c'),
                              std::string(253, 'd'), std::string(253, 'e'), std::string(253, 'f'),
                              std::string(253, 'g'), std::string(253, 'h'), std::string(30, 'i')};
  CHECK(lvl_pod({{"dnsConfig", {{"searches", long_searches}}}})
            .find("spec.dnsConfig.searches|Invalid value: []string{") == 0);
  CHECK(lvl_pod({{"dnsConfig", {{"searches", long_searches}}}})
            .ends_with("must not have more than 2048 characters (including spaces) in the search list\n"));
}

TEST_CASE("pod level: search domains may hold underscores, a label may start with one, and \".\" stands alone") {
  CHECK(lvl_pod({{"dnsConfig", {{"searches", {"_sip._tcp.example.com", "my_domain.local.", ".", "a_b"}}}}}).empty());
  const std::string causes = lvl_pod({{"dnsConfig", {{"searches", {"a_", "__a", "_.b", "a..b", ".."}}}}});
  for (const char* bad : {"[0]|Invalid value: \"a_\"", "[1]|Invalid value: \"__a\"", "[2]|Invalid value: \"_.b\"",
                          "[3]|Invalid value: \"a..b\"", "[4]|Invalid value: \".\""})
    CHECK_MESSAGE(causes.find(std::string("spec.dnsConfig.searches") + bad) != std::string::npos, bad);
}

TEST_CASE("pod level: readiness gates and scheduling gates") {
  CHECK(lvl_pod({{"readinessGates", {{{"conditionType", "example.com/ready"}}, {{"conditionType", "-no"}}}}}) ==
        std::string("spec.readinessGates[1].conditionType|Invalid value: \"-no\": ") + k_lvl_qualified_regex + "\n");
  CHECK(lvl_pod({{"schedulingGates",
                  {{{"name", "example.com/gate"}}, {{"name", "example.com/gate"}}, {{"name", "a b"}}}}}) ==
        std::string("spec.schedulingGates[1]|Duplicate value: \"example.com/gate\"\n") +
            "spec.schedulingGates[2]|Invalid value: \"a b\": " + k_lvl_qualified_regex + "\n");
}

TEST_CASE("pod level: topology spread constraints") {
  const std::string tsc = "spec.topologySpreadConstraints[";
  CHECK(lvl_pod({{"topologySpreadConstraints",
                  {{{"maxSkew", 0}, {"topologyKey", ""}, {"whenUnsatisfiable", "Maybe"}},
                   {{"maxSkew", 1},
                    {"topologyKey", "zone"},
                    {"whenUnsatisfiable", "ScheduleAnyway"},
                    {"minDomains", 0},
                    {"nodeAffinityPolicy", "Always"},
                    {"matchLabelKeys", {"app"}}},
                   {{"maxSkew", 1},
                    {"topologyKey", "zone"},
                    {"whenUnsatisfiable", "ScheduleAnyway"},
                    {"labelSelector", {{"matchLabels", {{"app", "web"}}}}},
                    {"matchLabelKeys", {"app"}}}}}}) ==
        tsc + "0].maxSkew|Invalid value: 0: must be greater than zero\n" + tsc +
            "0].topologyKey|Required value: can not be empty\n" + tsc +
            "0].whenUnsatisfiable|Unsupported value: \"Maybe\": supported values: \"DoNotSchedule\", "
            "\"ScheduleAnyway\"\n" +
            tsc + "1].{topologyKey, whenUnsatisfiable}|Duplicate value: \"{zone, ScheduleAnyway}\"\n" + tsc +
            "1].minDomains|Invalid value: 0: must be greater than zero\n" + tsc +
            "1].minDomains|Invalid value: 0: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not "
            "ScheduleAnyway\n" +
            tsc + "1].nodeAffinityPolicy|Unsupported value: \"Always\": supported values: \"Honor\", \"Ignore\"\n" +
            tsc + "1].matchLabelKeys|Forbidden: must not be specified when labelSelector is not set\n" + tsc +
            "2].matchLabelKeys[0]|Invalid value: \"app\": exists in both matchLabelKeys and labelSelector\n");
}

TEST_CASE("pod level: host process containers") {
  const json host_process = {{"windowsOptions", {{"hostProcess", true}}}};
  CHECK(lvl_pod({{"securityContext", host_process},
                 {"containers",
                  {{{"name", "a"}, {"image", "x"}, {"securityContext", {{"windowsOptions", {{"hostProcess", false}}}}}},
                   {{"name", "b"}, {"image", "x"}}}}}) ==
        "spec.containers[0].securityContext.windowsOptions.hostProcess|Invalid value: false: pod hostProcess value "
        "must be identical if both are specified, was true\n"
        "spec|Invalid value: \"\": If pod contains any hostProcess containers then all containers must be "
        "HostProcess containers\n"
        "spec.hostNetwork|Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers\n");
  CHECK(lvl_pod({{"securityContext", host_process}, {"hostNetwork", true}}).empty());
}

TEST_CASE("pod level: a pod without host users shares no host namespace") {
  CHECK(lvl_pod({{"hostUsers", false}, {"hostNetwork", true}, {"hostPID", true}, {"hostIPC", true}}) ==
        "spec.hostNetwork|Forbidden: when `pod.Spec.HostUsers` is false\n"
        "spec.HostPID|Forbidden: when `pod.Spec.HostUsers` is false\n"
        "spec.HostIPC|Forbidden: when `pod.Spec.HostUsers` is false\n");
  CHECK(lvl_pod({{"hostUsers", true}, {"hostNetwork", true}}).empty());
}

TEST_CASE("pod level: host aliases, runtime class and preemption policy") {
  CHECK(lvl_pod({{"hostAliases",
                  {{{"ip", "10.0.0.1"}, {"hostnames", {"ok.example"}}}, {{"ip", "nope"}, {"hostnames", {"Bad_Host"}}}}},
                 {"runtimeClassName", "Bad_Class"},
                 {"preemptionPolicy", "Sometimes"}}) ==
        "spec.hostAliases[1].ip|Invalid value: \"nope\": must be a valid IP address, (e.g. 10.9.8.7 or "
        "2001:db8::ffff)\n"
        "spec.hostAliases[1].hostnames[0]|Invalid value: \"Bad_Host\": a lowercase RFC 1123 subdomain must consist "
        "of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
        "(e.g. 'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n"
        "spec.runtimeClassName|Invalid value: \"Bad_Class\": a lowercase RFC 1123 subdomain must consist of lower "
        "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n"
        "spec.preemptionPolicy|Unsupported value: \"Sometimes\": supported values: \"PreemptLowerPriority\", "
        "\"Never\"\n");
  CHECK(lvl_pod({{"preemptionPolicy", ""}}) == "spec.preemptionPolicy|Required value\n");
  CHECK(lvl_pod({{"preemptionPolicy", "Never"}, {"runtimeClassName", "gvisor"}}).empty());
}

TEST_CASE("pod level: spec.os names linux or windows") {
  CHECK(lvl_pod({{"os", {{"name", ""}}}}) == "spec.os.name|Required value: cannot be empty\n");
  CHECK(lvl_pod({{"os", {{"name", "plan9"}}}}) ==
        "spec.os|Unsupported value: \"plan9\": supported values: \"linux\", \"windows\"\n");
}

TEST_CASE("pod level: a linux pod has no windows options") {
  CHECK(lvl_pod({{"os", {{"name", "linux"}}},
                 {"securityContext", {{"windowsOptions", {{"runAsUserName", "user"}}}}},
                 {"containers",
                  {{{"name", "web"},
                    {"image", "x"},
                    {"securityContext", {{"windowsOptions", {{"runAsUserName", "u"}}}}}}}}}) ==
        "spec.securityContext.windowsOptions|Forbidden: windows options cannot be set for a linux pod\n"
        "spec.containers[0].securityContext.windowsOptions|Forbidden: windows options cannot be set for a linux "
        "pod\n");
}

TEST_CASE("pod level: a windows pod has none of the linux-only settings") {
  CHECK(lvl_pod(
            {{"os", {{"name", "windows"}}},
             {"hostPID", true},
             {"hostUsers", true},
             {"shareProcessNamespace", false},
             {"securityContext",
              {{"fsGroup", 1},
               {"runAsUser", 1},
               {"supplementalGroups", json::array()},
               {"sysctls", {{{"name", "kernel.shm_rmid_forced"}, {"value", "1"}}}}}},
             {"containers",
              {{{"name", "web"}, {"image", "x"}, {"securityContext", {{"privileged", false}, {"runAsGroup", 3}}}}}}}) ==
        "spec.hostUsers|Forbidden: cannot be set for a windows pod\n"
        "spec.hostPID|Forbidden: cannot be set for a windows pod\n"
        "spec.securityContext.fsGroup|Forbidden: cannot be set for a windows pod\n"
        "spec.securityContext.sysctls|Forbidden: cannot be set for a windows pod\n"
        "spec.shareProcessNamespace|Forbidden: cannot be set for a windows pod\n"
        "spec.securityContext.runAsUser|Forbidden: cannot be set for a windows pod\n"
        "spec.securityContext.supplementalGroups|Forbidden: cannot be set for a windows pod\n"
        "spec.containers[0].securityContext.privileged|Forbidden: cannot be set for a windows pod\n"
        "spec.containers[0].securityContext.runAsGroup|Forbidden: cannot be set for a windows pod\n");
}

TEST_CASE("pod level: pod templates are held to the same rules") {
  CHECK(lvl_template({{"schedulingGates", {{{"name", "g"}}, {{"name", "g"}}}}, {"os", {{"name", "plan9"}}}}) ==
        "spec.template.spec.schedulingGates[1]|Duplicate value: \"g\"\n"
        "spec.template.spec.os|Unsupported value: \"plan9\": supported values: \"linux\", \"windows\"\n");
}

TEST_CASE("pod level: a PersistentVolume's node affinity uses the same node selector rules") {
  const KindSpec& row = lvl_row("", "persistentvolumes");
  const json requirement = {{"key", "metadata.name"}, {"operator", "In"}, {"values", {"n1", "n2"}}};
  const json term = {{"matchFields", json::array({requirement})}};
  json pv = {{"apiVersion", "v1"}, {"kind", "PersistentVolume"}, {"metadata", {{"name", "pv1"}}}};
  pv["spec"] = {
      {"capacity", {{"storage", "1Gi"}}}, {"accessModes", {"ReadWriteOnce"}}, {"hostPath", {{"path", "/data"}}}};
  pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"] = json::array({term});
  default_object(row, pv);
  Causes causes = json::array();
  if (row.strategy.validate_create)
    row.strategy.validate_create(pv, causes);
  else
    row.strategy.validate(pv, causes);
  CHECK(lvl_lines(causes) ==
        "spec.nodeAffinity.required.nodeSelectorTerms[0].matchFields[0].values|Required value: must be only one value "
        "when `operator` is 'In' or 'NotIn' for node field selector\n");
}

TEST_CASE("pod level: the pod's own seccomp profile, Windows options and overhead") {
  CHECK(lvl_pod({{"securityContext", {{"seccompProfile", {{"type", "Localhost"}}}}}}) ==
        "spec.securityContext.seccompProfile.localhostProfile|Required value: must be set when seccomp type is "
        "Localhost\n");
  CHECK(lvl_pod({{"securityContext", {{"windowsOptions", {{"gmsaCredentialSpecName", "Bad_Name"}}}}}})
            .starts_with("spec.securityContext.windowsOptions.gmsaCredentialSpecName|Invalid value: \"Bad_Name\": a "
                         "lowercase RFC 1123 subdomain"));
  CHECK(lvl_pod({{"overhead", {{"cpu", "-1"}}}}) ==
        "spec.overhead.limits[cpu]|Invalid value: \"-1\": must be greater than or equal to 0\n");
  CHECK(lvl_pod({{"overhead", {{"cpu", "250m"}, {"memory", "120Mi"}}}}).empty());
}
