#include "server/admission/webhooks.hpp"

#include <future>
#include <map>
#include <mutex>
#include <set>

#include "core/codec/json_limits.hpp"
#include "core/util/base64.hpp"
#include "core/util/text.hpp"
#include "core/util/uuid.hpp"
#include "server/admission/equivalents.hpp"
#include "server/admission/lookup.hpp"
#include "server/admission/match_conditions.hpp"
#include "server/admission/webhook_config.hpp"

namespace kw::admission {

using registry::AdmissionRequest;
using registry::ApiError;
using registry::ApiResult;
using registry::internal_error;
using Hooks = std::vector<Webhook>;

struct Webhooks::State {
  State(registry::Registry& r, const auth::Authorizer* a) : registry(r), authorizer(a) {}

  registry::Registry& registry;
  const auth::Authorizer* authorizer;  // what matchConditions' authorizer checks ask
  std::mutex mutex;
  // The webhooks of the stored configurations ([1]: mutating), in kube's order: by
  // configuration name, then their place there.
  std::shared_ptr<const Hooks> hooks[2] = {std::make_shared<Hooks>(), std::make_shared<Hooks>()};

  void rebuild(bool mutating, const ObjectsByName& configurations) {
    auto all = std::make_shared<Hooks>();
    for (const auto& [name, configuration] : configurations) {
      auto hooks_of = read_webhooks(configuration, mutating);
      std::move(hooks_of.begin(), hooks_of.end(), std::back_inserter(*all));
    }
    std::lock_guard lock(mutex);
    hooks[mutating] = std::move(all);
  }

