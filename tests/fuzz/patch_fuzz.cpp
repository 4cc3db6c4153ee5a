// The server's PATCH bodies (server/http/patch.hpp) on arbitrary documents: JSON merge patch,
// JSON patch and strategic merge patch, with the bounds the server applies. Nothing may crash;
// a failed patch is answered with a status the server can send, and a merge patch applied
// twice changes nothing the second time (RFC 7386 patches are idempotent).
//
// Input: byte 0 picks the patch type (low 2 bits) and a kind for a target without
// apiVersion/kind (the rest); then the target JSON, a 0 byte, and the patch body.
#include <array>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/codec/json_limits.hpp"
#include "server/http/patch.hpp"

namespace {

using nlohmann::json;
using kw::http::PatchType;

// The strategic merge schema comes from the target's apiVersion and kind.
constexpr std::pair<std::string_view, std::string_view> k_kinds[] = {
    {"v1", "Pod"},          {"apps/v1", "Deployment"}, {"v1", "Service"},
    {"v1", "ConfigMap"},    {"v1", "Node"},            {"apiextensions.k8s.io/v1", "CustomResourceDefinition"},
    {"batch/v1", "CronJob"}, {"example.com/v1", "Widget"},
};

void check(bool ok) {
  if (!ok) std::abort();
}

bool answerable(int code) { return code == 400 || code == 413 || code == 422 || code == 500; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto split = input.find('\0');
  if (split == std::string_view::npos) return 0;
  auto target = kw::codec::parse_json(input.substr(0, split));
  if (!target) return 0;
  if (target->is_object() && !target->contains("kind")) {
    const auto& [api_version, kind] = k_kinds[(data[0] >> 2) % std::size(k_kinds)];
    (*target)["apiVersion"] = api_version;
    (*target)["kind"] = kind;
  }
  const std::string body(input.substr(split + 1));
  const PatchType type = std::array{PatchType::merge, PatchType::json, PatchType::strategic, PatchType::merge}[data[0] & 3];

  auto patched = kw::http::apply_patch(*target, body, type);
  if (!patched) {
    check(answerable(patched.error().code) && !patched.error().message.empty());
    return 0;
  }
  (void)patched->dump();
  if (type == PatchType::merge) {
    auto twice = kw::http::apply_patch(*patched, body, type);
    check(twice && *twice == *patched);
  }
  return 0;
}
