// Schema types and Kubernetes' property-name escaping.
#include "core/cel/schema.hpp"

#include <set>

#include "core/cel/cel.hpp"

namespace kw::cel {

namespace {

using Json = nlohmann::json;
using SchemaKind = SchemaType::Kind;

const std::set<std::string_view, std::less<>> k_escaped_words = {
    "true", "false", "null", "in", "as", "break", "const", "continue", "else", "for",
    "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void",
    "while"};

bool ident_char(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

std::string string_of(const Json& schema, const char* key) {
  auto it = schema.find(key);
  return it != schema.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool flag(const Json& schema, const char* key) {
  auto it = schema.find(key);
  return it != schema.end() && it->is_boolean() && it->get<bool>();
}

std::optional<std::uint64_t> bound(const Json& schema, const char* key) {
  auto it = schema.find(key);
  if (it == schema.end() || !it->is_number_integer() || it->get<std::int64_t>() < 0) {
    return std::nullopt;
  }
  return it->get<std::uint64_t>();
}

SchemaKind string_kind(const Json& schema) {
  std::string format = string_of(schema, "format");
  if (format == "byte") return SchemaKind::bytes;
  if (format == "duration") return SchemaKind::duration;
  if (format == "date" || format == "date-time") return SchemaKind::timestamp;
  return SchemaKind::string;
}

std::shared_ptr<SchemaType> leaf(SchemaKind kind) {
  auto t = std::make_shared<SchemaType>();
  t->kind = kind;
  return t;
}

void add_field(SchemaType& object, const std::string& json_name,
               std::shared_ptr<const SchemaType> type) {
  auto escaped = escape_property(json_name);
  if (!type || !escaped) return;
  object.by_json_name[json_name] = type.get();
  object.fields[*escaped] = SchemaType::Field{json_name, std::move(type)};
}

// apiVersion, kind, metadata.name and metadata.generateName, when the schema lacks them.
void add_resource_fields(SchemaType& object) {
  if (!object.fields.contains("apiVersion")) add_field(object, "apiVersion", leaf(SchemaKind::string));
  if (!object.fields.contains("kind")) add_field(object, "kind", leaf(SchemaKind::string));
  auto it = object.fields.find("metadata");
  auto metadata = it != object.fields.end() && it->second.type->kind == SchemaKind::object
                      ? std::make_shared<SchemaType>(*it->second.type)
                      : leaf(SchemaKind::object);
  if (!metadata->fields.contains("name")) add_field(*metadata, "name", leaf(SchemaKind::string));
  if (!metadata->fields.contains("generateName")) {
    add_field(*metadata, "generateName", leaf(SchemaKind::string));
  }
  add_field(object, "metadata", std::move(metadata));
}

std::shared_ptr<const SchemaType> object_type(const Json& schema, bool resource_root) {
  auto additional = schema.find("additionalProperties");
  if (additional != schema.end() && additional->is_object()) {
    auto element = schema_type(*additional, flag(*additional, "x-kubernetes-embedded-resource"));
    if (!element) return nullptr;
    auto t = leaf(SchemaKind::map);
    t->element = std::move(element);
    t->max_size = bound(schema, "maxProperties");
    return t;
  }
  auto t = leaf(SchemaKind::object);
  t->open = flag(schema, "x-kubernetes-preserve-unknown-fields") ||
            (additional != schema.end() && additional->is_boolean() && additional->get<bool>());
  t->max_size = bound(schema, "maxProperties");
  auto properties = schema.find("properties");
  if (properties != schema.end() && properties->is_object()) {
    for (const auto& [name, property] : properties->items()) {
      add_field(*t, name,
                schema_type(property, flag(property, "x-kubernetes-embedded-resource")));
    }
  } else if (!resource_root) {
    t->open = t->open || !schema.contains("type");
  }
  if (resource_root) add_resource_fields(*t);
  return t;
}

}  // namespace

const SchemaType* SchemaType::member(std::string_view json_name) const {
  if (kind == SchemaKind::map) return element.get();
  if (kind != SchemaKind::object) return nullptr;
  auto it = by_json_name.find(json_name);
  return it == by_json_name.end() ? nullptr : it->second;
}

std::shared_ptr<const SchemaType> schema_type(const Json& schema, bool resource_root) {
  if (!schema.is_object()) return nullptr;
  if (flag(schema, "x-kubernetes-int-or-string")) return leaf(SchemaKind::dyn);
  std::string type = string_of(schema, "type");
  if (type == "object" || (type.empty() && (resource_root || schema.contains("properties")))) {
    return object_type(schema, resource_root);
  }
  if (type == "array") {
    auto items = schema.find("items");
    if (items == schema.end()) return nullptr;
    auto element = schema_type(*items, flag(*items, "x-kubernetes-embedded-resource"));
    if (!element) return nullptr;
    auto t = leaf(SchemaKind::list);
    t->element = std::move(element);
    t->max_size = bound(schema, "maxItems");
    return t;
  }
  if (type == "string") {
    auto t = leaf(string_kind(schema));
    t->max_size = bound(schema, "maxLength");
    return t;
  }
  if (type == "boolean") return leaf(SchemaKind::boolean);
  if (type == "number") return leaf(SchemaKind::number);
  if (type == "integer") return leaf(SchemaKind::integer);
  if (type.empty() && flag(schema, "x-kubernetes-preserve-unknown-fields")) return leaf(SchemaKind::dyn);
  return nullptr;
}

std::string_view schema_type_name(const SchemaType& type) {
  switch (type.kind) {
    case SchemaKind::dyn: return "dyn";
    case SchemaKind::boolean: return "bool";
    case SchemaKind::integer: return "int";
    case SchemaKind::number: return "double";
    case SchemaKind::string: return "string";
    case SchemaKind::bytes: return "bytes";
    case SchemaKind::duration: return "google.protobuf.Duration";
    case SchemaKind::timestamp: return "google.protobuf.Timestamp";
    case SchemaKind::list: return "list";
    case SchemaKind::map: return "map";
    case SchemaKind::object: return "object";
  }
  return "dyn";
}

std::optional<std::string> escape_property(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return std::nullopt;
  if (k_escaped_words.contains(name)) return "__" + std::string(name) + "__";
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c == '_' && i + 1 < name.size() && name[i + 1] == '_') {
      out += "__underscores__";
      ++i;
    } else if (c == '.') {
      out += "__dot__";
    } else if (c == '-') {
      out += "__dash__";
    } else if (c == '/') {
      out += "__slash__";
    } else if (ident_char(c)) {
      out += c;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::optional<std::string> unescape_property(std::string_view name) {
  std::string out;
  std::size_t i = 0;
  while (i < name.size()) {
    std::size_t start = name.find("__", i);
    std::size_t end = start == std::string_view::npos ? start : name.find("__", start + 2);
    if (start == std::string_view::npos || end == std::string_view::npos || end == start + 2) {
      out += name.substr(i);
      break;
    }
    out += name.substr(i, start - i);
    std::string_view word = name.substr(start + 2, end - start - 2);
    if (word == "underscores") out += "__";
    else if (word == "dot") out += ".";
    else if (word == "dash") out += "-";
    else if (word == "slash") out += "/";
    else if (k_escaped_words.contains(word) && start == 0 && end + 2 == name.size()) out += word;
    else return std::nullopt;
    i = end + 2;
  }
  return out;
}

}  // namespace kw::cel
