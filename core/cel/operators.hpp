#pragma once
// CEL's arithmetic operators: int and uint checked for overflow, double as IEEE 754, string,
// bytes and list concatenation, and duration/timestamp arithmetic. No implicit conversion:
// int + double is "no such overload".
#include "core/cel/ast.hpp"
#include "core/cel/value.hpp"

namespace kw::cel {

// `op` is add, subtract, multiply, divide or modulo.
Value arithmetic(Op op, const Value& left, const Value& right);
Value negate(const Value& operand);

}  // namespace kw::cel
