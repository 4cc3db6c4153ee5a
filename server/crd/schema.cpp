#include "server/crd/schema.hpp"

#include <algorithm>
#include <cmath>

#include <re2/re2.h>

namespace kw::crd {
namespace {

using json = nlohmann::json;

const char* const k_root_fields[] = {"apiVersion", "kind", "metadata"};

bool is_root_field(const std::string& key) {
  for (const char* field : k_root_fields)
    if (key == field) return true;
  return false;
}

std::string child(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }
std::string index(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }
std::string map_key(const std::string& path, const std::string& key) { return path + "[" + key + "]"; }

bool flag(const json& schema, const char* name) {
  auto found = schema.find(name);
  return found != schema.end() && found->is_boolean() && found->get<bool>();
}

std::string type_of(const json& schema) {
  auto found = schema.find("type");
  return found != schema.end() && found->is_string() ? found->get<std::string>() : "";
}

std::string json_type_name(const json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return "boolean";
  if (value.is_number_integer() || value.is_number_unsigned()) return "integer";
  if (value.is_number()) return "number";
  if (value.is_string()) return "string";
  if (value.is_array()) return "array";
  return "object";
}

bool is_integral(const json& value) {
  if (value.is_number_integer() || value.is_number_unsigned()) return true;
  if (!value.is_number_float()) return false;
  const double d = value.get<double>();
  return std::isfinite(d) && std::trunc(d) == d;
}

bool matches_type(const std::string& type, const json& value) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "integer") return is_integral(value);
  if (type == "number") return value.is_number();
  if (type == "boolean") return value.is_boolean();
  return true;  // no type: anything (preserve-unknown-fields or int-or-string)
}

std::string shown(const json& value) { return value.is_null() ? "\"null\"" : value.dump(); }

// The subschema of a property, or null when the object declares no such field.
const json* property_schema(const json& schema, const std::string& key) {
  if (auto props = schema.find("properties"); props != schema.end() && props->is_object())
    if (auto found = props->find(key); found != props->end()) return &*found;
  if (auto extra = schema.find("additionalProperties"); extra != schema.end() && extra->is_object())
    return &*extra;
  return nullptr;
}

bool allows_additional(const json& schema) {
  auto extra = schema.find("additionalProperties");
  return extra != schema.end() && (extra->is_object() || (extra->is_boolean() && extra->get<bool>()));
}

// The member `name` of `old` (an object), null when there is none.
const json* member(const json* old, const std::string& name) {
  if (old == nullptr || !old->is_object()) return nullptr;
  const auto found = old->find(name);
  return found == old->end() ? nullptr : &*found;
}

class Validator {
 public:
  json causes = json::array();

  void check(const json& schema, const json& value, const std::string& path, bool root, const json* old) {
    if (!schema.is_object()) return;
    if (old != nullptr && *old == value) return;  // unchanged: ratcheted
    if (value.is_null()) {
      if (flag(schema, "nullable") || (type_of(schema).empty() && !flag(schema, "x-kubernetes-int-or-string"))) return;
      type_invalid(path, value, type_of(schema).empty() ? "integer,string" : type_of(schema));
      return;
    }
    if (flag(schema, "x-kubernetes-int-or-string")) {
      if (!is_integral(value) && !value.is_string()) return type_invalid(path, value, "integer,string");
    } else if (!matches_type(type_of(schema), value)) {
      return type_invalid(path, value, type_of(schema));
    }
    check_enum(schema, value, path);
    if (value.is_number()) check_number(schema, value, path);
    if (value.is_string()) check_string(schema, value.get_ref<const std::string&>(), value, path);
    if (value.is_array()) check_array(schema, value, path, old);
    if (value.is_object()) check_object(schema, value, path, root, old);
  }

 private:
  void add(const std::string& reason, const std::string& path, const std::string& message) {
    causes.push_back({{"reason", reason}, {"message", message}, {"field", path}});
  }
  void type_invalid(const std::string& path, const json& value, const std::string& type) {
    add("FieldValueTypeInvalid", path,
        "Invalid value: " + shown(value) + ": " + path + " in body must be of type " + type + ": \"" +
            json_type_name(value) + "\"");
  }
  void invalid(const std::string& path, const json& value, const std::string& why) {
    add("FieldValueInvalid", path, "Invalid value: " + shown(value) + ": " + path + " in body " + why);
  }

