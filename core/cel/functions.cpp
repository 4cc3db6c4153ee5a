// The function table and the helpers the libraries share.
#include "core/cel/functions.hpp"

#include <re2/re2.h>

namespace kw::cel {

void Functions::add(Function function) {
  m_by_name[std::string(function.name)].push_back(function);
}

const Function* Functions::find(std::string_view name, bool receiver, std::size_t args) const {
  auto it = m_by_name.find(name);
  if (it == m_by_name.end()) return nullptr;
  for (const auto& f : it->second) {
    bool style = f.style == Function::Style::both ||
                 (f.style == Function::Style::receiver) == receiver;
    if (style && args >= f.min_args && args <= f.max_args) return &f;
  }
  return nullptr;
}

const Functions& standard_functions() {
  static const Functions k_functions = [] {
    Functions f;
    add_core_functions(f);
    add_conversion_functions(f);
    add_time_functions(f);
    add_string_functions(f);
    add_list_functions(f);
    add_regex_functions(f);
    add_optional_functions(f);
    add_quantity_functions(f);
    add_url_functions(f);
    add_ip_functions(f);
    add_authz_functions(f);
    return f;
  }();
  return k_functions;
}

Value no_such_overload() { return Value::error("no such overload"); }

std::uint64_t traversal_cost(std::size_t size) { return (size + 9) / 10; }

std::size_t code_points(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

const re2::RE2* compiled_regex(CallContext& context, const std::string& pattern, Value& error) {
  auto it = context.regexes.find(pattern);
  if (it == context.regexes.end()) {
    RE2::Options options;
    options.set_log_errors(false);
    auto re = std::make_shared<const RE2>(pattern, options);
    it = context.regexes.emplace(pattern, std::move(re)).first;
  }
  if (!it->second->ok()) {
    error = Value::error("error parsing regexp: " + it->second->error());
    return nullptr;
  }
  return it->second.get();
}

}  // namespace kw::cel
