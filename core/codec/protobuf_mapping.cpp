#include "core/codec/protobuf_mapping.hpp"

#include <google/protobuf/descriptor.h>

#include "core/api/quantity.hpp"
#include "core/proto/schema_notes.hpp"

#include <array>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace kw::codec {
namespace {

constexpr std::array<std::pair<std::string_view, SpecialMessage>, 15> k_special_messages{{
    {"k8s.io.apimachinery.pkg.apis.meta.v1.Time", SpecialMessage::Time},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime", SpecialMessage::MicroTime},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.Duration", SpecialMessage::Duration},
    {"k8s.io.apimachinery.pkg.api.resource.Quantity", SpecialMessage::Quantity},
    {"k8s.io.apimachinery.pkg.util.intstr.IntOrString", SpecialMessage::IntOrString},
    {"k8s.io.apimachinery.pkg.runtime.RawExtension", SpecialMessage::RawExtension},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1", SpecialMessage::FieldsV1},
    {"k8s.io.apimachinery.pkg.apis.meta.v1.Verbs", SpecialMessage::Verbs},
    // A user's extra attributes: one string list per key, a bare JSON array like Verbs.
    {"k8s.io.api.authentication.v1.ExtraValue", SpecialMessage::Verbs},
    {"k8s.io.api.authorization.v1.ExtraValue", SpecialMessage::Verbs},
    {"k8s.io.api.certificates.v1.ExtraValue", SpecialMessage::Verbs},
    {"k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSON", SpecialMessage::Json},
    {"k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray", SpecialMessage::SchemaOrArray},
    {"k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool", SpecialMessage::SchemaOrBool},
    {"k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray",
     SpecialMessage::SchemaOrStringArray},
}};

// Go structs embedded with `json:",inline"`: on the wire they are a field of
// their own, in JSON their fields sit directly in the enclosing object.
constexpr std::array<std::string_view, 15> k_inline_fields{
    "k8s.io.api.core.v1.Probe.handler",
    "k8s.io.api.core.v1.Volume.volumeSource",
    "k8s.io.api.core.v1.VolumeMountStatus.volumeStatus",
    "k8s.io.api.core.v1.EphemeralContainer.ephemeralContainerCommon",
    "k8s.io.api.core.v1.ConfigMapEnvSource.localObjectReference",
    "k8s.io.api.core.v1.ConfigMapKeySelector.localObjectReference",
    "k8s.io.api.core.v1.ConfigMapProjection.localObjectReference",
    "k8s.io.api.core.v1.ConfigMapVolumeSource.localObjectReference",
    "k8s.io.api.core.v1.SecretEnvSource.localObjectReference",
    "k8s.io.api.core.v1.SecretKeySelector.localObjectReference",
    "k8s.io.api.core.v1.SecretProjection.localObjectReference",
    "k8s.io.api.core.v1.PersistentVolumeSpec.persistentVolumeSource",
    "k8s.io.api.admissionregistration.v1.RuleWithOperations.rule",
    "k8s.io.api.admissionregistration.v1.NamedRuleWithOperations.ruleWithOperations",
    "k8s.io.api.networking.v1.IngressRule.ingressRuleValue",
};

// The field of `message` under the JSON key `key`, inline fields aside. A field with a
// json_name answers to that name only.
const google::protobuf::FieldDescriptor* keyed_field(const google::protobuf::Descriptor& message,
                                                     const std::string& key) {
  const google::protobuf::FieldDescriptor* by_name = message.FindFieldByName(key);
  if (by_name != nullptr && !by_name->has_json_name()) return by_name;
  for (int i = 0; i < message.field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = message.field(i);
    if (field->has_json_name() && field->json_name() == key) return field;
  }
  return nullptr;
}

bool named_inline(const google::protobuf::FieldDescriptor& field) {
  for (std::string_view name : k_inline_fields) {
    if (field.full_name() == name) return true;
  }
  return false;
}

