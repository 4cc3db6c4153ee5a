// The describers of the access kinds: RBAC's roles and bindings, and CertificateSigningRequest.
// A role's rules are shown as kubectl shows them: broken down to one resource (and resource
// name) each, the verbs of rules that then name the same resource merged, sorted by the rule's
// text. A signing request shows what its PEM request asks for.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "cli/print/describe_kinds.hpp"
#include "core/api/json_access.hpp"
#include "core/api/print_support.hpp"
#include "core/util/base64.hpp"
#include "core/util/x509_request.hpp"

namespace kw::cli::describe {

namespace {

using api::arr;
using api::at;
using api::num;
using api::str;
using nlohmann::json;

using Strings = std::vector<std::string>;

struct Rule {
  Strings verbs, groups, resources, names, urls;

  // The generated String() of rbacv1.PolicyRule, which kubectl sorts the rules by.
  std::string text() const {
    return "&PolicyRule{Verbs:" + list(verbs) + ",APIGroups:" + list(groups) + ",Resources:" + list(resources) +
           ",ResourceNames:" + list(names) + ",NonResourceURLs:" + list(urls) + ",}";
  }
  static std::string list(const Strings& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : " ") + item;
    return "[" + out + "]";
  }
};

Strings strings_of(const json& rule, std::string_view key) { return api::strings(rule, key); }

// kubectl's BreakdownRule: one rule per group, resource and resource name, and one per
// non-resource URL.
std::vector<Rule> broken_down(const json& rule) {
  std::vector<Rule> out;
  const Strings verbs = strings_of(rule, "verbs"), names = strings_of(rule, "resourceNames");
  for (const auto& group : strings_of(rule, "apiGroups"))
    for (const auto& resource : strings_of(rule, "resources")) {
      if (names.empty()) out.push_back(Rule{verbs, {group}, {resource}, {}, {}});
      for (const auto& name : names) out.push_back(Rule{verbs, {group}, {resource}, {name}, {}});
    }
  for (const auto& url : strings_of(rule, "nonResourceURLs")) out.push_back(Rule{verbs, {}, {}, {}, {url}});
  return out;
}

// kubectl's CompactRules and sort: rules on one group, resource and at most one name merge their
// verbs; the others stay as they are.
std::vector<Rule> compacted(const json& rules) {
  std::vector<Rule> out;
  std::map<std::tuple<std::string, std::string, bool, std::string>, Rule> simple;
  std::vector<std::tuple<std::string, std::string, bool, std::string>> order;
  for (const auto& rule : arr(rules))
    for (auto& part : broken_down(rule)) {
      if (!part.urls.empty() || part.groups.size() != 1 || part.resources.size() != 1) {
        out.push_back(std::move(part));
        continue;
      }
      const auto key = std::make_tuple(part.groups[0], part.resources[0], !part.names.empty(),
                                       part.names.empty() ? "" : part.names[0]);
      auto [it, inserted] = simple.try_emplace(key, part);
      if (!inserted)
        it->second.verbs.insert(it->second.verbs.end(), part.verbs.begin(), part.verbs.end());
      else
        order.push_back(key);
    }
  for (const auto& key : order) out.push_back(simple.at(key));
  std::ranges::stable_sort(out, {}, &Rule::text);
  return out;
}

// "pods.apps/log": the resource, its group and its subresource, as kubectl combines them.
std::string resource_with_group(const Rule& rule) {
  if (rule.resources.empty()) return "";
  const std::string& resource = rule.resources[0];
  const auto slash = resource.find('/');
  std::string out = resource.substr(0, slash);
  if (!rule.groups.empty() && !rule.groups[0].empty()) out += "." + rule.groups[0];
  if (slash != std::string::npos) out += resource.substr(slash);
  return out;
}

void describe_role(Writer& w, const json& role, const Related&, TimePoint) {
  write_name(w, role, false);
  write_metadata(w, role);
  w.write(0, "PolicyRule:\n");
  w.write(1, "Resources\tNon-Resource URLs\tResource Names\tVerbs\n");
  w.write(1, "---------\t-----------------\t--------------\t-----\n");
  for (const auto& rule : compacted(at(role, {"rules"})))
    w.write(1, resource_with_group(rule) + "\t" + Rule::list(rule.urls) + "\t" + Rule::list(rule.names) + "\t" +
                   Rule::list(rule.verbs) + "\n");
}

void describe_binding(Writer& w, const json& binding, const Related&, TimePoint) {
  write_name(w, binding, false);
  write_metadata(w, binding);
  w.write(0, "Role:\n");
  w.write(1, "Kind:\t" + str(at(binding, {"roleRef", "kind"})) + "\n");
  w.write(1, "Name:\t" + str(at(binding, {"roleRef", "name"})) + "\n");
  w.write(0, "Subjects:\n");
  w.write(1, "Kind\tName\tNamespace\n");
  w.write(1, "----\t----\t---------\n");
  for (const auto& subject : arr(at(binding, {"subjects"})))
    w.write(1, str(at(subject, {"kind"})) + "\t" + str(at(subject, {"name"})) + "\t" + str(at(subject, {"namespace"})) +
                   "\n");
}

// A list as kubectl's signing request describer writes one: "Title:" and the first value, each
// further value on its own line in the value column.
void write_values(Writer& w, const std::string& title, const std::vector<std::string>& values) {
  if (values.empty()) return;
  std::string joined;
  for (const auto& value : values) joined += (joined.empty() ? "" : "\n\t\t") + value;
  w.write(0, "\t" + title + ":\t" + joined + "\n");
}

void describe_signing_request(Writer& w, const json& csr, const Related& related, TimePoint now) {
  const json& spec = at(csr, {"spec"});
  // The server checks the request on create, so it reads; an empty one describes nothing.
  const auto pem = util::base64_decode(str(at(spec, {"request"})));
  auto parsed = pem ? util::parse_certificate_request(*pem) : kw::fail("no request");
  const util::CertificateRequest request = parsed ? std::move(*parsed) : util::CertificateRequest{};
  w.write(0, "Name:\t" + str(at(csr, {"metadata", "name"})) + "\n");
  w.write(0, "Labels:\t" + api::print::format_labels(at(csr, {"metadata", "labels"})) + "\n");
  w.write(0, "Annotations:\t" + api::print::format_labels(at(csr, {"metadata", "annotations"})) + "\n");
  w.write(0, "CreationTimestamp:\t" + rfc1123z(at(csr, {"metadata", "creationTimestamp"})) + "\n");
  w.write(0, "Requesting User:\t" + str(at(spec, {"username"})) + "\n");
  if (const std::string signer = str(at(spec, {"signerName"})); !signer.empty())
    w.write(0, "Signer:\t" + signer + "\n");
  if (const json& seconds = at(spec, {"expirationSeconds"}); seconds.is_number())
    w.write(0, "Requested Duration:\t" + api::print::since(now - std::chrono::seconds(api::num(seconds)), now) + "\n");
  w.write(0, "Status:\t" + api::print::csr_status(csr) + "\n");
  const auto& subject = request.subject;
  w.write(0, "Subject:\n");
  w.write(0, "\tCommon Name:\t" + subject.common_name + "\n");
  w.write(0, "\tSerial Number:\t" + subject.serial_number + "\n");
  write_values(w, "Organization", subject.organization);
  write_values(w, "Organizational Unit", subject.organizational_unit);
  write_values(w, "Country", subject.country);
  write_values(w, "Locality", subject.locality);
  write_values(w, "Province", subject.province);
  write_values(w, "StreetAddress", subject.street_address);
  write_values(w, "PostalCode", subject.postal_code);
  if (!request.dns_names.empty() || !request.email_addresses.empty() || !request.ip_addresses.empty() ||
      !request.uris.empty()) {
    w.write(0, "Subject Alternative Names:\n");
    write_values(w, "DNS Names", request.dns_names);
    write_values(w, "Email Addresses", request.email_addresses);
    write_values(w, "URIs", request.uris);
    write_values(w, "IP Addresses", request.ip_addresses);
  }
  if (related.events) write_events(w, *related.events, now);
}

}  // namespace

Describer rbac_describer(std::string_view group, std::string_view kind) {
  if (group == "rbac.authorization.k8s.io") {
    if (kind == "Role" || kind == "ClusterRole") return describe_role;
    if (kind == "RoleBinding" || kind == "ClusterRoleBinding") return describe_binding;
  }
  if (group == "certificates.k8s.io" && kind == "CertificateSigningRequest") return describe_signing_request;
  return nullptr;
}

}  // namespace kw::cli::describe