  std::shared_ptr<const Hooks> snapshot(bool mutating) {
    std::lock_guard lock(mutex);
    return hooks[mutating];
  }
};

namespace {

constexpr const char* k_mutation_annotation = "mutation.webhook.admission.k8s.io/";
constexpr const char* k_validation_annotation = "validating.webhook.admission.k8s.io/";

// What calling one webhook came to.
struct Called {
  std::optional<ApiError> refusal;  // the request fails with this, whatever failurePolicy says
  std::string call_failure;         // could not be called or answered nonsense: failurePolicy decides
  bool changed = false;             // a mutating webhook's patch changed the object
};


std::string annotation_key(const char* prefix, bool failed_open, int round, std::size_t index) {
  return std::string(failed_open ? "failed-open." : "") + prefix + "round_" + std::to_string(round) + "_index_" +
         std::to_string(index);
}

// The AdmissionReview a webhook is sent, in the first version it accepts that kw speaks.
std::optional<nlohmann::json> review_for(const Webhook& hook, const AdmissionRequest& request, const std::string& uid) {
  std::string version;
  for (const auto& accepted : hook.review_versions)
    if (accepted == "v1" || accepted == "v1beta1") {
      version = accepted;
      break;
    }
  if (version.empty()) return std::nullopt;
  nlohmann::json body = request_fields(request);
  body["uid"] = uid;
  body["object"] = request.object.is_object() ? request.object : nlohmann::json();
  body["oldObject"] = request.old != nullptr ? *request.old : nlohmann::json();
  return nlohmann::json{{"kind", "AdmissionReview"}, {"apiVersion", "admission.k8s.io/" + version}, {"request", body}};
}

// A webhook's refusal as kube words it (errors.ToStatusErr): the webhook's Status, at least 400.
ApiError refusal(const Webhook& hook, const nlohmann::json& result) {
  const std::string denied = "admission webhook " + util::go_quote(hook.name) + " denied the request";
  const nlohmann::json status = result.is_object() ? result : nlohmann::json::object();
  ApiError error;
  error.code = status.value("code", 0) >= 400 ? status.value("code", 0) : 400;
  error.reason = status.value("reason", std::string());
  const std::string message = status.value("message", std::string());
  if (!message.empty()) error.message = denied + ": " + message;
  else if (!error.reason.empty()) error.message = denied + ": " + error.reason;
  else error.message = denied + " without explanation";
  if (auto details = status.find("details"); details != status.end() && details->is_object()) error.details = *details;
  return error;
}

// The answer's `response`, checked as kube checks it (VerifyAdmissionResponse); the failure
// is worded after kube's "received invalid webhook response: ".
Result<nlohmann::json> verified_response(const Webhook& hook, const nlohmann::json& sent, const nlohmann::json& answer,
                                         const std::string& uid) {
  const bool v1 = sent["apiVersion"] == "admission.k8s.io/v1";
  auto response = answer.find("response");
  if (response == answer.end() || !response->is_object()) return fail("webhook response was absent");
  if (v1) {
    const std::string got = response->value("uid", std::string());
    if (got != uid) return fail("expected response.uid=" + util::go_quote(uid) + ", got " + util::go_quote(got));
    const std::string api_version = answer.value("apiVersion", std::string());
    const std::string kind = answer.value("kind", std::string());
    if (api_version != "admission.k8s.io/v1" || kind != "AdmissionReview")
      return fail("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got " +
                  api::go_group_version_kind(api_version, kind));
  }
  const bool has_patch = !response->value("patch", std::string()).empty();
  const bool has_type = response->contains("patchType") && !(*response)["patchType"].is_null();
  if (hook.mutating && v1) {
    if (has_patch && !has_type) return fail("webhook returned response.patch but not response.patchType");
    if (!has_patch && has_type) return fail("webhook returned response.patchType but not response.patch");
    if (has_type && (*response)["patchType"] == "")
      return fail("webhook returned invalid response.patchType of \"\"");
  } else if (!hook.mutating) {
    if (has_patch) return fail("validating webhook may not return response.patch");
    if (has_type) return fail("validating webhook may not return response.patchType");
  }
  return *response;
}

// Calls one webhook about the request. A mutating webhook's patch is applied to `object`.
Called call_webhook(registry::Registry& registry, const Webhook& hook, const AdmissionRequest& request,
                    nlohmann::json* object) {
  Called called;
  if (request.dry_run && hook.side_effects != "None" && hook.side_effects != "NoneOnDryRun") {
    if (hook.side_effects.empty()) called.call_failure = "Webhook SideEffects is nil";
    else
      called.refusal = registry::bad_request("admission webhook " + util::go_quote(hook.name) +
                                             " does not support dry run");
    return called;
  }
  const std::string uid = util::new_uuid();
  auto sent = review_for(hook, request, uid);
  if (!sent) {
    called.call_failure =
        "could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)";
    return called;
  }
  auto body = registry::post_to_webhook(registry, hook.client, hook.timeout, "kube-apiserver-admission", sent->dump());
  if (!body) {
    called.call_failure = "failed to call webhook: " + body.error().message;
    return called;
  }
  auto answer = codec::parse_json(*body);
  if (!answer || !answer->is_object()) {
    called.call_failure = "failed to call webhook: couldn't get version/kind; json parse error: " +
                          (answer ? std::string("the answer is not a JSON object") : answer.error().message);
    return called;
  }
  auto response = verified_response(hook, *sent, *answer, uid);
  if (!response) {
    called.call_failure = "received invalid webhook response: " + response.error().message;
    return called;
  }
  if (auto annotations = response->find("auditAnnotations"); annotations != response->end() && annotations->is_object())
    for (const auto& [key, value] : annotations->items())
      if (value.is_string()) request.add_audit_annotation(hook.name + "/" + key, value.get<std::string>());
  if (request.warnings != nullptr)
    for (const auto& warning : response->value("warnings", nlohmann::json::array()))
      if (warning.is_string()) request.warnings->push_back(warning.get<std::string>());
  if (response->value("allowed", false) != true) {
    called.refusal = refusal(hook, response->value("status", nlohmann::json()));
    return called;
  }
  const std::string encoded = response->value("patch", std::string());
  if (!hook.mutating || encoded.empty()) return called;
  auto decoded = util::base64_decode(encoded);
  if (!decoded) {
    called.call_failure = "failed to call webhook: illegal base64 data in response.patch";
    return called;
  }
  auto patch = codec::parse_json(*decoded);
  if (!patch || !patch->is_array()) {
    called.refusal = internal_error(patch ? "a JSON patch must be an array of operations" : patch.error().message);
    return called;
  }
  if (patch->empty()) return called;
  if (object == nullptr || !object->is_object()) {
    called.refusal = internal_error("admission webhook " + util::go_quote(hook.name) +
                                    " attempted to modify the object, which is not supported for this operation");
    return called;
  }
  nlohmann::json patched;
  try {
    patched = object->patch(*patch);
  } catch (const nlohmann::json::exception& e) {
    called.refusal = internal_error(e.what());
    return called;
  }
  auto redecoded = registry.decode_patched(request.info, std::move(patched));
  if (!redecoded) {
    called.refusal = internal_error(redecoded.error().message);
    return called;
  }
  called.changed = *redecoded != *object;
  *object = std::move(*redecoded);
  return called;
}

// Whether the webhook is called about the request, and as which resource (kube's
// ShouldCallHook): its rules under its matchPolicy, then its selectors; null when it is not.
ApiResult<const api::ResourceInfo*> invoked_as(const Webhooks::State& state, const Webhook& hook,
                                               const AdmissionRequest& request, EquivalentResources& equivalents) {
  const api::ResourceInfo* as = rules_match(hook, request, equivalents);
  if (as == nullptr) return nullptr;
  if (!hook.selector_error.empty()) return std::unexpected(internal_error(hook.selector_error));
  if (!object_selected(hook.object_selector, request)) return nullptr;
  auto selected = namespace_selected(state.registry, hook.namespace_selector, request);
  if (!selected) return std::unexpected(selected.error());
  return *selected ? as : nullptr;
}

// Whether the webhook's matchConditions hold for the request as the webhook sees it (`seen`);
// their errors fail the request (403) under failurePolicy Fail and skip the webhook under Ignore.
ApiResult<bool> conditions_hold(const Webhooks::State& state, const Webhook& hook, const AdmissionRequest& request,
                                const AdmissionRequest& seen) {
  if (hook.match_conditions.empty()) return true;
  const MatchResult matched = evaluate_match_conditions(hook.match_conditions, seen, state.authorizer);
  if (!matched.error.empty() && hook.fail_closed)
    return std::unexpected(registry::admission_forbidden(request, matched.error));
  return matched.matches;
}

ApiResult<void> run_mutating(Webhooks::State& state, const AdmissionRequest& request, nlohmann::json& object) {
  const auto hooks = state.snapshot(true);
  if (hooks->empty()) return {};
  EquivalentResources equivalents(state.registry, request);
  std::set<std::string> invoked_reinvocable;  // IfNeeded webhooks called since the last change
  std::set<std::string> reinvoke;             // those to call again in round 1
  bool any_change = false;
  for (int round = 0; round < 2; ++round) {
    if (round == 1 && (!any_change || reinvoke.empty())) break;
    for (std::size_t i = 0; i < hooks->size(); ++i) {
      const auto& hook = (*hooks)[i];
      auto as = invoked_as(state, hook, request, equivalents);
      if (!as) return std::unexpected(as.error());
      if (*as == nullptr) continue;
      // An equivalent resource's webhook sees the object as it is now, at that version.
      std::unique_ptr<SeenAs> converted;
      auto seen = as_matched(state.registry, request, **as, converted);
      if (!seen) return std::unexpected(seen.error());
      auto holds = conditions_hold(state, hook, request, **seen);
      if (!holds) return std::unexpected(holds.error());
      if (!*holds || (round == 1 && !reinvoke.contains(hook.uid))) continue;
      nlohmann::json* target = request.operation == "DELETE" ? nullptr : converted ? &converted->object() : &object;
      const Called called = call_webhook(state.registry, hook, **seen, target);
      if (called.changed && converted) {  // the patched object, back at the request's version
        auto back = state.registry.convert_equivalent(**as, request.info, converted->object());
        if (!back) return std::unexpected(back.error());
        object = std::move(*back);
      }
      request.add_audit_annotation(annotation_key(k_mutation_annotation, false, round, i),
               nlohmann::json{{"configuration", hook.configuration}, {"webhook", hook.name}, {"mutated", called.changed}}
                   .dump());
      if (called.changed) {
        any_change = true;
        reinvoke.insert(invoked_reinvocable.begin(), invoked_reinvocable.end());
        invoked_reinvocable.clear();
      }
      if (hook.reinvoke_if_needed) invoked_reinvocable.insert(hook.uid);
      if (called.refusal) return std::unexpected(*called.refusal);
      if (called.call_failure.empty()) continue;
      if (hook.fail_closed)
        return std::unexpected(
            internal_error("failed calling webhook " + util::go_quote(hook.name) + ": " + called.call_failure));
      request.add_audit_annotation(annotation_key(k_mutation_annotation, true, round, i), hook.name);
    }
  }
  return {};
}

ApiResult<void> run_validating(Webhooks::State& state, const AdmissionRequest& request) {
  const auto hooks = state.snapshot(false);
  EquivalentResources equivalents(state.registry, request);
  std::map<const api::ResourceInfo*, std::unique_ptr<SeenAs>> converted;     // once per equivalent resource
  std::vector<std::pair<const Webhook*, const AdmissionRequest*>> relevant;  // each with the request it sees
  for (const auto& hook : *hooks) {
    auto as = invoked_as(state, hook, request, equivalents);
    if (!as) return std::unexpected(as.error());
    if (*as == nullptr) continue;
    auto seen = as_matched(state.registry, request, **as, converted[*as]);
    if (!seen) return std::unexpected(seen.error());
    auto holds = conditions_hold(state, hook, request, **seen);
    if (!holds) return std::unexpected(holds.error());
    if (*holds) relevant.emplace_back(&hook, *seen);
  }
  if (relevant.empty()) return {};
  // Side by side: the first on this thread, the others on their own.
  std::vector<std::future<Called>> others;
  for (std::size_t i = 1; i < relevant.size(); ++i)
    others.push_back(std::async(std::launch::async, [&state, called = relevant[i]] {
      return call_webhook(state.registry, *called.first, *called.second, nullptr);
    }));
  std::vector<Called> outcomes;
  outcomes.push_back(call_webhook(state.registry, *relevant[0].first, *relevant[0].second, nullptr));
  for (auto& other : others) outcomes.push_back(other.get());
  std::optional<ApiError> first;
  for (std::size_t i = 0; i < relevant.size(); ++i) {
    const auto& hook = *relevant[i].first;
    auto& called = outcomes[i];
    std::optional<ApiError> error = std::move(called.refusal);
    if (!error && !called.call_failure.empty()) {
      if (hook.fail_closed)
        error = internal_error("failed calling webhook " + util::go_quote(hook.name) + ": " + called.call_failure);
      else request.add_audit_annotation(annotation_key(k_validation_annotation, true, 0, i), hook.name);
    }
    if (error && !first) first = std::move(error);
  }
  if (first) return std::unexpected(*first);
  return {};
}

}  // namespace

Result<std::unique_ptr<Webhooks>> Webhooks::start(registry::Registry& registry, const auth::Authorizer* authorizer) {
  auto state = std::make_shared<State>(registry, authorizer);
  std::unique_ptr<Webhooks> webhooks(new Webhooks(state));
  for (const bool mutating : {true, false}) {
    const char* plural = mutating ? "mutatingwebhookconfigurations" : "validatingwebhookconfigurations";
    auto informer = follow_by_name(registry, "admissionregistration.k8s.io", "v1", plural,
                                   [state, mutating](const ObjectsByName& all) { state->rebuild(mutating, all); });
    if (!informer) return fail(informer.error().message);
    webhooks->m_informers.push_back(std::move(*informer));
  }
  return webhooks;
}

Webhooks::~Webhooks() = default;

registry::AdmissionMutation Webhooks::mutation() const {
  return [state = m_state](const AdmissionRequest& request, nlohmann::json& object) {
    return run_mutating(*state, request, object);
  };
}

registry::AdmissionCheck Webhooks::check() const {
  return [state = m_state](const AdmissionRequest& request) { return run_validating(*state, request); };
}

}  // namespace kw::admission
