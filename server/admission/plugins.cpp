#include "server/admission/plugins.hpp"

#include <algorithm>

#include "server/admission/service_account.hpp"

namespace kw::admission {
namespace {

struct Plugin {
  std::string_view name;
  bool default_on;  // in kube-apiserver's default set
  void (*install)(registry::Registry&, const PluginSelection&);  // null: not in kw yet
};

void install_service_account(registry::Registry& registry, const PluginSelection&) {
  registry.add_admission_mutation(service_account_mutation(registry));
  registry.add_admission_check(service_account_check(registry));
}

void install_priority(registry::Registry& registry, const PluginSelection&) {
  registry.add_admission_mutation(priority_mutation(registry));
  registry.add_admission_check(priority_check(registry));
}

void install_default_toleration_seconds(registry::Registry& registry, const PluginSelection& selection) {
  registry.add_admission_mutation(default_toleration_seconds(selection.toleration_seconds));
}

// kube-apiserver 1.23's plugins in the order it runs them.
constexpr Plugin k_plugins[] = {
    {"AlwaysAdmit", false, nullptr},
    {"NamespaceLifecycle", true, nullptr},
    {"LimitRanger", true, nullptr},
    {"ServiceAccount", true, install_service_account},
    {"NodeRestriction", false, nullptr},
    {"TaintNodesByCondition", true, nullptr},
    {"AlwaysPullImages", false, nullptr},
    {"ImagePolicyWebhook", false, nullptr},
    {"PodSecurity", true, nullptr},
    {"PodSecurityPolicy", false, nullptr},
    {"PodNodeSelector", false, nullptr},
    {"Priority", true, install_priority},
    {"DefaultTolerationSeconds", true, install_default_toleration_seconds},
    {"PodTolerationRestriction", false, nullptr},
    {"EventRateLimit", false, nullptr},
    {"ExtendedResourceToleration", false, nullptr},
    {"PersistentVolumeLabel", false, nullptr},
    {"DefaultStorageClass", true, nullptr},
    {"StorageObjectInUseProtection", true, nullptr},
    {"OwnerReferencesPermissionEnforcement", false, nullptr},
    {"PersistentVolumeClaimResize", true, nullptr},
    {"RuntimeClass", true, nullptr},
    {"CertificateApproval", true, nullptr},
    {"CertificateSigning", true, nullptr},
    {"CertificateSubjectRestriction", true, nullptr},
    {"DefaultIngressClass", true, nullptr},
    {"DenyServiceExternalIPs", false, nullptr},
    {"SecurityContextDeny", false, nullptr},
    {"MutatingAdmissionWebhook", true, nullptr},
    {"ValidatingAdmissionWebhook", true, nullptr},
    {"ResourceQuota", true, nullptr},
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
    plugin.install(registry, selection);
    installed.enabled.emplace_back(plugin.name);
  }
  return installed;
}

}  // namespace kw::admission
