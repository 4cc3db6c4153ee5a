#pragma once
// The server's OpenAPI v3 schemas as the client reads them (explain, edit's check of a List):
// one group version's document, its $refs resolved, a kind's schema found by
// x-kubernetes-group-version-kind, and the fields an object has that its schema does not.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/client/api.hpp"
#include "cli/commands/common.hpp"
#include "core/api/json_access.hpp"

namespace kw::cli {

// The OpenAPI v3 document of a group version ("" group: the core API), through the
// /openapi/v3 index; null when the index lists none.
VerbResult<nlohmann::json> openapi_v3_document(ApiClient& api, const std::string& group, const std::string& version);

// A map schema: additionalProperties holding a schema (not true/false).
inline bool is_map(const nlohmann::json& schema) {
  return api::at(schema, {"additionalProperties"}).is_object();
}

// The schemas of one OpenAPI document, with its $refs resolved. The document must outlive it.
class Schemas {
 public:
  explicit Schemas(const nlohmann::json& document);

  // The schema "#/components/schemas/NAME" names, or null.
  const nlohmann::json& resolve(const std::string& ref) const;
  // `schema`, or what its $ref names when it has one.
  const nlohmann::json& resolved(const nlohmann::json& schema) const;
  // The schema of group/version/kind (its x-kubernetes-group-version-kind lists it), or null;
  // `name` gets its name in the document when given.
  const nlohmann::json* of_kind(const std::string& group, const std::string& version, const std::string& kind,
                                std::string* name = nullptr) const;
  // kubectl's type hint: string, integer, Object, []Container, map[string]string...
  std::string type_guess(const nlohmann::json& schema) const;
  // The description of a schema and of what it is made of (its $ref, allOf, items, map values),
  // each ending in a newline.
  std::string description(const nlohmann::json& schema) const;

 private:
  const nlohmann::json& m_schemas;
};

// kubectl's client-side validation of unknown fields (its v2 validator's wording): one
// "ValidationError(PATH): unknown field \"NAME\" in SCHEMA" for each field of `object` that
// its schema does not declare, PATH starting at `kind` ("Pod.spec.containers[0]").
// `name` is the schema's name in the document (of_kind gives it).
std::vector<std::string> unknown_fields(const Schemas& schemas, const nlohmann::json& schema,
                                        const nlohmann::json& object, const std::string& kind, const std::string& name);

// kubectl's client-side check of objects the server's fieldValidation does not see (the items
// of a List) against the server's OpenAPI v3 schemas: their unknown fields, each message once,
// as Go prints an aggregate ("ONE" or "[ONE, TWO]"); "" when there are none.
std::string unknown_fields_problem(ApiClient& api, const std::vector<nlohmann::json>& objects);

}  // namespace kw::cli
