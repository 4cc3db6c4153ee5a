// Value construction, access and JSON views.
#include "core/cel/value.hpp"

#include <cmath>
#include <limits>

#include "core/cel/schema.hpp"
#include "core/cel/time.hpp"
#include "core/util/base64.hpp"

namespace kw::cel {

namespace {

using Json = nlohmann::json;
using SchemaKind = SchemaType::Kind;

// A JSON string read under a schema's string format.
Value typed_string(const std::string& text, const SchemaType* schema) {
  if (schema == nullptr) return Value(text);
  switch (schema->kind) {
    case SchemaKind::bytes: {
      auto decoded = util::base64_decode(text);
      if (!decoded) return Value::error("illegal base64 data in bytes field");
      return Value(Bytes{std::move(*decoded)});
    }
    case SchemaKind::duration: {
      auto d = parse_duration(text);
      return d ? Value(*d) : Value::error(d.error().message);
    }
    case SchemaKind::timestamp: {
      auto t = parse_timestamp(text);
      if (!t) t = parse_date(text);
      return t ? Value(*t) : Value::error(t.error().message);
    }
    default:
      return Value(text);
  }
}

Value json_number(const Json& node, const SchemaType* schema) {
  bool wants_double = schema != nullptr && schema->kind == SchemaKind::number;
  if (node.is_number_float() || wants_double) return Value(node.get<double>());
  if (node.is_number_unsigned()) {
    auto u = node.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return Value(u);
  }
  return Value(node.get<std::int64_t>());
}

}  // namespace

std::optional<Value> Object::field(std::string_view) const { return std::nullopt; }
std::optional<std::string> Object::text() const { return std::nullopt; }
std::optional<int> Object::compare(const Object&) const { return std::nullopt; }

Value::Value(std::vector<Value> list)
    : m_data(std::make_shared<const std::vector<Value>>(std::move(list))) {}

Value Value::map(Entries entries) {
  Value v;
  v.m_data = std::make_shared<const Entries>(std::move(entries));
  return v;
}

Value Value::error(std::string message) {
  Value v;
  v.m_data = std::make_shared<const ErrorData>(ErrorData{std::move(message)});
  return v;
}

Value Value::optional_of(Value value) {
  Value v;
  v.m_data = OptionalData{std::make_shared<const Value>(std::move(value))};
  return v;
}

Value Value::optional_none() {
  Value v;
  v.m_data = OptionalData{};
  return v;
}

Value Value::from_json(const Json& node, const SchemaType* schema) {
  if (schema != nullptr && schema->kind == SchemaType::Kind::dyn) schema = nullptr;
  switch (node.type()) {
    case Json::value_t::null: return Value(nullptr);
    case Json::value_t::boolean: return Value(node.get<bool>());
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float: return json_number(node, schema);
    case Json::value_t::string: return typed_string(node.get_ref<const std::string&>(), schema);
    case Json::value_t::array:
    case Json::value_t::object: {
      Value v;
      v.m_data = JsonView{&node, schema};
      return v;
    }
    default: return Value::error("unsupported JSON value");
  }
}

Value::Kind Value::kind() const {
  if (auto* view = std::get_if<JsonView>(&m_data)) {
    return view->node->is_array() ? Kind::list : Kind::map;
  }
  static constexpr Kind k_by_index[] = {
      Kind::null, Kind::boolean, Kind::integer, Kind::uinteger, Kind::floating, Kind::string,
      Kind::bytes, Kind::list, Kind::map, Kind::duration, Kind::timestamp, Kind::type,
      Kind::optional, Kind::object, Kind::error};
  return k_by_index[m_data.index()];
}

const std::string& Value::error_message() const {
  return std::get<std::shared_ptr<const ErrorData>>(m_data)->message;
}

std::shared_ptr<const Object> Value::object_ptr() const {
  auto* p = std::get_if<std::shared_ptr<const Object>>(&m_data);
  return p != nullptr ? *p : nullptr;
}

bool Value::optional_has_value() const {
  return std::get<OptionalData>(m_data).value != nullptr;
}

const Value& Value::optional_value() const { return *std::get<OptionalData>(m_data).value; }

std::size_t Value::size() const {
  if (auto* view = std::get_if<JsonView>(&m_data)) return view->node->size();
  if (auto* list = std::get_if<std::shared_ptr<const std::vector<Value>>>(&m_data)) {
    return (*list)->size();
  }
  if (auto* map = std::get_if<std::shared_ptr<const Entries>>(&m_data)) return (*map)->size();
  return 0;
}

Value Value::at(std::size_t i) const {
  if (auto* view = std::get_if<JsonView>(&m_data)) {
    const SchemaType* element = view->schema != nullptr ? view->schema->element.get() : nullptr;
    return from_json((*view->node)[i], element);
  }
  return (*std::get<std::shared_ptr<const std::vector<Value>>>(m_data))[i];
}

std::optional<Value> Value::find(const Value& key) const {
  if (auto* view = std::get_if<JsonView>(&m_data)) {
    if (key.kind() != Kind::string || !view->node->is_object()) return std::nullopt;
    auto it = view->node->find(key.as_string());
    if (it == view->node->end()) return std::nullopt;
    const SchemaType* member = view->schema != nullptr ? view->schema->member(key.as_string())
                                                       : nullptr;
    return from_json(*it, member);
  }
  auto* map = std::get_if<std::shared_ptr<const Entries>>(&m_data);
  if (map == nullptr) return std::nullopt;
  for (const auto& [k, v] : **map) {
    if (values_equal(k, key).value_or(false)) return v;
  }
  return std::nullopt;
}

std::vector<Value> Value::elements() const {
  std::vector<Value> out;
  if (auto* view = std::get_if<JsonView>(&m_data)) {
    out.reserve(view->node->size());
    if (view->node->is_object()) {
      for (const auto& item : view->node->items()) out.emplace_back(item.key());
    } else {
      for (std::size_t i = 0; i < view->node->size(); ++i) out.push_back(at(i));
    }
  } else if (auto* list = std::get_if<std::shared_ptr<const std::vector<Value>>>(&m_data)) {
    out = **list;
  } else if (auto* map = std::get_if<std::shared_ptr<const Entries>>(&m_data)) {
    for (const auto& entry : **map) out.push_back(entry.first);
  }
  return out;
}

const Json* Value::json_node() const {
  auto* view = std::get_if<JsonView>(&m_data);
  return view != nullptr ? view->node : nullptr;
}

const SchemaType* Value::schema() const {
  auto* view = std::get_if<JsonView>(&m_data);
  return view != nullptr ? view->schema : nullptr;
}

std::string Value::type_name() const {
  switch (kind()) {
    case Kind::null: return "null_type";
    case Kind::boolean: return "bool";
    case Kind::integer: return "int";
    case Kind::uinteger: return "uint";
    case Kind::floating: return "double";
    case Kind::string: return "string";
    case Kind::bytes: return "bytes";
    case Kind::list: return "list";
    case Kind::map: return "map";
    case Kind::duration: return "google.protobuf.Duration";
    case Kind::timestamp: return "google.protobuf.Timestamp";
    case Kind::type: return "type";
    case Kind::optional: return "optional_type";
    case Kind::object: return std::string(as_object().type_name());
    case Kind::error: return "error";
  }
  return "dyn";
}

}  // namespace kw::cel
