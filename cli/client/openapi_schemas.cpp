#include "cli/client/openapi_schemas.hpp"

#include <algorithm>
#include <map>

#include "core/util/text.hpp"

namespace kw::cli {

using api::at;
using api::str;
using nlohmann::json;

VerbResult<json> openapi_v3_document(ApiClient& api, const std::string& group, const std::string& version) {
  const std::string group_version = group.empty() ? "api/" + version : "apis/" + group + "/" + version;
  auto index = call_json(api, "GET", "/openapi/v3", {}, {});
  if (!index) return index;
  const std::string url = str(at(*index, {"paths", group_version, "serverRelativeURL"}));
  if (url.empty()) return json();
  return call_json(api, "GET", url, {}, {});
}

Schemas::Schemas(const json& document) : m_schemas(at(document, {"components", "schemas"})) {}

const json& Schemas::resolve(const std::string& ref) const {
  static const json k_null;
  constexpr std::string_view k_prefix = "#/components/schemas/";
  if (!ref.starts_with(k_prefix)) return k_null;
  return at(m_schemas, {std::string_view(ref).substr(k_prefix.size())});
}

const json& Schemas::resolved(const json& schema) const {
  const json& target = resolve(str(at(schema, {"$ref"})));
  return target.is_null() ? schema : target;
}

const json* Schemas::of_kind(const std::string& group, const std::string& version, const std::string& kind,
                             std::string* name) const {
  if (!m_schemas.is_object()) return nullptr;
  for (const auto& [key, schema] : m_schemas.items())
    for (const json& gvk : at(schema, {"x-kubernetes-group-version-kind"}))
      if (str(at(gvk, {"group"})) == group && str(at(gvk, {"version"})) == version && str(at(gvk, {"kind"})) == kind) {
        if (name != nullptr) *name = key;
        return &schema;
      }
  return nullptr;
}

std::string Schemas::type_guess(const json& schema) const {
  if (schema.contains("items")) return "[]" + type_guess(schema["items"]);
  if (is_map(schema)) return "map[string]" + type_guess(schema["additionalProperties"]);
  const json& all_of = at(schema, {"allOf"});
  if (all_of.is_array() && all_of.size() == 1 && at(schema, {"properties"}).is_null()) return type_guess(all_of[0]);
  if (const std::string ref = str(at(schema, {"$ref"})); !ref.empty()) {
    const json& target = resolve(ref);
    const std::string type = str(at(target, {"type"}));
    if (target.is_null() || type.empty() || type == "object") {
      const std::string name = ref.substr(ref.rfind('/') + 1);
      const std::string last = name.substr(name.rfind('.') + 1);
      return last.empty() ? "Object" : last;
    }
    return type;
  }
  const std::string type = str(at(schema, {"type"}));
  return type.empty() || type == "object" ? "Object" : type;
}

std::string Schemas::description(const json& schema) const {
  const json& own = resolved(schema);
  std::string out;
  if (const std::string text = str(at(own, {"description"})); !text.empty()) out += text + "\n";
  for (const json& part : at(own, {"allOf"})) out += description(part);
  if (own.contains("items")) out += description(own["items"]);
  if (is_map(own)) out += description(own["additionalProperties"]);
  return out;
}

namespace {

// The schema a field's schema stands for, and its name when it names one: through $ref and a
// single allOf.
const json& target_of(const Schemas& schemas, const json& schema, std::string& name) {
  const json* current = &schema;
  for (int depth = 0; depth < 8; ++depth) {
    if (const std::string ref = str(at(*current, {"$ref"})); !ref.empty()) {
      name = ref.substr(ref.rfind('/') + 1);
      current = &schemas.resolve(ref);
      continue;
    }
    const json& all_of = at(*current, {"allOf"});
    if (all_of.is_array() && all_of.size() == 1 && at(*current, {"properties"}).is_null()) {
      current = &all_of[0];
      continue;
    }
    break;
  }
  return *current;
}

void collect_unknown(const Schemas& schemas, const json& schema, std::string name, const json& value,
                     const std::string& path, std::vector<std::string>& out) {
  const json& own = target_of(schemas, schema, name);
  if (own.is_null() || at(own, {"x-kubernetes-preserve-unknown-fields"}) == true) return;
  if (value.is_array() && own.contains("items")) {
    for (std::size_t i = 0; i < value.size(); ++i)
      collect_unknown(schemas, own["items"], {}, value[i], path + "[" + std::to_string(i) + "]", out);
    return;
  }
  if (!value.is_object()) return;
  if (is_map(own)) {
    for (const auto& [key, item] : value.items())
      collect_unknown(schemas, own["additionalProperties"], {}, item, path + "." + key, out);
    return;
  }
  const json& properties = at(own, {"properties"});
  if (!properties.is_object()) return;
  for (const auto& [key, item] : value.items()) {
    const auto field = properties.find(key);
    if (field == properties.end()) out.push_back("ValidationError(" + path + "): unknown field " + util::go_quote(key) + " in " + name);
    else collect_unknown(schemas, *field, {}, item, path + "." + key, out);
  }
}

}  // namespace

std::vector<std::string> unknown_fields(const Schemas& schemas, const json& schema, const json& object,
                                        const std::string& kind, const std::string& name) {
  std::vector<std::string> out;
  collect_unknown(schemas, schema, name, object, kind, out);
  return out;
}

std::string unknown_fields_problem(ApiClient& api, const std::vector<json>& objects) {
  std::map<std::string, json> documents;  // by apiVersion
  std::vector<std::string> problems;
  for (const json& object : objects) {
    const std::string api_version = str(at(object, {"apiVersion"}));
    const auto slash = api_version.find('/');
    const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
    const std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
    auto [entry, added] = documents.try_emplace(api_version);
    if (added)
      if (auto document = openapi_v3_document(api, group, version); document) entry->second = std::move(*document);
    const Schemas schemas(entry->second);
    std::string name;
    const std::string kind = str(at(object, {"kind"}));
    const json* schema = schemas.of_kind(group, version, kind, &name);
    if (schema == nullptr) continue;
    for (auto& problem : unknown_fields(schemas, *schema, object, kind, name))
      if (std::ranges::find(problems, problem) == problems.end()) problems.push_back(std::move(problem));
  }
  if (problems.size() == 1) return problems.front();
  std::string out;
  for (const auto& problem : problems) out += (out.empty() ? "[" : ", ") + problem;
  return out.empty() ? out : out + "]";
}

}  // namespace kw::cli
