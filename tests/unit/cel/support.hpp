#pragma once
// Test helpers: compile and evaluate a CEL expression and render the outcome as text, so a
// check reads `CHECK(run("1 + 2") == "3")`.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/cel/cel.hpp"

namespace cel_test {

// The value's debug rendering, "error: <message>" for an evaluation error, or
// "compile: <message>" for a compile error. Each member of `variables` is a declared
// variable bound to that JSON.
inline std::string run(std::string_view source,
                       const nlohmann::json& variables = nlohmann::json::object(),
                       std::uint64_t cost_limit = kw::cel::k_no_cost_limit) {
  kw::cel::Env env;
  kw::cel::MapActivation activation;
  for (const auto& [name, value] : variables.items()) {
    env.variables.push_back({.name = name});
    activation.bind_json(name, value);
  }
  auto program = kw::cel::compile(source, env);
  if (!program) return "compile: " + program.error().message;
  auto result = program->evaluate(activation, cost_limit);
  if (!result) return "error: " + result.error().message;
  return result->value.debug_string();
}

// The compile error alone ("" when it compiles).
inline std::string compile_error(std::string_view source, const kw::cel::Env& env = {}) {
  auto program = kw::cel::compile(source, env);
  return program ? std::string() : program.error().message;
}

inline bool is_true(std::string_view source,
                    const nlohmann::json& variables = nlohmann::json::object()) {
  return run(source, variables) == "true";
}

}  // namespace cel_test