std::vector<const google::protobuf::FieldDescriptor*> find_key_chain(const google::protobuf::Descriptor& message,
                                                                     const std::string& key) {
  const google::protobuf::FieldDescriptor* direct = keyed_field(message, key);
  if (direct != nullptr && !named_inline(*direct)) return {direct};
  for (int i = 0; i < message.field_count(); ++i) {
    const google::protobuf::FieldDescriptor* field = message.field(i);
    if (!named_inline(*field)) continue;
    std::vector<const google::protobuf::FieldDescriptor*> chain = find_key_chain(*field->message_type(), key);
    if (!chain.empty()) {
      chain.insert(chain.begin(), field);
      return chain;
    }
  }
  return {};
}

// What the walks over objects ask of a message again and again, worked out once per message:
// its special JSON form, which of its fields are inline, and the field chain of each JSON key.
// Hashes std::string and std::string_view alike, so that keys are looked up without a copy.
struct KeyHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view key) const { return std::hash<std::string_view>{}(key); }
};

struct MessageShape {
  SpecialMessage special = SpecialMessage::None;
  std::vector<bool> inline_field;  // by field index
  std::unordered_map<std::string, std::vector<const google::protobuf::FieldDescriptor*>, KeyHash, std::equal_to<>>
      chains;
};

// One cache per thread: the walks run on every request, and a shared cache would make every
// thread take a lock per field. Shapes are small and the messages few.
class ShapeCache {
 public:
  const MessageShape& of(const google::protobuf::Descriptor& message) { return shape_of(message); }

  // The chain of `key` in `message`, looked up once and remembered (keys that name nothing are
  // not: objects may carry any number of them).
  const std::vector<const google::protobuf::FieldDescriptor*>& chain(const google::protobuf::Descriptor& message,
                                                                     std::string_view key) {
    static const std::vector<const google::protobuf::FieldDescriptor*> k_none;
    MessageShape& shape = shape_of(message);
    if (auto found = shape.chains.find(key); found != shape.chains.end()) return found->second;
    auto chain = find_key_chain(message, std::string(key));
    if (chain.empty()) return k_none;
    return shape.chains.try_emplace(std::string(key), std::move(chain)).first->second;
  }

 private:
  MessageShape& shape_of(const google::protobuf::Descriptor& message) {
    auto [at, added] = m_shapes.try_emplace(&message);
    if (added) {
      MessageShape& shape = at->second;
      for (const auto& [special_name, kind] : k_special_messages)
        if (message.full_name() == special_name) shape.special = kind;
      for (int i = 0; i < message.field_count(); ++i) shape.inline_field.push_back(named_inline(*message.field(i)));
    }
    return at->second;
  }

  std::unordered_map<const google::protobuf::Descriptor*, MessageShape> m_shapes;
};

ShapeCache& shapes() {
  thread_local ShapeCache cache;
  return cache;
}

}  // namespace

SpecialMessage special_message(const google::protobuf::Descriptor& descriptor) {
  return shapes().of(descriptor).special;
}

const std::string& json_key(const google::protobuf::FieldDescriptor& field) {
  return field.has_json_name() ? field.json_name() : field.name();
}

bool is_inline_field(const google::protobuf::FieldDescriptor& field) {
  return shapes().of(*field.containing_type()).inline_field[static_cast<std::size_t>(field.index())];
}

const std::vector<const google::protobuf::FieldDescriptor*>& json_key_chain(const google::protobuf::Descriptor& message,
                                                                            std::string_view key) {
  return shapes().chain(message, key);
}

const google::protobuf::FieldDescriptor* json_field(const google::protobuf::Descriptor& message,
                                                    std::string_view key) {
  const auto& chain = json_key_chain(message, key);
  return chain.empty() ? nullptr : chain.back();
}

