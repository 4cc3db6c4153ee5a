// Descriptor-driven JSON <-> protobuf transcoding with Kubernetes' JSON mapping.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <cmath>
#include <limits>
#include <memory>

#include "core/api/quantity.hpp"
#include "core/codec/json_limits.hpp"
#include "core/codec/protobuf.hpp"
#include "core/codec/protobuf_mapping.hpp"
#include "core/codec/protobuf_scalars.hpp"
#include "core/util/go_time.hpp"
#include "core/codec/text.hpp"
#include "core/proto/registry.hpp"

namespace kw::codec {
namespace {

namespace pb = google::protobuf;
using nlohmann::json;
using Status = kw::Result<void>;

// Messages whose JSON form is not an object of their fields (protobuf_mapping.hpp).
using Special = SpecialMessage;

Special special_kind(const pb::Descriptor* descriptor) { return special_message(*descriptor); }

std::string json_type_name(const json& value) {
  if (value.is_number_integer()) return "integer";
  if (value.is_number_float()) return "number";
  return value.type_name();
}

std::unexpected<kw::Error> wrong_type(const std::string& path, std::string_view expected, const json& value) {
  return kw::fail(path + ": expected " + std::string(expected) + ", got " + json_type_name(value));
}

std::string child_path(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

// Minimum Go zero time (0001-01-01T00:00:00Z): Go writes it for unset non-pointer Time fields.
constexpr std::int64_t k_go_zero_time_seconds = -62135596800;

bool is_inline(const pb::FieldDescriptor& field) { return is_inline_field(field); }


bool carries_object_meta(const pb::Descriptor& descriptor) {
  const pb::FieldDescriptor* metadata = descriptor.FindFieldByName("metadata");
  return metadata != nullptr && metadata->message_type() != nullptr &&
         metadata->message_type()->full_name() == "k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta";
}

// The JSON a RawExtension, FieldsV1 or apiextensions JSON message carries (null when empty),
// nested no deeper than a JSON request body may be: every later walk over the decoded object
// recurses once per level.
kw::Result<json> embedded_json(const std::string& raw, const std::string& path, std::string_view what) {
  if (raw.empty()) return json(nullptr);
  auto parsed = parse_json(raw);
  if (!parsed)
    return kw::fail(path + ": embedded " + std::string(what) + " (" + std::to_string(raw.size()) +
                    " bytes) cannot be read: " + parsed.error().message);
  return std::move(*parsed);
}

std::string compact(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

// A double as Go's encoding/json writes a float64: integral values without a fraction
// (JSONSchemaProps' "minimum: 1" comes back as 1, not 1.0).
json json_number(double number) {
  constexpr double k_two_to_63 = 9223372036854775808.0;
  if (std::isfinite(number) && std::trunc(number) == number) {
    if (number >= -k_two_to_63 && number < k_two_to_63) return json(static_cast<std::int64_t>(number));
    if (number > 0 && number < 2 * k_two_to_63) return json(static_cast<std::uint64_t>(number));
  }
  return json(number);
}

class JsonToMessage {
 public:
  explicit JsonToMessage(FieldValidation validation) : m_validation(validation) {}

  Status fill(const json& value, pb::Message& message, const std::string& path, bool top_level) {
    const pb::Descriptor* descriptor = message.GetDescriptor();
    if (const Special special = special_kind(descriptor); special != Special::None) return fill_special(special, value, message, path);
    if (!value.is_object()) return wrong_type(path.empty() ? "object" : path, "an object", value);
    for (const auto& [key, item] : value.items()) {
      const std::vector<const pb::FieldDescriptor*>& chain = json_key_chain(*descriptor, key);
      if (chain.empty()) {
        // TypeMeta is not part of the messages: it travels in the envelope, and
        // embedded objects (StatefulSet volumeClaimTemplates) drop it on the wire.
        if ((key == "apiVersion" || key == "kind") && (top_level || carries_object_meta(*descriptor))) continue;
        if (auto unknown = unknown_field(child_path(path, key)); !unknown) return unknown;
        continue;
      }
      if (item.is_null()) continue;
      pb::Message* target = &message;
      for (std::size_t i = 0; i + 1 < chain.size(); ++i) target = target->GetReflection()->MutableMessage(target, chain[i]);
      if (auto stored = fill_field(*chain.back(), item, *target, child_path(path, key)); !stored) return stored;
    }
    return {};
  }

  std::vector<std::string> take_warnings() { return std::move(m_warnings); }

 private:
  Status unknown_field(const std::string& path) {
    switch (m_validation) {
      case FieldValidation::Ignore:
        return {};
      case FieldValidation::Warn:
        m_warnings.push_back("unknown field \"" + path + "\"");
        return {};
      case FieldValidation::Strict:
        break;
    }
    return kw::fail("strict decoding error: unknown field \"" + path + "\"");
  }

  Status fill_field(const pb::FieldDescriptor& field, const json& value, pb::Message& message, const std::string& path) {
    if (field.is_map()) return fill_map(field, value, message, path);
    if (!field.is_repeated()) return store(field, value, message, path, false);
    if (!value.is_array()) return wrong_type(path, "an array", value);
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (auto stored = store(field, value[i], message, path + "[" + std::to_string(i) + "]", true); !stored) return stored;
    }
    return {};
  }

  Status fill_map(const pb::FieldDescriptor& field, const json& value, pb::Message& message, const std::string& path) {
    if (!value.is_object()) return wrong_type(path, "an object", value);
    const pb::Descriptor* entry_type = field.message_type();
    const pb::FieldDescriptor* key_field = entry_type->map_key();
    const pb::FieldDescriptor* value_field = entry_type->map_value();
    const pb::Reflection* reflection = message.GetReflection();
    for (const auto& [key, item] : value.items()) {
      pb::Message* entry = reflection->AddMessage(&message, &field);
      entry->GetReflection()->SetString(entry, key_field, key);
      const json& stored_value = item.is_null() && value_field->cpp_type() == pb::FieldDescriptor::CPPTYPE_STRING ? json("") : item;
      if (auto stored = store(*value_field, stored_value, *entry, path + "[" + key + "]", false); !stored) return stored;
    }
    return {};
  }

  // Stores one value into `field` (appending when `repeated`).
  Status store(const pb::FieldDescriptor& field, const json& value, pb::Message& message, const std::string& path, bool repeated) {
    const pb::Reflection* reflection = message.GetReflection();
    using Cpp = pb::FieldDescriptor::CppType;
    switch (field.cpp_type()) {
      case Cpp::CPPTYPE_MESSAGE: {
        pb::Message* child = repeated ? reflection->AddMessage(&message, &field) : reflection->MutableMessage(&message, &field);
        return fill(value, *child, path, false);
      }
      case Cpp::CPPTYPE_STRING: {
        if (!value.is_string()) return wrong_type(path, field.type() == pb::FieldDescriptor::TYPE_BYTES ? "a base64 string" : "a string", value);
        std::string text = value.get<std::string>();
        if (field.type() == pb::FieldDescriptor::TYPE_BYTES) {
          auto decoded = scalars::base64_decode(text);
          if (!decoded) return kw::fail(path + ": " + decoded.error().message);
          text = std::move(*decoded);
        }
        repeated ? reflection->AddString(&message, &field, std::move(text)) : reflection->SetString(&message, &field, std::move(text));
        return {};
      }
      case Cpp::CPPTYPE_BOOL:
        if (!value.is_boolean()) return wrong_type(path, "a boolean", value);
        repeated ? reflection->AddBool(&message, &field, value.get<bool>()) : reflection->SetBool(&message, &field, value.get<bool>());
        return {};
      case Cpp::CPPTYPE_INT32:
      case Cpp::CPPTYPE_INT64:
      case Cpp::CPPTYPE_UINT32:
      case Cpp::CPPTYPE_UINT64:
        return store_integer(field, value, message, path, repeated);
      case Cpp::CPPTYPE_DOUBLE:
      case Cpp::CPPTYPE_FLOAT: {
        if (!value.is_number()) return wrong_type(path, "a number", value);
        const double number = value.get<double>();
        if (field.cpp_type() == Cpp::CPPTYPE_DOUBLE) {
          repeated ? reflection->AddDouble(&message, &field, number) : reflection->SetDouble(&message, &field, number);
        } else {
          const auto narrow = static_cast<float>(number);
          repeated ? reflection->AddFloat(&message, &field, narrow) : reflection->SetFloat(&message, &field, narrow);
        }
        return {};
      }
      case Cpp::CPPTYPE_ENUM:
        break;
    }
    return kw::fail(path + ": enum fields are not part of the Kubernetes schema");
  }

  Status store_integer(const pb::FieldDescriptor& field, const json& value, pb::Message& message, const std::string& path, bool repeated) {
    long double number;
    if (value.is_number_unsigned()) number = static_cast<long double>(value.get<std::uint64_t>());
    else if (value.is_number_integer()) number = static_cast<long double>(value.get<std::int64_t>());
    else if (value.is_number_float() && std::isfinite(value.get<double>()) && std::trunc(value.get<double>()) == value.get<double>())
      number = value.get<double>();
    else return wrong_type(path, "an integer", value);
    const pb::Reflection* reflection = message.GetReflection();
    using Cpp = pb::FieldDescriptor::CppType;
    const auto out_of_range = [&] { return kw::fail(path + ": " + compact(value) + " is out of range for " + field.cpp_type_name()); };
    switch (field.cpp_type()) {
      case Cpp::CPPTYPE_INT32: {
        if (number < std::numeric_limits<std::int32_t>::min() || number > std::numeric_limits<std::int32_t>::max()) return out_of_range();
        const auto v = static_cast<std::int32_t>(number);
        repeated ? reflection->AddInt32(&message, &field, v) : reflection->SetInt32(&message, &field, v);
        return {};
      }
      case Cpp::CPPTYPE_INT64: {
        if (number < static_cast<long double>(std::numeric_limits<std::int64_t>::min()) ||
            number > static_cast<long double>(std::numeric_limits<std::int64_t>::max())) return out_of_range();
        const auto v = value.is_number_integer() && !value.is_number_unsigned() ? value.get<std::int64_t>() : static_cast<std::int64_t>(number);
        repeated ? reflection->AddInt64(&message, &field, v) : reflection->SetInt64(&message, &field, v);
        return {};
      }
      case Cpp::CPPTYPE_UINT32: {
        if (number < 0 || number > std::numeric_limits<std::uint32_t>::max()) return out_of_range();
        const auto v = static_cast<std::uint32_t>(number);
        repeated ? reflection->AddUInt32(&message, &field, v) : reflection->SetUInt32(&message, &field, v);
        return {};
      }
      default: {
        if (number < 0 || number > static_cast<long double>(std::numeric_limits<std::uint64_t>::max())) return out_of_range();
        const auto v = value.is_number_unsigned() ? value.get<std::uint64_t>() : static_cast<std::uint64_t>(number);
        repeated ? reflection->AddUInt64(&message, &field, v) : reflection->SetUInt64(&message, &field, v);
        return {};
      }
    }
  }

  Status fill_special(Special special, const json& value, pb::Message& message, const std::string& path) {
    const pb::Descriptor* descriptor = message.GetDescriptor();
    const pb::Reflection* reflection = message.GetReflection();
    const auto field = [&](int number) { return descriptor->FindFieldByNumber(number); };
    switch (special) {
      case Special::Time:
      case Special::MicroTime: {
        if (!value.is_string()) return wrong_type(path, "an RFC 3339 time string", value);
        auto parsed = scalars::parse_rfc3339(value.get<std::string>());
        if (!parsed) return kw::fail(path + ": " + parsed.error().message);
        reflection->SetInt64(&message, field(1), parsed->seconds);
        // Time has second precision on the wire as in JSON; MicroTime keeps microseconds.
        if (special == Special::MicroTime) reflection->SetInt32(&message, field(2), parsed->nanos / 1000 * 1000);
        return {};
      }
      case Special::Duration: {
        if (!value.is_string()) return wrong_type(path, "a duration string", value);
        auto parsed = util::parse_go_duration(value.get<std::string>());
        if (!parsed) return kw::fail(path + ": " + parsed.error().message);
        reflection->SetInt64(&message, field(1), *parsed);
        return {};
      }
      case Special::Quantity: {
        if (!value.is_string() && !value.is_number()) return wrong_type(path, "a quantity string", value);
        // Go's own error text, without a path, as kube-apiserver answers it.
        auto text = api::canonical_quantity(value);
        if (!text) return std::unexpected(text.error());
        reflection->SetString(&message, field(1), std::move(*text));
        return {};
      }
      case Special::IntOrString:
        if (value.is_string()) {
          reflection->SetInt64(&message, field(1), 1);
          reflection->SetString(&message, field(3), value.get<std::string>());
          return {};
        }
        if (!value.is_number_integer() || value.get<std::int64_t>() < std::numeric_limits<std::int32_t>::min() ||
            value.get<std::int64_t>() > std::numeric_limits<std::int32_t>::max()) {
          return wrong_type(path, "an int32 or a string", value);
        }
        reflection->SetInt64(&message, field(1), 0);
        reflection->SetInt32(&message, field(2), static_cast<std::int32_t>(value.get<std::int64_t>()));
        return {};
      case Special::RawExtension:
        reflection->SetString(&message, field(1), compact(value));
        return {};
      case Special::FieldsV1:
        if (!value.is_object()) return wrong_type(path, "an object", value);
        reflection->SetString(&message, field(1), compact(value));
        return {};
      case Special::Verbs:
        // A JSON array of strings; on the wire the message {repeated string items = 1}.
        return fill_field(*field(1), value, message, path);
      case Special::Json:
      case Special::SchemaOrArray:
      case Special::SchemaOrBool:
      case Special::SchemaOrStringArray:
        return fill_schema_special(special, value, message, path);
      case Special::None:
        break;
    }
    return kw::fail(path + ": internal error: unhandled special message");
  }

  // The apiextensions.k8s.io/v1 shapes, read as their Go UnmarshalJSON reads them.
  Status fill_schema_special(Special special, const json& value, pb::Message& message, const std::string& path) {
    const pb::Descriptor* descriptor = message.GetDescriptor();
    const pb::Reflection* reflection = message.GetReflection();
    const auto field = [&](int number) { return descriptor->FindFieldByNumber(number); };
    switch (special) {
      case Special::Json:
        // JSON{raw = 1}: the value's text; null leaves raw unset.
        if (!value.is_null()) reflection->SetString(&message, field(1), compact(value));
        return {};
      case Special::SchemaOrArray:
        // OrArray{schema = 1, jSONSchemas = 2}: an object is the schema, an array the list;
        // Go leaves anything else empty.
        if (value.is_object()) return fill(value, *reflection->MutableMessage(&message, field(1)), path, false);
        if (value.is_array()) return fill_field(*field(2), value, message, path);
        return {};
      case Special::SchemaOrBool:
        // OrBool{allows = 1, schema = 2}: a schema allows, and Go writes allows either way.
        if (value.is_boolean()) {
          reflection->SetBool(&message, field(1), value.get<bool>());
          return {};
        }
        if (!value.is_object()) return wrong_type(path, "a boolean or a schema object", value);
        reflection->SetBool(&message, field(1), true);
        return fill(value, *reflection->MutableMessage(&message, field(2)), path, false);
      case Special::SchemaOrStringArray:
        // OrStringArray{schema = 1, property = 2}: an object is the schema, an array the
        // property names; Go leaves anything else empty.
        if (value.is_object()) return fill(value, *reflection->MutableMessage(&message, field(1)), path, false);
        if (value.is_array()) return fill_field(*field(2), value, message, path);
        return {};
      default:
        break;
    }
    return kw::fail(path + ": internal error: unhandled special message");
  }

  FieldValidation m_validation;
  std::vector<std::string> m_warnings;
};

class MessageToJson {
 public:
  kw::Result<json> convert(const pb::Message& message, const std::string& path) {
    const pb::Descriptor* descriptor = message.GetDescriptor();
    if (const Special special = special_kind(descriptor); special != Special::None) return convert_special(special, message, path);
    const pb::Reflection* reflection = message.GetReflection();
    std::vector<const pb::FieldDescriptor*> fields;
    reflection->ListFields(message, &fields);
    json out = json::object();
    for (const pb::FieldDescriptor* field : fields) {
      if (is_inline(*field)) {
        auto embedded = convert(reflection->GetMessage(message, field), path);
        if (!embedded) return embedded;
        for (auto& [key, item] : embedded->items()) out[key] = std::move(item);
        continue;
      }
      const std::string& key = json_key(*field);
      auto value = convert_field(*field, message, child_path(path, key));
      if (!value) return value;
      out[key] = std::move(*value);
    }
    return out;
  }

 private:
  kw::Result<json> convert_field(const pb::FieldDescriptor& field, const pb::Message& message, const std::string& path) {
    const pb::Reflection* reflection = message.GetReflection();
    if (field.is_map()) {
      const pb::FieldDescriptor* key_field = field.message_type()->map_key();
      const pb::FieldDescriptor* value_field = field.message_type()->map_value();
      json out = json::object();  // keyed, so sorted by key
      for (int i = 0; i < reflection->FieldSize(message, &field); ++i) {
        const pb::Message& entry = reflection->GetRepeatedMessage(message, &field, i);
        const std::string key = entry.GetReflection()->GetString(entry, key_field);
        if (!is_valid_utf8(key)) return kw::fail(path + ": map key is not valid UTF-8");
        auto value = convert_value(*value_field, entry, -1, path + "[" + key + "]");
        if (!value) return value;
        out[key] = std::move(*value);
      }
      return out;
    }
    if (!field.is_repeated()) return convert_value(field, message, -1, path);
    json out = json::array();
    for (int i = 0; i < reflection->FieldSize(message, &field); ++i) {
      auto value = convert_value(field, message, i, path + "[" + std::to_string(i) + "]");
      if (!value) return value;
      out.push_back(std::move(*value));
    }
    return out;
  }

  // The value of `field` (element `index` when repeated, index < 0 otherwise).
  kw::Result<json> convert_value(const pb::FieldDescriptor& field, const pb::Message& message, int index, const std::string& path) {
    const pb::Reflection* r = message.GetReflection();
    const bool rep = index >= 0;
    using Cpp = pb::FieldDescriptor::CppType;
    switch (field.cpp_type()) {
      case Cpp::CPPTYPE_MESSAGE:
        return convert(rep ? r->GetRepeatedMessage(message, &field, index) : r->GetMessage(message, &field), path);
      case Cpp::CPPTYPE_STRING: {
        std::string text = rep ? r->GetRepeatedString(message, &field, index) : r->GetString(message, &field);
        if (field.type() == pb::FieldDescriptor::TYPE_BYTES) return json(scalars::base64_encode(text));
        if (!is_valid_utf8(text)) return kw::fail(path + ": string is not valid UTF-8");
        return json(std::move(text));
      }
      case Cpp::CPPTYPE_BOOL:
        return json(rep ? r->GetRepeatedBool(message, &field, index) : r->GetBool(message, &field));
      case Cpp::CPPTYPE_INT32:
        return json(rep ? r->GetRepeatedInt32(message, &field, index) : r->GetInt32(message, &field));
      case Cpp::CPPTYPE_INT64:
        return json(rep ? r->GetRepeatedInt64(message, &field, index) : r->GetInt64(message, &field));
      case Cpp::CPPTYPE_UINT32:
        return json(rep ? r->GetRepeatedUInt32(message, &field, index) : r->GetUInt32(message, &field));
      case Cpp::CPPTYPE_UINT64:
        return json(rep ? r->GetRepeatedUInt64(message, &field, index) : r->GetUInt64(message, &field));
      case Cpp::CPPTYPE_DOUBLE:
        return json_number(rep ? r->GetRepeatedDouble(message, &field, index) : r->GetDouble(message, &field));
      case Cpp::CPPTYPE_FLOAT:
        return json(rep ? r->GetRepeatedFloat(message, &field, index) : r->GetFloat(message, &field));
      case Cpp::CPPTYPE_ENUM:
        break;
    }
    return kw::fail(path + ": enum fields are not part of the Kubernetes schema");
  }

  kw::Result<json> convert_special(Special special, const pb::Message& message, const std::string& path) {
    const pb::Descriptor* descriptor = message.GetDescriptor();
    const pb::Reflection* r = message.GetReflection();
    const auto field = [&](int number) { return descriptor->FindFieldByNumber(number); };
    switch (special) {
      case Special::Time:
      case Special::MicroTime: {
        // Go writes an unset Time as an empty message (or as its zero value); both read back as null.
        if (!r->HasField(message, field(1)) && !r->HasField(message, field(2))) return json(nullptr);
        const std::int64_t seconds = r->GetInt64(message, field(1));
        const std::int32_t nanos = r->GetInt32(message, field(2));
        if (seconds == k_go_zero_time_seconds && nanos == 0) return json(nullptr);
        if (nanos < 0 || nanos > 999999999) return kw::fail(path + ": nanos " + std::to_string(nanos) + " out of range");
        return json(scalars::format_rfc3339({seconds, nanos}, special == Special::MicroTime ? 6 : 0));
      }
      case Special::Duration:
        return json(scalars::format_go_duration(r->GetInt64(message, field(1))));
      case Special::Quantity: {
        // As Go's Quantity.Unmarshal: the text is parsed (an empty message is zero) and
        // written back as String() writes it.
        if (!r->HasField(message, field(1))) return json("0");
        const std::string text = r->GetString(message, field(1));
        if (!is_valid_utf8(text)) return kw::fail(path + ": quantity is not valid UTF-8");
        auto parsed = api::parse_go_quantity(std::string_view(text));
        if (!parsed) return kw::fail(path + ": " + parsed.error().message);
        return json(parsed->string());
      }
      case Special::IntOrString: {
        if (r->GetInt64(message, field(1)) != 1) return json(r->GetInt32(message, field(2)));
        std::string text = r->GetString(message, field(3));
        if (!is_valid_utf8(text)) return kw::fail(path + ": string is not valid UTF-8");
        return json(std::move(text));
      }
      case Special::RawExtension:
      case Special::FieldsV1:
        return embedded_json(r->GetString(message, field(1)), path, "object");
      case Special::Verbs:
        return convert_field(*field(1), message, path);
      case Special::Json:
        return embedded_json(r->GetString(message, field(1)), path, "value");
      case Special::SchemaOrArray:
        // As Go's MarshalJSON: the list when it has items, else the schema (null without one).
        if (r->FieldSize(message, field(2)) > 0) return convert_field(*field(2), message, path);
        if (r->HasField(message, field(1))) return convert(r->GetMessage(message, field(1)), path);
        return json(nullptr);
      case Special::SchemaOrBool:
        if (r->HasField(message, field(2))) return convert(r->GetMessage(message, field(2)), path);
        return json(r->GetBool(message, field(1)));
      case Special::SchemaOrStringArray:
        if (r->FieldSize(message, field(2)) > 0) return convert_field(*field(2), message, path);
        if (r->HasField(message, field(1))) return convert(r->GetMessage(message, field(1)), path);
        return json(nullptr);
      case Special::None:
        break;
    }
    return kw::fail(path + ": internal error: unhandled special message");
  }
};

kw::Result<std::unique_ptr<pb::Message>> new_message(std::string_view full_name) {
  const pb::Message* prototype = proto::prototype(proto::find_message(full_name));
  if (prototype == nullptr) return kw::fail("no protobuf message \"" + std::string(full_name) + "\" is known to kw");
  return std::unique_ptr<pb::Message>(prototype->New());
}

}  // namespace

kw::Result<ProtobufEncoding> json_to_protobuf(const json& object, std::string_view message_full_name, FieldValidation validation) {
  auto message = new_message(message_full_name);
  if (!message) return std::unexpected(message.error());
  JsonToMessage filler(validation);
  if (auto filled = filler.fill(object, **message, "", true); !filled) return std::unexpected(filled.error());
  ProtobufEncoding out;
  if (!(*message)->SerializeToString(&out.bytes)) return kw::fail("cannot serialize " + std::string(message_full_name));
  out.warnings = filler.take_warnings();
  return out;
}

kw::Result<std::string> json_to_protobuf(const json& object, std::string_view message_full_name) {
  auto encoded = json_to_protobuf(object, message_full_name, FieldValidation::Ignore);
  if (!encoded) return std::unexpected(encoded.error());
  return std::move(encoded->bytes);
}

kw::Result<json> protobuf_to_json(std::string_view bytes, std::string_view message_full_name) {
  auto message = new_message(message_full_name);
  if (!message) return std::unexpected(message.error());
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
      !(*message)->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return kw::fail("malformed protobuf: cannot parse " + std::to_string(bytes.size()) + " bytes as " + std::string(message_full_name));
  }
  return MessageToJson{}.convert(**message, "");
}

}  // namespace kw::codec
