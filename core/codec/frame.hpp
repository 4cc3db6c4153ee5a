#pragma once
// Watch-stream framing, the layer between the codec (object <-> bytes) and the transport
// (a byte sink). Encoders delimit one event; decoders take bytes in any split and hand
// back whole frames.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/util/error.hpp"

namespace kw::codec {

inline constexpr std::size_t k_default_max_frame = 16 * 1024 * 1024;

// JSON: the compact event followed by '\n' (application/json watch bodies).
std::string frame_json(std::string event_json);
// Protobuf: 4-byte big-endian length, then the body.
std::string frame_length_prefixed(std::string_view body);
// YAML: "---\n" before every document but the first; the document ends in '\n'.
std::string frame_yaml(std::string_view doc, bool first);

// An incremental decoder. Contract: feed() any number of byte chunks; after each, call
// next() until it returns nullopt; at end of stream call finish() and drain next() again.
// Once feed() or finish() has returned an error, the decoder stays failed: later calls
// return the same error. Frames completed before the error remain available from next().
class FrameDecoder {
 public:
  virtual ~FrameDecoder();
  virtual Result<void> feed(std::string_view bytes) = 0;
  virtual std::optional<std::string> next() = 0;
  // End of stream: an error if a partial frame is pending.
  virtual Result<void> finish() = 0;
};

// Splits on JSON object boundaries (not lines): whitespace between objects is skipped,
// anything else is an error.
std::unique_ptr<FrameDecoder> make_json_frame_decoder(std::size_t max_frame = k_default_max_frame);
// 4-byte big-endian length + body.
std::unique_ptr<FrameDecoder> make_length_prefixed_frame_decoder(std::size_t max_frame = k_default_max_frame);
// YAML documents separated by lines that are exactly "---" or "..." (trailing spaces and a
// "---" followed by a comment are tolerated). Documents of only whitespace are skipped.
std::unique_ptr<FrameDecoder> make_yaml_frame_decoder(std::size_t max_frame = k_default_max_frame);
// YAML watch events (`object:` then `type:`, the keys in sorted order as Kubernetes writes
// YAML): as above, and an event is also complete at its top-level `type:` line, so the last
// event of a burst is handed on before the next separator arrives.
std::unique_ptr<FrameDecoder> make_yaml_watch_frame_decoder(std::size_t max_frame = k_default_max_frame);

}  // namespace kw::codec