  void check_enum(const json& schema, const json& value, const std::string& path) {
    auto values = schema.find("enum");
    if (values == schema.end() || !values->is_array() || values->empty()) return;
    for (const auto& allowed : *values)
      if (allowed == value || (allowed.is_number() && value.is_number() && allowed.get<double>() == value.get<double>()))
        return;
    std::string supported;
    for (const auto& allowed : *values) supported += (supported.empty() ? "" : ", ") + allowed.dump();
    add("FieldValueNotSupported", path, "Unsupported value: " + value.dump() + ": supported values: " + supported);
  }

  void check_number(const json& schema, const json& value, const std::string& path) {
    const double v = value.get<double>();
    if (auto min = schema.find("minimum"); min != schema.end() && min->is_number()) {
      const bool exclusive = flag(schema, "exclusiveMinimum");
      if (exclusive ? v <= min->get<double>() : v < min->get<double>())
        invalid(path, value, std::string("should be greater than ") + (exclusive ? "" : "or equal to ") + min->dump());
    }
    if (auto max = schema.find("maximum"); max != schema.end() && max->is_number()) {
      const bool exclusive = flag(schema, "exclusiveMaximum");
      if (exclusive ? v >= max->get<double>() : v > max->get<double>())
        invalid(path, value, std::string("should be less than ") + (exclusive ? "" : "or equal to ") + max->dump());
    }
    if (auto multiple = schema.find("multipleOf"); multiple != schema.end() && multiple->is_number() &&
                                                   multiple->get<double>() > 0) {
      const double q = v / multiple->get<double>();
      if (std::trunc(q) != q) invalid(path, value, "should be a multiple of " + multiple->dump());
    }
  }

  void check_string(const json& schema, const std::string& text, const json& value, const std::string& path) {
    // Lengths count characters (code points), as kube-openapi does.
    std::size_t length = 0;
    for (unsigned char c : text)
      if ((c & 0xC0) != 0x80) ++length;
    if (auto min = schema.find("minLength"); min != schema.end() && min->is_number_integer() &&
                                             length < min->get<std::size_t>())
      invalid(path, value, "should be at least " + min->dump() + " chars long");
    if (auto max = schema.find("maxLength"); max != schema.end() && max->is_number_integer() &&
                                             length > max->get<std::size_t>())
      invalid(path, value, "should be at most " + max->dump() + " chars long");
    if (auto pattern = schema.find("pattern"); pattern != schema.end() && pattern->is_string()) {
      const RE2 compiled(pattern->get<std::string>(), RE2::Quiet);
      if (!compiled.ok())
        invalid(path, value, "cannot be checked: the schema's pattern is not a valid regular expression");
      else if (!RE2::PartialMatch(text, compiled))
        invalid(path, value, "should match '" + pattern->get<std::string>() + "'");
    }
  }

  void check_array(const json& schema, const json& value, const std::string& path, const json* old) {
    if (auto min = schema.find("minItems"); min != schema.end() && min->is_number_integer() &&
                                            value.size() < min->get<std::size_t>())
      invalid(path, value.size(), "should have at least " + min->dump() + " items");
    if (auto max = schema.find("maxItems"); max != schema.end() && max->is_number_integer() &&
                                            value.size() > max->get<std::size_t>())
      add("FieldValueTooMany", path,
          "Too many: " + std::to_string(value.size()) + ": must have at most " + max->dump() + " items");
    auto items = schema.find("items");
    if (items == schema.end() || !items->is_object()) return;
    const std::string list_type = schema.value("x-kubernetes-list-type", std::string());
    std::vector<std::string> keys;
    if (auto found = schema.find("x-kubernetes-list-map-keys"); found != schema.end() && found->is_array())
      for (const auto& key : *found)
        if (key.is_string()) keys.push_back(key.get<std::string>());
    for (std::size_t i = 0; i < value.size(); ++i)
      check(*items, value[i], index(path, i), false, correlated_item(list_type, keys, value[i], old));
  }

  void check_object(const json& schema, const json& value, const std::string& path, bool root, const json* old) {
    if (auto required = schema.find("required"); required != schema.end() && required->is_array())
      for (const auto& name : *required)
        if (name.is_string() && !value.contains(name.get<std::string>()))
          add("FieldValueRequired", child(path, name.get<std::string>()), "Required value");
    auto props = schema.find("properties");
    for (const auto& [key, field] : value.items()) {
      if (root && is_root_field(key)) continue;
      if (props != schema.end() && props->is_object())
        if (auto found = props->find(key); found != props->end()) {
          check(*found, field, child(path, key), false, member(old, key));
          continue;
        }
      if (auto extra = schema.find("additionalProperties"); extra != schema.end() && extra->is_object())
        check(*extra, field, map_key(path, key), false, member(old, key));
    }
  }
};

