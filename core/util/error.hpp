#pragma once
// The error value carried across kwcore seams: a message a user can act on.
#include <expected>
#include <string>
#include <utility>

namespace kw {

struct Error {
  std::string message;
};

template <class T>
using Result = std::expected<T, Error>;

inline std::unexpected<Error> fail(std::string message) {
  return std::unexpected<Error>(Error{std::move(message)});
}

}  // namespace kw
