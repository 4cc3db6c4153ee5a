// Swagger 2.0 in the protobuf form client-go asks for first
// (application/com.github.proto-openapi.spec.v2@v1.0+protobuf): the messages of
// package openapi.v2 (gnostic), written field by field from the JSON document.
// Vendor extensions travel as Any{yaml}; JSON text is valid YAML.
#include <cstdint>
#include <cstring>
#include <string>

#include "core/api/json_access.hpp"
#include "server/http/openapi_build.hpp"

namespace kw::http::openapi {
namespace {

using nlohmann::json;

class Writer {
 public:
  void text(int field, std::string_view value) {
    if (value.empty()) return;
    bytes(field, value);
  }
  void flag(int field, bool value) {
    if (!value) return;
    key(field, 0);
    varint(1);
  }
  // A nested message, written even when empty (its presence can matter: oneof members).
  void message(int field, const Writer& nested) { bytes(field, nested.m_out); }
  void int64(int field, std::int64_t value) {
    if (value == 0) return;
    key(field, 0);
    varint(static_cast<std::uint64_t>(value));
  }
  void float64(int field, double value) {
    if (value == 0) return;
    key(field, 1);
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    for (int i = 0; i < 8; ++i) m_out.push_back(static_cast<char>(bits >> (8 * i)));
  }
  const std::string& bytes() const { return m_out; }

 private:
  void bytes(int field, std::string_view value) {
    key(field, 2);
    varint(value.size());
    m_out.append(value);
  }
  void key(int field, int wire_type) {
    varint(static_cast<std::uint64_t>(field) << 3 | static_cast<unsigned>(wire_type));
  }
  void varint(std::uint64_t value) {
    while (value >= 0x80) {
      m_out.push_back(static_cast<char>(value | 0x80));
      value >>= 7;
    }
    m_out.push_back(static_cast<char>(value));
  }

