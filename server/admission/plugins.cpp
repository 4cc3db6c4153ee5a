#include "server/admission/plugins.hpp"

#include <algorithm>

#include "server/admission/builtin.hpp"
#include "server/admission/policies.hpp"
#include "server/admission/service_account.hpp"
#include "server/admission/webhooks.hpp"

namespace kw::admission {
namespace {

struct Plugin {
  std::string_view name;
  bool default_on;  // in kube-apiserver's default set
  // null: not in kw yet. May keep what it started in `installed`.
  void (*install)(registry::Registry&, const PluginSelection&, Installed& installed);
};

void install_service_account(registry::Registry& registry, const PluginSelection&, Installed&) {
  registry.add_admission_mutation(service_account_mutation(registry));
  registry.add_admission_check(service_account_check(registry));
}

void install_priority(registry::Registry& registry, const PluginSelection&, Installed&) {
  registry.add_admission_mutation(priority_mutation(registry));
  registry.add_admission_check(priority_check(registry));
}

void install_default_toleration_seconds(registry::Registry& registry, const PluginSelection& selection, Installed&) {
  registry.add_admission_mutation(default_toleration_seconds(selection.toleration_seconds));
}

void install_namespace_lifecycle(registry::Registry& registry, const PluginSelection&, Installed&) {
  registry.add_admission_mutation(namespace_lifecycle(registry));
}

void install_limit_ranger(registry::Registry& registry, const PluginSelection&, Installed&) {
  registry.add_admission_mutation(limit_ranger_mutation(registry));
  registry.add_admission_check(limit_ranger_check(registry));
}

void install_node_restriction(registry::Registry& registry, const PluginSelection&, Installed&) {
  registry.add_admission_mutation(node_restriction(registry));
}

void install_taint_nodes_by_condition(registry::Registry& registry, const PluginSelection&, Installed&) {
  registry.add_admission_mutation(taint_nodes_by_condition());
}

void install_default_storage_class(registry::Registry& registry, const PluginSelection&, Installed&) {
  registry.add_admission_mutation(default_storage_class(registry));
}

void install_storage_object_in_use_protection(registry::Registry& registry, const PluginSelection&, Installed&) {
  registry.add_admission_mutation(storage_object_in_use_protection());
}

void install_persistent_volume_claim_resize(registry::Registry& registry, const PluginSelection&, Installed&) {
  registry.add_admission_check(persistent_volume_claim_resize(registry));
}

void install_runtime_class(registry::Registry& registry, const PluginSelection&, Installed&) {
  registry.add_admission_mutation(runtime_class_mutation(registry));
  registry.add_admission_check(runtime_class_check(registry));
}

// The certificate plugins ask the authorizer; without one (tests) every requester may.
void install_certificate_approval(registry::Registry& registry, const PluginSelection& selection, Installed&) {
  if (selection.authorizer != nullptr) registry.add_admission_check(certificate_approval(*selection.authorizer));
}

void install_certificate_signing(registry::Registry& registry, const PluginSelection& selection, Installed&) {
  if (selection.authorizer != nullptr) registry.add_admission_check(certificate_signing(*selection.authorizer));
}

void install_certificate_subject_restriction(registry::Registry& registry, const PluginSelection&, Installed&) {
  registry.add_admission_check(certificate_subject_restriction());
}

void install_default_ingress_class(registry::Registry& registry, const PluginSelection&, Installed&) {
  registry.add_admission_mutation(default_ingress_class(registry));
}

void install_resource_quota(registry::Registry& registry, const PluginSelection& selection, Installed& installed) {
  const auto configured = selection.configurations.find("ResourceQuota");
  auto check = resource_quota(registry, configured != selection.configurations.end() ? configured->second : nullptr);
  if (!check) installed.failure = check.error().message;
  else registry.add_admission_check(std::move(*check));
}

void install_pod_security(registry::Registry& registry, const PluginSelection& selection, Installed& installed) {
  const auto configured = selection.configurations.find("PodSecurity");
  auto check = pod_security(registry, configured != selection.configurations.end() ? configured->second : nullptr);
  if (!check) installed.failure = check.error().message;
  else registry.add_admission_check(std::move(*check));
}

// Both webhook plugins call the webhooks of one follower of the configurations.
Webhooks* webhooks_of(registry::Registry& registry, const PluginSelection& selection, Installed& installed) {
  if (!installed.webhooks) {
    auto started = Webhooks::start(registry, selection.authorizer);
    if (!started) {
      installed.failure = started.error().message;
      return nullptr;
    }
    installed.webhooks = std::move(*started);
  }
  return installed.webhooks.get();
}

void install_mutating_admission_webhook(registry::Registry& registry, const PluginSelection& selection,
                                        Installed& installed) {
  if (auto* webhooks = webhooks_of(registry, selection, installed)) registry.add_admission_mutation(webhooks->mutation());
}

void install_validating_admission_webhook(registry::Registry& registry, const PluginSelection& selection,
                                          Installed& installed) {
  if (auto* webhooks = webhooks_of(registry, selection, installed)) registry.add_admission_check(webhooks->check());
}

void install_validating_admission_policy(registry::Registry& registry, const PluginSelection& selection,
                                         Installed& installed) {
  auto started = Policies::start(registry, selection.authorizer);
  if (!started) {
    installed.failure = started.error().message;
    return;
  }
  registry.add_admission_check((*started)->check());
  installed.policies = std::move(*started);
}

// kube-apiserver's plugins in the order it runs them (1.23's, with ValidatingAdmissionPolicy,
// on by default since 1.30).
constexpr Plugin k_plugins[] = {
    {"AlwaysAdmit", false, nullptr},
    {"NamespaceLifecycle", true, install_namespace_lifecycle},
    {"LimitRanger", true, install_limit_ranger},
    {"ServiceAccount", true, install_service_account},
    {"NodeRestriction", false, install_node_restriction},
    {"TaintNodesByCondition", true, install_taint_nodes_by_condition},
    {"AlwaysPullImages", false, nullptr},
    {"ImagePolicyWebhook", false, nullptr},
    {"PodSecurity", true, install_pod_security},
    {"PodSecurityPolicy", false, nullptr},
    {"PodNodeSelector", false, nullptr},
    {"Priority", true, install_priority},
    {"DefaultTolerationSeconds", true, install_default_toleration_seconds},
    {"PodTolerationRestriction", false, nullptr},
    {"EventRateLimit", false, nullptr},
    {"ExtendedResourceToleration", false, nullptr},
    {"PersistentVolumeLabel", false, nullptr},
    {"DefaultStorageClass", true, install_default_storage_class},
    {"StorageObjectInUseProtection", true, install_storage_object_in_use_protection},
    {"OwnerReferencesPermissionEnforcement", false, nullptr},
    {"PersistentVolumeClaimResize", true, install_persistent_volume_claim_resize},
    {"RuntimeClass", true, install_runtime_class},
    {"CertificateApproval", true, install_certificate_approval},
    {"CertificateSigning", true, install_certificate_signing},
    {"CertificateSubjectRestriction", true, install_certificate_subject_restriction},
    {"DefaultIngressClass", true, install_default_ingress_class},
    {"DenyServiceExternalIPs", false, nullptr},
    {"SecurityContextDeny", false, nullptr},
    {"MutatingAdmissionWebhook", true, install_mutating_admission_webhook},
    {"ValidatingAdmissionPolicy", true, install_validating_admission_policy},
    {"ValidatingAdmissionWebhook", true, install_validating_admission_webhook},
    {"ResourceQuota", true, install_resource_quota},
    {"AlwaysDeny", false, nullptr},
};

bool named(const std::vector<std::string>& list, std::string_view name) { return std::ranges::find(list, name) != list.end(); }

}  // namespace

Result<Installed> install(registry::Registry& registry, const PluginSelection& selection) {
  for (const auto* list : {&selection.enable, &selection.disable}) {
    const char* flag = list == &selection.enable ? "enable-admission-plugins" : "disable-admission-plugins";
    for (const auto& name : *list)
      if (std::ranges::none_of(k_plugins, [&](const Plugin& p) { return p.name == name; }))
        return fail(std::string(flag) + " plugin \"" + name + "\" is unknown");
  }
  for (const auto& name : selection.enable)
    if (named(selection.disable, name))
      return fail(name + " plugin is both enabled and disabled");
  Installed installed;
  for (const auto& plugin : k_plugins) {
    const bool on = (plugin.default_on || named(selection.enable, plugin.name)) && !named(selection.disable, plugin.name);
    if (!on) continue;
    if (plugin.install == nullptr) {
      if (named(selection.enable, plugin.name)) installed.unavailable.emplace_back(plugin.name);
      continue;
    }
    plugin.install(registry, selection, installed);
    if (!installed.failure.empty()) return fail(std::string(plugin.name) + ": " + installed.failure);
    installed.enabled.emplace_back(plugin.name);
  }
  return installed;
}

}  // namespace kw::admission