void prune(const json& schema, json& value, const std::string& path, bool root, std::vector<std::string>& pruned) {
  if (!schema.is_object()) return;
  const bool preserve = flag(schema, "x-kubernetes-preserve-unknown-fields");
  if (value.is_array()) {
    auto items = schema.find("items");
    if (items == schema.end() || !items->is_object()) return;
    for (std::size_t i = 0; i < value.size(); ++i) prune(*items, value[i], index(path, i), false, pruned);
    return;
  }
  if (!value.is_object()) return;
  const bool embedded = flag(schema, "x-kubernetes-embedded-resource");
  const bool keep_unknown = preserve || allows_additional(schema);
  std::vector<std::string> dropped;
  for (auto& [key, field] : value.items()) {
    if ((root || embedded) && is_root_field(key)) continue;
    const json* sub = property_schema(schema, key);
    if (sub) {
      const bool declared = schema.contains("properties") && schema["properties"].contains(key);
      prune(*sub, field, declared ? child(path, key) : map_key(path, key), false, pruned);
    } else if (!keep_unknown) {
      dropped.push_back(key);
    }
  }
  for (const auto& key : dropped) {
    pruned.push_back(child(path, key));
    value.erase(key);
  }
}

void apply_defaults(const json& schema, json& value) {
  if (!schema.is_object()) return;
  if (value.is_array()) {
    if (auto items = schema.find("items"); items != schema.end())
      for (auto& item : value) apply_defaults(*items, item);
    return;
  }
  if (!value.is_object()) return;
  if (auto props = schema.find("properties"); props != schema.end() && props->is_object())
    for (const auto& [key, sub] : props->items())
      if (!value.contains(key) && sub.is_object() && sub.contains("default")) value[key] = sub["default"];
  for (auto& [key, field] : value.items())
    if (const json* sub = property_schema(schema, key)) apply_defaults(*sub, field);
}

void check_schema_into(const json& schema, const std::string& path, std::vector<std::string>& problems) {
  if (!schema.is_object()) {
    problems.push_back(path + ": must be an object");
    return;
  }
  const std::string type = type_of(schema);
  static const char* const k_types[] = {"", "object", "array", "string", "integer", "number", "boolean"};
  if (std::find(std::begin(k_types), std::end(k_types), type) == std::end(k_types))
    problems.push_back(path + ".type: Unsupported value: \"" + type +
                       "\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"");
  if (auto pattern = schema.find("pattern"); pattern != schema.end()) {
    if (!pattern->is_string() || !RE2(pattern->get<std::string>(), RE2::Quiet).ok())
      problems.push_back(path + ".pattern: Invalid value: " + pattern->dump() + ": must be a valid regular expression");
  }
  if (auto props = schema.find("properties"); props != schema.end() && props->is_object())
    for (const auto& [key, sub] : props->items()) check_schema_into(sub, path + ".properties[" + key + "]", problems);
  if (auto items = schema.find("items"); items != schema.end() && items->is_object())
    check_schema_into(*items, path + ".items", problems);
  if (auto extra = schema.find("additionalProperties"); extra != schema.end() && extra->is_object())
    check_schema_into(*extra, path + ".additionalProperties", problems);
}

}  // namespace

const json* correlated_item(std::string_view list_type, const std::vector<std::string>& map_keys, const json& item,
                            const json* old_list) {
  if (old_list == nullptr || !old_list->is_array()) return nullptr;
  for (const auto& old : *old_list) {
    if (list_type == "set" && old == item) return &old;
    if (list_type != "map" || !old.is_object() || !item.is_object()) continue;
    const bool same = std::all_of(map_keys.begin(), map_keys.end(), [&](const std::string& key) {
      return old.value(key, json()) == item.value(key, json());
    });
    if (same) return &old;
  }
  return nullptr;
}

json validate_custom_object(const json& schema, const json& object, const json* old) {
  Validator validator;
  validator.check(schema, object, "", true, old);
  return std::move(validator.causes);
}

std::vector<std::string> prune_custom_object(const json& schema, json& object) {
  std::vector<std::string> pruned;
  prune(schema, object, "", true, pruned);
  return pruned;
}

void default_custom_object(const json& schema, json& object) { apply_defaults(schema, object); }

std::vector<std::string> check_schema(const json& schema, const std::string& path) {
  std::vector<std::string> problems;
  check_schema_into(schema, path, problems);
  return problems;
}

}  // namespace kw::crd
