#pragma once
// Text forms of the scalar types in Kubernetes JSON: base64 for bytes,
// RFC 3339 timestamps for meta/v1 Time and MicroTime, Go duration strings for
// meta/v1 Duration. Used by the protobuf transcoder; no protobuf types here.
#include <cstdint>
#include <string>
#include <string_view>

#include "core/util/error.hpp"

namespace kw::codec::scalars {

std::string base64_encode(std::string_view bytes);
// Standard alphabet with '=' padding, as Go's encoding/json writes []byte.
kw::Result<std::string> base64_decode(std::string_view text);

struct Timestamp {
  std::int64_t seconds = 0;  // since the Unix epoch, UTC
  std::int32_t nanos = 0;    // 0..999999999
};

// "2024-01-02T03:04:05Z", "2024-01-02T03:04:05.123456+02:00", ...
kw::Result<Timestamp> parse_rfc3339(std::string_view text);
// UTC, "Z" suffix; `fraction_digits` 0 (Time) or 6 (MicroTime).
std::string format_rfc3339(Timestamp timestamp, int fraction_digits);

// Go time.Duration text ("1h2m3.5s", "150ms", "-2us") of nanoseconds; util::parse_go_duration
// reads it.
std::string format_go_duration(std::int64_t nanoseconds);


}  // namespace kw::codec::scalars