  std::string m_out;
};

// Any{yaml}: a value as YAML text (JSON is YAML).
Writer any_value(const json& value) {
  Writer any;
  any.text(2, value.dump());
  return any;
}

// NamedAny{name, Any{yaml}} for every "x-..." key of `object`.
void vendor_extensions(const json& object, int field, Writer& out) {
  for (const auto& [key, value] : object.items()) {
    if (!key.starts_with("x-")) continue;
    Writer named;
    named.text(1, key);
    named.message(2, any_value(value));
    out.message(field, named);
  }
}

Writer schema(const json& s) {
  Writer out;
  out.text(1, api::text(s, "$ref"));
  out.text(2, api::text(s, "format"));
  out.text(3, api::text(s, "title"));
  out.text(4, api::text(s, "description"));
  if (const auto value = s.find("default"); value != s.end()) out.message(5, any_value(*value));
  // The validations a custom resource's schema may carry.
  const auto number = [&s](const char* name) { return s.contains(name) && s[name].is_number() ? s[name].get<double>() : 0.0; };
  const auto count = [&s](const char* name) {
    return s.contains(name) && s[name].is_number_integer() ? s[name].get<std::int64_t>() : std::int64_t{0};
  };
  out.float64(6, number("multipleOf"));
  out.float64(7, number("maximum"));
  out.flag(8, s.value("exclusiveMaximum", false));
  out.float64(9, number("minimum"));
  out.flag(10, s.value("exclusiveMinimum", false));
  out.int64(11, count("maxLength"));
  out.int64(12, count("minLength"));
  out.text(13, api::text(s, "pattern"));
  out.int64(14, count("maxItems"));
  out.int64(15, count("minItems"));
  out.flag(16, s.value("uniqueItems", false));
  out.int64(17, count("maxProperties"));
  out.int64(18, count("minProperties"));
  for (const auto& name : api::at(s, {"required"})) out.text(19, name.get<std::string>());
  for (const auto& value : api::at(s, {"enum"})) out.message(20, any_value(value));
  if (const auto extra = s.find("additionalProperties"); extra != s.end()) {
    Writer item;
    if (extra->is_boolean())
      item.flag(2, extra->get<bool>());
    else
      item.message(1, schema(*extra));
    out.message(21, item);
  }
  if (const auto type = api::text(s, "type"); !type.empty()) {
    Writer item;
    item.text(1, type);
    out.message(22, item);
  }
  if (const auto items = s.find("items"); items != s.end()) {
    Writer item;
    item.message(1, schema(*items));
    out.message(23, item);
  }
  if (const auto properties = s.find("properties"); properties != s.end()) {
    Writer list;
    for (const auto& [name, property] : properties->items()) {
      Writer named;
      named.text(1, name);
      named.message(2, schema(property));
      list.message(1, named);
    }
    out.message(25, list);
  }
  vendor_extensions(s, 31, out);
  return out;
}

// ParametersItem{Parameter{body | NonBodyParameter{query | path}}}.
Writer parameter(const json& p) {
  const std::string in = api::text(p, "in");
  Writer param;
  if (in == "body") {
    Writer body;
    body.text(1, api::text(p, "description"));
    body.text(2, api::text(p, "name"));
    body.text(3, in);
    body.flag(4, p.value("required", false));
    body.message(5, schema(api::at(p, {"schema"})));
    param.message(1, body);
  } else {
    const bool path = in == "path";
    Writer sub;
    sub.flag(1, p.value("required", false));
    sub.text(2, in);
    sub.text(3, api::text(p, "description"));
    sub.text(4, api::text(p, "name"));
    sub.text(path ? 5 : 6, api::text(p, "type"));
    sub.flag(path ? 19 : 20, p.value("uniqueItems", false));
    Writer non_body;
    non_body.message(path ? 4 : 3, sub);
    param.message(2, non_body);
  }
  Writer item;
  item.message(1, param);
  return item;
}

Writer operation(const json& op) {
  Writer out;
  for (const auto& tag : api::at(op, {"tags"})) out.text(1, tag.get<std::string>());
  out.text(3, api::text(op, "description"));
  out.text(5, api::text(op, "operationId"));
  for (const auto& type : api::at(op, {"produces"})) out.text(6, type.get<std::string>());
  for (const auto& type : api::at(op, {"consumes"})) out.text(7, type.get<std::string>());
  for (const auto& p : api::at(op, {"parameters"})) out.message(8, parameter(p));
  Writer responses;
  for (const auto& [code, response] : api::at(op, {"responses"}).items()) {
    Writer body;
    body.text(1, api::text(response, "description"));
    if (const auto s = response.find("schema"); s != response.end()) {
      Writer item;
      item.message(1, schema(*s));
      body.message(2, item);
    }
    Writer value;
    value.message(1, body);
    Writer named;
    named.text(1, code);
    named.message(2, value);
    responses.message(1, named);
  }
  out.message(9, responses);
  for (const auto& scheme : api::at(op, {"schemes"})) out.text(10, scheme.get<std::string>());
  vendor_extensions(op, 13, out);
  return out;
}

Writer path_item(const json& item) {
  constexpr std::pair<const char*, int> k_methods[] = {
      {"get", 2}, {"put", 3}, {"post", 4}, {"delete", 5}, {"patch", 8}};
  Writer out;
  for (const auto& [method, field] : k_methods) {
    if (const auto op = item.find(method); op != item.end()) out.message(field, operation(*op));
  }
  for (const auto& p : api::at(item, {"parameters"})) out.message(9, parameter(p));
  return out;
}

Writer security_definitions(const json& definitions) {
  Writer out;
  for (const auto& [name, definition] : definitions.items()) {
    Writer api_key;
    api_key.text(1, api::text(definition, "type"));
    api_key.text(2, api::text(definition, "name"));
    api_key.text(3, api::text(definition, "in"));
    api_key.text(4, api::text(definition, "description"));
    Writer item;
    item.message(2, api_key);
    Writer named;
    named.text(1, name);
    named.message(2, item);
    out.message(1, named);
  }
  return out;
}

}  // namespace

std::string swagger_v2_protobuf(const json& document) {
  Writer out;
  out.text(1, api::text(document, "swagger"));
  Writer info;
  info.text(1, api::text(document["info"], "title"));
  info.text(2, api::text(document["info"], "version"));
  out.message(2, info);
  Writer paths;
  for (const auto& [path, item] : document["paths"].items()) {
    Writer named;
    named.text(1, path);
    named.message(2, path_item(item));
    paths.message(2, named);
  }
  out.message(8, paths);
  Writer definitions;
  for (const auto& [name, s] : document["definitions"].items()) {
    Writer named;
    named.text(1, name);
    named.message(2, schema(s));
    definitions.message(1, named);
  }
  out.message(9, definitions);
  for (const auto& requirement : api::at(document, {"security"})) {
    Writer entry;
    for (const auto& [name, scopes] : requirement.items()) {
      Writer values;
      for (const auto& scope : scopes) values.text(1, scope.get<std::string>());
      Writer named;
      named.text(1, name);
      named.message(2, values);
      entry.message(1, named);
    }
    out.message(12, entry);
  }
  out.message(13, security_definitions(api::at(document, {"securityDefinitions"})));
  return out.bytes();
}

}  // namespace kw::http::openapi