namespace {

// A quantity as Go writes it back; `milli`: first rounded up to milli units, as core/v1's
// defaults do to every ResourceList. A value that is not a quantity is left for validation.
void canonicalize_quantity(nlohmann::json& value, bool milli) {
  auto parsed = api::parse_go_quantity(value);
  if (!parsed) return;
  if (milli) parsed->round_up(-3);
  value = parsed->string();
}

// The ResourceLists core/v1's defaults round (SetDefaults_ResourceList): the Quantity maps of
// core/v1 messages, wherever they are embedded. node.k8s.io's RuntimeClass overhead is not one.
bool rounded_resource_list(const google::protobuf::FieldDescriptor& field) {
  return field.containing_type()->file()->package() == "k8s.io.api.core.v1";
}

bool is_go_zero(const nlohmann::json& value) {
  if (value.is_string()) return value.get_ref<const std::string&>().empty();
  if (value.is_boolean()) return !value.get<bool>();
  if (value.is_number()) return value == 0;
  return false;
}

nlohmann::json go_zero_of(const google::protobuf::FieldDescriptor& field) {
  using Cpp = google::protobuf::FieldDescriptor::CppType;
  switch (field.cpp_type()) {
    case Cpp::CPPTYPE_STRING: return "";
    case Cpp::CPPTYPE_BOOL: return false;
    default: return 0;
  }
}

// A plain (non-pointer) Go scalar as encoding/json writes it: left out when zero and omitempty,
// always there otherwise.
void shape_go_scalar(nlohmann::json& object, const google::protobuf::FieldDescriptor& field) {
  const proto::FieldNotes* notes = proto::field_notes(field);
  if (notes == nullptr || notes->go_zero == proto::GoZero::pointer) return;
  const std::string& key = json_key(field);
  const auto found = object.find(key);
  if (notes->go_zero == proto::GoZero::omit) {
    if (found != object.end() && is_go_zero(*found)) object.erase(found);
  } else if (found == object.end()) {
    object[key] = go_zero_of(field);
  }
}

}  // namespace

namespace {

void drop_null_members(nlohmann::json& object) {
  if (!object.is_object()) return;
  for (auto it = object.begin(); it != object.end();) it = it->is_null() ? object.erase(it) : std::next(it);
}

}  // namespace

void fill_go_values(nlohmann::json& object, const google::protobuf::Descriptor& message) {
  // (embedded JSON, a RawExtension's or a schema's default, is kept as sent: nulls included)
  if (!object.is_object() || special_message(message) != SpecialMessage::None) return;
  drop_null_members(object);  // a null decodes to Go's zero value, written back below
  for (int i = 0; i < message.field_count(); ++i) {
    const google::protobuf::FieldDescriptor& field = *message.field(i);
    const google::protobuf::Descriptor* type = field.message_type();
    if (type == nullptr) {
      if (!field.is_repeated()) shape_go_scalar(object, field);
      continue;
    }
    if (field.is_map() && type->map_value()->message_type() == nullptr) {
      if (auto map = object.find(json_key(field)); map != object.end()) drop_null_members(*map);
      continue;
    }
    if (is_inline_field(field)) {
      fill_go_values(object, *type);
      continue;
    }
    const std::string& key = json_key(field);
    const google::protobuf::Descriptor* map_value = field.is_map() ? type->map_value()->message_type() : nullptr;
    if (map_value != nullptr && special_message(*map_value) == SpecialMessage::Quantity) {
      if (auto list = object.find(key); list != object.end() && list->is_object())
        for (auto& [name, value] : list->items()) canonicalize_quantity(value, rounded_resource_list(field));
      continue;
    }
    if (!field.is_map() && special_message(*type) == SpecialMessage::Quantity) {
      if (auto value = object.find(key); value != object.end()) {
        if (value->is_array())
          for (auto& item : *value) canonicalize_quantity(item, false);
        else
          canonicalize_quantity(*value, false);
      }
      continue;
    }
    auto found = object.find(key);
    if (found == object.end()) {
      const proto::FieldNotes* notes = proto::field_notes(field);
      if (notes == nullptr || !notes->go_value) continue;
      const auto special = special_message(*type);
      if (special == SpecialMessage::Time || special == SpecialMessage::MicroTime) {
        object[key] = nullptr;
        continue;
      }
      found = object.emplace(key, nlohmann::json::object()).first;
    }
    if (field.is_map()) {
      const google::protobuf::Descriptor* value = field.message_type()->map_value()->message_type();
      if (value != nullptr && found->is_object())
        for (auto& [k, v] : found->items()) fill_go_values(v, *value);
    } else if (field.is_repeated()) {
      if (found->is_array())
        for (auto& item : *found) fill_go_values(item, *type);
    } else {
      fill_go_values(*found, *type);
    }
  }
}

}  // namespace kw::codec
