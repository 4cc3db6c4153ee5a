#pragma once
// The REST verbs on a served resource, one handler per verb, and the dispatch from a request
// to its handler: the verb for the resource itself, or the handler of a subresource the
// kind's row names (status, scale).
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/http/handlers/request.hpp"
#include "server/http/patch.hpp"

namespace kw::http::handlers {

// Answers a resource request whose resource the table serves.
void serve(const ResourceRequest& r, const WatchSettings& settings);

// The verbs a subresource takes, sorted (what discovery lists); none for an unknown one.
std::vector<std::string> subresource_verbs(std::string_view subresource);

void get(const ResourceRequest& r);
void list(const ResourceRequest& r);
void create(const ResourceRequest& r);
void update(const ResourceRequest& r);
void patch(const ResourceRequest& r);
void remove(const ResourceRequest& r);
void remove_collection(const ResourceRequest& r);
void watch(const ResourceRequest& r, const WatchSettings& settings);

// The scale subresource: the object seen as an autoscaling/v1 Scale.
void get_scale(const ResourceRequest& r);
void update_scale(const ResourceRequest& r);
void patch_scale(const ResourceRequest& r);

// The kinds that are answered instead of stored: TokenReview, SelfSubjectReview and the
// access reviews (create only), and v1 Binding (POST bindings or pods/{name}/binding).
void review(const ResourceRequest& r);
void bind(const ResourceRequest& r);
// POST pods/{name}/eviction.
void evict(const ResourceRequest& r);
// serviceaccounts/{name}/token: an authentication.k8s.io/v1 TokenRequest answered with a
// bound token for the ServiceAccount (optionally bound to a Pod or Secret).
void request_token(const ResourceRequest& r);
// v1 ComponentStatus (get, list): the health of the store, the scheduler and the
// controller-manager, probed when asked.
void get_component_status(const ResourceRequest& r);
void list_component_statuses(const ResourceRequest& r);

// The patch type of a PATCH's Content-Type; answers 415 itself and returns nullopt for a type
// that is not offered (strategic merge needs merge keys).
std::optional<PatchType> requested_patch_type(const ResourceRequest& r, bool strategic);
// The change a PATCH body of `type` (not apply) makes to the current object.
using Mutation = std::function<registry::ApiResult<nlohmann::json>(const nlohmann::json&)>;
std::optional<Mutation> patch_mutation(const ResourceRequest& r, PatchType type);
// PATCH with application/apply-patch+yaml: the body applied by fieldManager (to the
// subresource the request names), answered 201 when it created the object, else 200.
void server_side_apply(const ResourceRequest& r, WriteContext& write);

}  // namespace kw::http::handlers
