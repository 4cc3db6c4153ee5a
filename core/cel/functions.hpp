#pragma once
// The function table: every named function and method (operators are the evaluator's own).
// Each library file adds its functions; a call is resolved once, at compile time, by name,
// call style and argument count, and the function checks its argument kinds when it runs.
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/cel/value.hpp"

namespace re2 {
class RE2;
}

namespace kw::cel {

// What a call may use besides its arguments: cost to add beyond the call's own 1, and
// regular expressions compiled during this evaluation.
struct CallContext {
  std::uint64_t extra_cost = 0;
  std::map<std::string, std::shared_ptr<const re2::RE2>, std::less<>> regexes = {};
};

using FunctionImpl = Value (*)(std::span<const Value> args, CallContext& context);

struct Function {
  enum class Style : std::uint8_t { global, receiver, both };
  std::string_view name = {};
  Style style = Style::global;
  std::size_t min_args = 0;  // counting the receiver
  std::size_t max_args = 0;
  FunctionImpl impl = nullptr;
};

class Functions {
 public:
  void add(Function function);
  // The function for a call, or nullptr.
  const Function* find(std::string_view name, bool receiver, std::size_t args) const;
  bool has_name(std::string_view name) const { return m_by_name.contains(name); }

 private:
  std::map<std::string, std::vector<Function>, std::less<>> m_by_name;
};

// Every library Kubernetes enables; built once, immutable.
const Functions& standard_functions();

void add_core_functions(Functions& functions);
void add_conversion_functions(Functions& functions);
void add_time_functions(Functions& functions);
void add_string_functions(Functions& functions);
void add_list_functions(Functions& functions);
void add_regex_functions(Functions& functions);
void add_optional_functions(Functions& functions);
void add_quantity_functions(Functions& functions);
void add_url_functions(Functions& functions);
void add_ip_functions(Functions& functions);
void add_authz_functions(Functions& functions);

// Shared by the libraries.
Value no_such_overload();
// 1 per ten characters or elements, as cel-go's traversal cost factor.
std::uint64_t traversal_cost(std::size_t size);
// The number of code points of UTF-8 text.
std::size_t code_points(std::string_view text);
// Kubernetes' list.indexOf(x) and list.lastIndexOf(x); strings share the names.
Value list_index_of(std::span<const Value> args, CallContext& context, bool last);
// The RE2 for a pattern (cached in the context), or an error value in `error`.
const re2::RE2* compiled_regex(CallContext& context, const std::string& pattern, Value& error);

}  // namespace kw::cel
