#pragma once
// CEL values: null, bool, int, uint, double, string, bytes, list, map, duration, timestamp,
// type, optional, extension objects (quantity, URL, IP, CIDR, lazy fields) and errors.
// Lists and maps are either owned (shared, immutable) or views of a nlohmann::json array or
// object; reading a view's element converts it by JSON kind (integers to int, other numbers
// to double) or, under a schema, by the schema's type.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace kw::cel {

class Value;
struct SchemaType;

// Nanoseconds, as Go's time.Duration.
struct Duration {
  std::int64_t nanos = 0;
};

// Seconds since the Unix epoch plus nanoseconds (0..999999999), years 1 to 9999.
struct Timestamp {
  std::int64_t seconds = 0;
  std::int32_t nanos = 0;
};

struct Bytes {
  std::string data = {};
};

struct TypeValue {
  std::string name = {};
};

// Extension values (Kubernetes' quantity, URL, IP, CIDR; lazily computed fields).
class Object {
 public:
  virtual ~Object() = default;
  virtual std::string_view type_name() const = 0;
  // The named field, for `o.name`; nullopt when there is none.
  virtual std::optional<Value> field(std::string_view name) const;
  virtual bool equals(const Object& other) const = 0;
  // The value's text for string(o) (an IP or CIDR); nullopt when it has none.
  virtual std::optional<std::string> text() const;
  // Ordering against another object of the same type; nullopt when unordered.
  virtual std::optional<int> compare(const Object& other) const;
};

class Value {
 public:
  enum class Kind {
    null, boolean, integer, uinteger, floating, string, bytes, list, map,
    duration, timestamp, type, optional, object, error
  };
  using Entries = std::vector<std::pair<Value, Value>>;

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool v) : m_data(v) {}
  Value(std::int64_t v) : m_data(v) {}
  Value(int v) : m_data(std::int64_t{v}) {}
  Value(std::uint64_t v) : m_data(v) {}
  Value(double v) : m_data(v) {}
  Value(std::string v) : m_data(std::move(v)) {}
  Value(const char* v) : m_data(std::string(v)) {}
  Value(Bytes v) : m_data(std::move(v)) {}
  Value(Duration v) : m_data(v) {}
  Value(Timestamp v) : m_data(v) {}
  Value(TypeValue v) : m_data(std::move(v)) {}
  Value(std::vector<Value> list);
  Value(std::shared_ptr<const Object> object) : m_data(std::move(object)) {}

  static Value map(Entries entries);
  static Value error(std::string message);
  static Value optional_of(Value value);
  static Value optional_none();
  // A view of `node`, converted by JSON kind, or by `schema` when given.
  static Value from_json(const nlohmann::json& node, const SchemaType* schema = nullptr);
  static Value type(std::string name) { return Value(TypeValue{std::move(name)}); }

  Kind kind() const;
  bool is_error() const { return kind() == Kind::error; }

  // Scalar access; each requires the matching kind.
  bool as_bool() const { return std::get<bool>(m_data); }
  std::int64_t as_int() const { return std::get<std::int64_t>(m_data); }
  std::uint64_t as_uint() const { return std::get<std::uint64_t>(m_data); }
  double as_double() const { return std::get<double>(m_data); }
  const std::string& as_string() const { return std::get<std::string>(m_data); }
  const std::string& as_bytes() const { return std::get<Bytes>(m_data).data; }
  Duration as_duration() const { return std::get<Duration>(m_data); }
  Timestamp as_timestamp() const { return std::get<Timestamp>(m_data); }
  const std::string& type_name_value() const { return std::get<TypeValue>(m_data).name; }
  const std::string& error_message() const;
  const Object& as_object() const { return *std::get<std::shared_ptr<const Object>>(m_data); }
  std::shared_ptr<const Object> object_ptr() const;

  // Optionals: has_value, and the wrapped value (requires has_value).
  bool optional_has_value() const;
  const Value& optional_value() const;

  // Lists and maps: their size; a list element (i < size); a map's value for a key.
  std::size_t size() const;
  Value at(std::size_t i) const;
  std::optional<Value> find(const Value& key) const;
  // The keys of a map, in its order (sorted for JSON objects), or the elements of a list.
  std::vector<Value> elements() const;
  // The JSON node a list or map views, or nullptr.
  const nlohmann::json* json_node() const;
  const SchemaType* schema() const;

  // CEL's type name: "int", "list", "map", "google.protobuf.Duration", "kubernetes.Quantity".
  std::string type_name() const;
  // A debugging rendering ("[1, \"a\"]", "{\"k\": 2u}").
  std::string debug_string() const;
  // The value as JSON (durations and timestamps as their strings, bytes base64), for callers
  // that hand results on (messageExpression, mutations); nullopt for what JSON cannot hold.
  std::optional<nlohmann::json> to_json() const;

 private:
  struct JsonView {
    const nlohmann::json* node = nullptr;
    const SchemaType* schema = nullptr;
  };
  struct ErrorData {
    std::string message = {};
  };
  struct OptionalData {
    std::shared_ptr<const Value> value = {};  // null: none
  };
  std::variant<std::monostate, bool, std::int64_t, std::uint64_t, double, std::string, Bytes,
               std::shared_ptr<const std::vector<Value>>, std::shared_ptr<const Entries>,
               Duration, Timestamp, TypeValue, OptionalData, std::shared_ptr<const Object>,
               std::shared_ptr<const ErrorData>, JsonView>
      m_data;
};

// CEL equality: heterogeneous across int, uint and double; lists and maps element by element;
// values of different types are unequal. nullopt when an operand is an error.
std::optional<bool> values_equal(const Value& a, const Value& b);
// CEL ordering: -1, 0, 1; nullopt when the two cannot be ordered (no such overload).
// Numbers compare across int, uint and double; NaN orders with nothing.
std::optional<int> compare_values(const Value& a, const Value& b);

}  // namespace kw::cel
