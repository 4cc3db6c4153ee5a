#include "server/storage/backend.hpp"

namespace kw::storage {

const char* to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::not_found: return "not found";
    case ErrorCode::exists: return "already exists";
    case ErrorCode::conflict: return "conflict";
    case ErrorCode::compacted: return "compacted";
    case ErrorCode::unavailable: return "unavailable";
    case ErrorCode::timeout: return "timeout";
    case ErrorCode::too_large: return "too large";
    case ErrorCode::corrupt: return "corrupt";
    case ErrorCode::invalid: return "invalid";
  }
  return "unknown";
}

std::optional<std::string> prefix_end(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(end.back());
    if (last < 0xff) {
      ++last;
      return end;
    }
    end.pop_back();
  }
  return std::nullopt;
}

}  // namespace kw::storage
