#include "server/admission/service_account.hpp"

#include <chrono>
#include <random>
#include <set>
#include <thread>

#include "core/api/print_support.hpp"
#include "server/registry/kinds/pod_spec.hpp"

namespace kw::admission {
namespace {

using nlohmann::json;
using api::print::at;
using api::print::str;

constexpr const char* k_default_account = "default";
constexpr const char* k_volume_prefix = "kube-api-access-";
constexpr const char* k_mount_path = "/var/run/secrets/kubernetes.io/serviceaccount";
constexpr const char* k_mirror_annotation = "kubernetes.io/config.mirror";
constexpr const char* k_enforce_annotation = "kubernetes.io/enforce-mountable-secrets";
// The bound token's lifetime kube asks for in the volume (an hour plus seven seconds, the mark
// by which kube-apiserver recognises tokens it may extend).
constexpr int k_token_expiration_seconds = 3607;

bool applies(const registry::AdmissionRequest& r) {
  return r.operation == "CREATE" && r.subresource.empty() && r.info.group.empty() && r.info.plural == "pods" &&
         r.object.is_object();
}

bool is_mirror_pod(const json& pod) { return at(pod, {"metadata", "annotations", k_mirror_annotation}).is_string(); }

std::string account_name(const json& pod) { return str(at(pod, {"spec", "serviceAccountName"})); }

// The ServiceAccount from the watch cache, else from storage: a few times more for `default`,
// which the serviceaccount controller may be creating this moment (kube's getServiceAccount).
registry::ApiResult<json> find_account(registry::Registry& registry, const std::string& ns, const std::string& name) {
  const auto table = registry.resources();
  const auto* accounts = table->find_plural("", "v1", "serviceaccounts");
  if (accounts == nullptr) return std::unexpected(registry::ApiError{500, "InternalError", "no serviceaccounts resource", {}});
  if (auto cached = registry.get(*accounts, ns, name, "0"); cached || cached.error().code != 404) return cached;
  thread_local std::mt19937 random{std::random_device{}()};
  const auto interval = std::chrono::milliseconds(100 + std::uniform_int_distribution<int>(0, 99)(random));
  const int attempts = name == k_default_account ? 10 : 1;
  for (int i = 0; i < attempts; ++i) {
    if (i != 0) std::this_thread::sleep_for(interval);
    auto stored = registry.get(*accounts, ns, name, "");
    if (stored || stored.error().code != 404) return stored;
  }
  return std::unexpected(registry::not_found("", "serviceaccount", name));
}

registry::ApiError lookup_failed(const registry::AdmissionRequest& r, const std::string& name,
                                 const registry::ApiError& error) {
  return registry::admission_forbidden(
      r, "error looking up service account " + r.namespace_ + "/" + name + ": " + error.message);
}

bool automount(const json& account, const json& pod) {
  if (const json& own = at(pod, {"spec", "automountServiceAccountToken"}); own.is_boolean()) return own.get<bool>();
  if (const json& theirs = at(account, {"automountServiceAccountToken"}); theirs.is_boolean()) return theirs.get<bool>();
  return true;
}

json token_volume(const std::string& name) {
  return {{"name", name},
          {"projected",
           {{"sources",
             json::array({{{"serviceAccountToken", {{"expirationSeconds", k_token_expiration_seconds}, {"path", "token"}}}},
                          {{"configMap",
                            {{"name", "kube-root-ca.crt"},
                             {"items", json::array({{{"key", "ca.crt"}, {"path", "ca.crt"}}})}}}},
                          {{"downwardAPI",
                            {{"items", json::array({{{"path", "namespace"},
                                                     {"fieldRef", {{"apiVersion", "v1"},
                                                                   {"fieldPath", "metadata.namespace"}}}}})}}}}})},
            {"defaultMode", 420}}}};
}

// kube's mountServiceAccountToken: the first kube-api-access-* volume, or a new one, mounted by
// every init container and container that mounts nothing at the token path yet.
void mount_token(registry::Registry& registry, json& spec) {
  std::string volume_name;
  if (const json& volumes = at(spec, {"volumes"}); volumes.is_array())
    for (const auto& volume : volumes)
      if (const std::string name = str(at(volume, {"name"})); name.starts_with(k_volume_prefix)) {
        volume_name = name;
        break;
      }
  const bool has_volume = !volume_name.empty();
  if (!has_volume) volume_name = k_volume_prefix + registry.name_suffix();
  const json mount = {{"name", volume_name}, {"readOnly", true}, {"mountPath", k_mount_path}};
  bool needs_volume = false;
  for (const char* list : {"initContainers", "containers"}) {
    if (!at(spec, {list}).is_array()) continue;
    for (auto& container : spec[list]) {
      if (!container.is_object()) continue;
      bool mounted = false;
      if (const json& mounts = at(container, {"volumeMounts"}); mounts.is_array())
        for (const auto& existing : mounts) mounted = mounted || str(at(existing, {"mountPath"})) == k_mount_path;
      if (mounted) continue;
      if (!container["volumeMounts"].is_array()) container["volumeMounts"] = json::array();
      container["volumeMounts"].push_back(mount);
      needs_volume = true;
    }
  }
  if (has_volume || !needs_volume) return;
  if (!spec["volumes"].is_array()) spec["volumes"] = json::array();
  spec["volumes"].push_back(token_volume(volume_name));
}

std::optional<std::string> mirror_pod_refusal(const json& pod) {
  const json& spec = at(pod, {"spec"});
  if (!account_name(pod).empty()) return "a mirror pod may not reference service accounts";
  bool names_a_secret = false;
  kinds::visit_secret_names(spec, [&](const std::string&) { names_a_secret = true; });
  if (names_a_secret) return "a mirror pod may not reference secrets";
  if (const json& volumes = at(spec, {"volumes"}); volumes.is_array())
    for (const auto& volume : volumes)
      if (const json& sources = at(volume, {"projected", "sources"}); sources.is_array())
        for (const auto& source : sources)
          if (at(source, {"serviceAccountToken"}).is_object())
            return "a mirror pod may not use ServiceAccountToken volume projections";
  return std::nullopt;
}

// kube's limitSecretReferences: with enforce-mountable-secrets, only the secrets the
// ServiceAccount lists.
std::optional<std::string> unlisted_secret(const json& account, const json& spec) {
  const std::string account_name = str(at(account, {"metadata", "name"}));
  auto names_in = [](const json& list) {
    std::set<std::string> names;
    if (list.is_array())
      for (const auto& entry : list) names.insert(str(at(entry, {"name"})));
    return names;
  };
  const auto mountable = names_in(at(account, {"secrets"}));
  const auto unlisted = "\" is not allowed because service account " + account_name + " does not reference that ";
  if (const json& volumes = at(spec, {"volumes"}); volumes.is_array())
    for (const auto& volume : volumes) {
      if (!at(volume, {"secret"}).is_object()) continue;
      const std::string secret = str(at(volume, {"secret", "secretName"}));
      if (!mountable.contains(secret)) return "volume with secret.secretName=\"" + secret + unlisted + "secret";
    }
  for (const auto& [list, what] : {std::pair{"initContainers", "init container "}, std::pair{"containers", "container "}}) {
    const json& containers = at(spec, {list});
    if (!containers.is_array()) continue;
    for (const auto& container : containers) {
      const json& env = at(container, {"env"});
      if (!env.is_array()) continue;
      for (const auto& var : env) {
        const json& ref = at(var, {"valueFrom", "secretKeyRef"});
        if (!ref.is_object() || mountable.contains(str(at(ref, {"name"})))) continue;
        return what + str(at(container, {"name"})) + " with envVar " + str(at(var, {"name"})) +
               " referencing secret.secretName=\"" + str(at(ref, {"name"})) + unlisted + "secret";
      }
    }
  }
  const auto pullable = names_in(at(account, {"imagePullSecrets"}));
  if (const json& pulls = at(spec, {"imagePullSecrets"}); pulls.is_array())
    for (std::size_t i = 0; i < pulls.size(); ++i)
      if (const std::string name = str(at(pulls[i], {"name"})); !pullable.contains(name))
        return "imagePullSecrets[" + std::to_string(i) + "].name=\"" + name + unlisted + "imagePullSecret";
  return std::nullopt;
}

bool enforces_mountable_secrets(const json& account) {
  const std::string value = str(at(account, {"metadata", "annotations", k_enforce_annotation}));
  return value == "true" || value == "1" || value == "t" || value == "T" || value == "TRUE" || value == "True";
}

// kube's Validate.
registry::ApiResult<void> check(registry::Registry& registry, const registry::AdmissionRequest& r) {
  if (is_mirror_pod(r.object)) {
    if (auto refused = mirror_pod_refusal(r.object)) return std::unexpected(registry::admission_forbidden(r, *refused));
    return {};
  }
  const std::string name = account_name(r.object);
  auto account = find_account(registry, r.namespace_, name);
  if (!account) return std::unexpected(lookup_failed(r, name, account.error()));
  if (enforces_mountable_secrets(*account))
    if (auto refused = unlisted_secret(*account, at(r.object, {"spec"})))
      return std::unexpected(registry::admission_forbidden(r, *refused));
  return {};
}

}  // namespace

registry::AdmissionMutation service_account_mutation(registry::Registry& registry) {
  return [&registry](const registry::AdmissionRequest& r, json& pod) -> registry::ApiResult<void> {
    if (!applies(r)) return {};
    if (is_mirror_pod(pod)) return check(registry, r);
    json& spec = pod["spec"];
    if (!spec.is_object()) return {};  // validation answers
    if (account_name(pod).empty()) spec["serviceAccountName"] = k_default_account;
    kinds::sync_service_account_name(spec);
    const std::string name = account_name(pod);
    auto account = find_account(registry, r.namespace_, name);
    if (!account) return std::unexpected(lookup_failed(r, name, account.error()));
    if (automount(*account, pod)) mount_token(registry, spec);
    if (const json& pulls = at(spec, {"imagePullSecrets"}); !pulls.is_array() || pulls.empty()) {
      json copied = json::array();
      if (const json& theirs = at(*account, {"imagePullSecrets"}); theirs.is_array())
        for (const auto& pull : theirs) copied.push_back({{"name", str(at(pull, {"name"}))}});
      if (copied.empty()) spec.erase("imagePullSecrets");
      else spec["imagePullSecrets"] = std::move(copied);
    }
    return check(registry, r);
  };
}

registry::AdmissionCheck service_account_check(registry::Registry& registry) {
  return [&registry](const registry::AdmissionRequest& r) -> registry::ApiResult<void> {
    if (!applies(r)) return {};
    return check(registry, r);
  };
}

}  // namespace kw::admission
