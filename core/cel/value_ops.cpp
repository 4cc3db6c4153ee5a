// Equality, ordering and renderings of values.
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/cel/time.hpp"
#include "core/cel/value.hpp"
#include "core/util/base64.hpp"

namespace kw::cel {

namespace {

using Kind = Value::Kind;

bool is_number(Kind k) { return k == Kind::integer || k == Kind::uinteger || k == Kind::floating; }

template <class T>
int order(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int compare_int_uint(std::int64_t i, std::uint64_t u) {
  if (i < 0) return -1;
  return order(static_cast<std::uint64_t>(i), u);
}

int compare_double_int(double d, std::int64_t i) {
  if (d < -9223372036854775808.0) return -1;
  if (d >= 9223372036854775808.0) return 1;
  return order(d, static_cast<double>(i));
}

int compare_double_uint(double d, std::uint64_t u) {
  if (d < 0) return -1;
  if (d >= 18446744073709551616.0) return 1;
  return order(d, static_cast<double>(u));
}

// Numbers across kinds; NaN orders with nothing.
std::optional<int> compare_numbers(const Value& a, const Value& b) {
  Kind ka = a.kind();
  Kind kb = b.kind();
  if ((ka == Kind::floating && std::isnan(a.as_double())) ||
      (kb == Kind::floating && std::isnan(b.as_double()))) {
    return std::nullopt;
  }
  if (ka == kb) {
    if (ka == Kind::integer) return order(a.as_int(), b.as_int());
    if (ka == Kind::uinteger) return order(a.as_uint(), b.as_uint());
    return order(a.as_double(), b.as_double());
  }
  if (ka == Kind::integer && kb == Kind::uinteger) return compare_int_uint(a.as_int(), b.as_uint());
  if (ka == Kind::uinteger && kb == Kind::integer) return -compare_int_uint(b.as_int(), a.as_uint());
  if (ka == Kind::floating && kb == Kind::integer) return compare_double_int(a.as_double(), b.as_int());
  if (ka == Kind::integer && kb == Kind::floating) return -compare_double_int(b.as_double(), a.as_int());
  if (ka == Kind::floating) return compare_double_uint(a.as_double(), b.as_uint());
  return -compare_double_uint(b.as_double(), a.as_uint());
}

std::optional<bool> lists_equal(const Value& a, const Value& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto eq = values_equal(a.at(i), b.at(i));
    if (!eq || !*eq) return eq;
  }
  return true;
}

std::optional<bool> maps_equal(const Value& a, const Value& b) {
  if (a.size() != b.size()) return false;
  for (const auto& key : a.elements()) {
    auto other = b.find(key);
    if (!other) return false;
    auto eq = values_equal(*a.find(key), *other);
    if (!eq || !*eq) return eq;
  }
  return true;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string format_double(double d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", d);
  return buf;
}

}  // namespace

std::optional<bool> values_equal(const Value& a, const Value& b) {
  Kind ka = a.kind();
  Kind kb = b.kind();
  if (ka == Kind::error || kb == Kind::error) return std::nullopt;
  if (is_number(ka) && is_number(kb)) {
    auto c = compare_numbers(a, b);
    return c && *c == 0;
  }
  if (ka != kb) return false;
  switch (ka) {
    case Kind::null: return true;
    case Kind::boolean: return a.as_bool() == b.as_bool();
    case Kind::string: return a.as_string() == b.as_string();
    case Kind::bytes: return a.as_bytes() == b.as_bytes();
    case Kind::duration: return a.as_duration().nanos == b.as_duration().nanos;
    case Kind::timestamp:
      return a.as_timestamp().seconds == b.as_timestamp().seconds &&
             a.as_timestamp().nanos == b.as_timestamp().nanos;
    case Kind::type: return a.type_name_value() == b.type_name_value();
    case Kind::list: return lists_equal(a, b);
    case Kind::map: return maps_equal(a, b);
    case Kind::object: return a.as_object().equals(b.as_object());
    case Kind::optional:
      if (a.optional_has_value() != b.optional_has_value()) return false;
      return !a.optional_has_value() || values_equal(a.optional_value(), b.optional_value());
    default: return false;
  }
}

std::optional<int> compare_values(const Value& a, const Value& b) {
  Kind ka = a.kind();
  Kind kb = b.kind();
  if (is_number(ka) && is_number(kb)) return compare_numbers(a, b);
  if (ka != kb) return std::nullopt;
  switch (ka) {
    case Kind::boolean: return order(a.as_bool(), b.as_bool());
    case Kind::string: return order(a.as_string(), b.as_string());
    case Kind::bytes: return order(a.as_bytes(), b.as_bytes());
    case Kind::duration: return order(a.as_duration().nanos, b.as_duration().nanos);
    case Kind::timestamp: {
      int c = order(a.as_timestamp().seconds, b.as_timestamp().seconds);
      return c != 0 ? c : order(a.as_timestamp().nanos, b.as_timestamp().nanos);
    }
    default: return std::nullopt;
  }
}

std::string Value::debug_string() const {
  switch (kind()) {
    case Kind::null: return "null";
    case Kind::boolean: return as_bool() ? "true" : "false";
    case Kind::integer: return std::to_string(as_int());
    case Kind::uinteger: return std::to_string(as_uint()) + "u";
    case Kind::floating: return format_double(as_double());
    case Kind::string: return quoted(as_string());
    case Kind::bytes: return "b" + quoted(as_bytes());
    case Kind::duration: return "duration(\"" + format_duration(as_duration()) + "\")";
    case Kind::timestamp: return "timestamp(\"" + format_timestamp(as_timestamp()) + "\")";
    case Kind::type: return type_name_value();
    case Kind::error: return "error: " + error_message();
    case Kind::object: return std::string(as_object().type_name());
    case Kind::optional:
      return optional_has_value() ? "optional.of(" + optional_value().debug_string() + ")"
                                  : "optional.none()";
    case Kind::list: {
      std::string out = "[";
      for (std::size_t i = 0; i < size(); ++i) out += (i ? ", " : "") + at(i).debug_string();
      return out + "]";
    }
    case Kind::map: {
      std::string out = "{";
      bool first = true;
      for (const auto& key : elements()) {
        out += (first ? "" : ", ") + key.debug_string() + ": " + find(key)->debug_string();
        first = false;
      }
      return out + "}";
    }
  }
  return "";
}

std::optional<nlohmann::json> Value::to_json() const {
  if (const auto* node = json_node()) return *node;
  switch (kind()) {
    case Kind::null: return nlohmann::json(nullptr);
    case Kind::boolean: return nlohmann::json(as_bool());
    case Kind::integer: return nlohmann::json(as_int());
    case Kind::uinteger: return nlohmann::json(as_uint());
    case Kind::floating: return nlohmann::json(as_double());
    case Kind::string: return nlohmann::json(as_string());
    case Kind::bytes: return nlohmann::json(util::base64_encode(as_bytes()));
    case Kind::duration: return nlohmann::json(format_duration(as_duration()));
    case Kind::timestamp: return nlohmann::json(format_timestamp(as_timestamp()));
    case Kind::list: {
      auto out = nlohmann::json::array();
      for (std::size_t i = 0; i < size(); ++i) {
        auto item = at(i).to_json();
        if (!item) return std::nullopt;
        out.push_back(std::move(*item));
      }
      return out;
    }
    case Kind::map: {
      auto out = nlohmann::json::object();
      for (const auto& key : elements()) {
        auto item = find(key)->to_json();
        if (key.kind() != Kind::string || !item) return std::nullopt;
        out[key.as_string()] = std::move(*item);
      }
      return out;
    }
    default: return std::nullopt;
  }
}

}  // namespace kw::cel
