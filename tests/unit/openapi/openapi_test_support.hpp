#pragma once
// What the OpenAPI tests share: the documents built from the built-in resource table (once
// per test binary), schema lookup in either dialect, and a reader for the v2 protobuf form.
#include <doctest/doctest.h>
#include <google/protobuf/unknown_field_set.h>

#include <string>
#include <string_view>
#include <vector>

#include "server/http/openapi.hpp"
#include "server/registry/kinds/kind_spec.hpp"

namespace kw::http::openapi::test {

using nlohmann::json;

inline const api::ResourceTable& table() {
  static const api::ResourceTable builtin = kinds::builtin_table();
  return builtin;
}

inline const json& core_v3() {
  static const json doc = openapi_v3_document(table(), "api/v1");
  return doc;
}
inline const json& apps_v3() {
  static const json doc = openapi_v3_document(table(), "apis/apps/v1");
  return doc;
}
inline const json& v2() {
  static const json doc = swagger_v2_document(table());
  return doc;
}

// The schema called `name` in a v2 ("definitions") or v3 ("components.schemas") document.
inline const json& schema(const json& doc, const std::string& name) {
  const json& schemas = doc.contains("definitions") ? doc["definitions"] : doc["components"]["schemas"];
  REQUIRE_MESSAGE(schemas.contains(name), name << " is missing");
  return schemas[name];
}

// The length-delimited values of field `number` in protobuf `bytes`.
inline std::vector<std::string> fields(const std::string& bytes, int number) {
  google::protobuf::UnknownFieldSet set;
  REQUIRE(set.ParseFromString(bytes));
  std::vector<std::string> out;
  for (int i = 0; i < set.field_count(); ++i) {
    const auto& field = set.field(i);
    if (field.number() == number && field.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED)
      out.push_back(field.length_delimited());
  }
  return out;
}

// The value of the (name = 1, value = 2) entry called `name` among `entries`.
inline std::string named(const std::vector<std::string>& entries, std::string_view name) {
  for (const auto& entry : entries) {
    const auto names = fields(entry, 1);
    if (!names.empty() && names[0] == name) return fields(entry, 2).at(0);
  }
  FAIL("no entry " << name);
  return "";
}

}  // namespace kw::http::openapi::test
