#include "core/codec/frame.hpp"

#include <algorithm>
#include <array>
#include <deque>

namespace kw::codec {

FrameDecoder::~FrameDecoder() = default;

std::string frame_json(std::string event_json) {
  event_json += '\n';
  return event_json;
}

std::string frame_length_prefixed(std::string_view body) {
  const auto n = static_cast<std::uint32_t>(body.size());
  std::string out;
  out.reserve(body.size() + 4);
  out += static_cast<char>((n >> 24) & 0xff);
  out += static_cast<char>((n >> 16) & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  out += static_cast<char>(n & 0xff);
  out.append(body);
  return out;
}

std::string frame_yaml(std::string_view doc, bool first) {
  std::string out = first ? std::string() : std::string("---\n");
  out.append(doc);
  if (doc.empty() || doc.back() != '\n') out += '\n';
  return out;
}

namespace {

std::string size_text(std::size_t n) { return std::to_string(n) + " bytes"; }

// Shared plumbing: the ready queue and the sticky error.
class QueueDecoder : public FrameDecoder {
 public:
  explicit QueueDecoder(std::size_t max_frame) : m_max_frame(max_frame) {}

  std::optional<std::string> next() override {
    if (m_ready.empty()) return std::nullopt;
    std::string frame = std::move(m_ready.front());
    m_ready.pop_front();
    return frame;
  }

  Result<void> feed(std::string_view bytes) override {
    if (m_error) return std::unexpected(*m_error);
    if (m_finished) return set_error("bytes fed after the end of the stream");
    return consume(bytes);
  }

  Result<void> finish() override {
    if (m_error) return std::unexpected(*m_error);
    m_finished = true;
    return end_of_stream();
  }

 protected:
  virtual Result<void> consume(std::string_view bytes) = 0;
  virtual Result<void> end_of_stream() = 0;

  std::unexpected<Error> set_error(std::string message) {
    m_error = Error{std::move(message)};
    return std::unexpected(*m_error);
  }
  std::unexpected<Error> too_large(std::string_view what) {
    return set_error(std::string(what) + " frame exceeds the limit of " + size_text(m_max_frame));
  }
  void emit(std::string frame) { m_ready.push_back(std::move(frame)); }

  std::size_t m_max_frame;
  std::size_t m_offset = 0;  // bytes consumed so far, for messages

 private:
  std::deque<std::string> m_ready;
  std::optional<Error> m_error;
  bool m_finished = false;
};

bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Byte classes for the JSON frame scanner: the bytes that end a run of plain bytes.
constexpr std::array<bool, 256> stop_table(std::string_view stops) {
  std::array<bool, 256> table{};
  for (char c : stops) table[static_cast<unsigned char>(c)] = true;
  return table;
}
constexpr auto k_string_stops = stop_table("\"\\");
constexpr auto k_structure_stops = stop_table("\"{}[]");

class JsonFrameDecoder final : public QueueDecoder {
 public:
  using QueueDecoder::QueueDecoder;

 protected:
  // Between events only whitespace may come; inside one, scan() skips over plain bytes with
  // table lookups and the frame's bytes are copied once per fed chunk, not byte by byte.
  Result<void> consume(std::string_view bytes) override {
    const std::size_t base = m_offset;  // stream offset of bytes[0], for messages
    m_offset += bytes.size();
    std::size_t i = 0;
    while (i < bytes.size()) {
      if (m_closers.empty()) {
        const char c = bytes[i];
        if (c != '{') {
          if (!is_json_space(c)) return garbage(c, base + i);
          ++i;
          continue;
        }
        m_current.reserve(m_last_size);
        m_closers.push_back('}');
        m_current += c;
        ++i;
      }
      auto end = scan(bytes, i, base);
      if (!end) return std::unexpected(end.error());
      if (m_current.size() + (*end - i) > m_max_frame) return too_large("JSON");
      m_current.append(bytes.substr(i, *end - i));
      i = *end;
      if (m_closers.empty()) {
        m_last_size = m_current.size();
        emit(std::move(m_current));
        m_current.clear();
      }
    }
    return {};
  }

  Result<void> end_of_stream() override {
    if (!m_current.empty())
      return set_error("JSON watch stream ended inside an object (" + size_text(m_current.size()) + " pending)");
    return {};
  }

 private:
  // Walks the bytes of an open object from `i`: past the bracket that closes it, or to the
  // end of `bytes` when it goes on in the next chunk.
  Result<std::size_t> scan(std::string_view bytes, std::size_t i, std::size_t base) {
    const char* data = bytes.data();
    const std::size_t n = bytes.size();
    while (i < n) {
      if (m_in_string) {
        if (m_escaped) {
          m_escaped = false;
          ++i;
          continue;
        }
        while (i < n && !k_string_stops[static_cast<unsigned char>(data[i])]) ++i;
        if (i == n) break;
        if (data[i] == '\\') m_escaped = true;
        else m_in_string = false;
        ++i;
        continue;
      }
      while (i < n && !k_structure_stops[static_cast<unsigned char>(data[i])]) ++i;
      if (i == n) break;
      const char c = data[i];
      switch (c) {
        case '"': m_in_string = true; break;
        case '{': m_closers.push_back('}'); break;
        case '[': m_closers.push_back(']'); break;
        default:  // '}' or ']'
          if (m_closers.back() != c)
            return set_error("malformed JSON watch stream at byte " + std::to_string(base + i) + ": '" +
                             std::string(1, c) + "' does not match the open '" +
                             (m_closers.back() == '}' ? "{" : "[") + "'");
          m_closers.pop_back();
          if (m_closers.empty()) return i + 1;
          break;
      }
      ++i;
    }
    return n;
  }

  std::unexpected<Error> garbage(char c, std::size_t offset) {
    std::string shown = (c >= 0x20 && c < 0x7f) ? "'" + std::string(1, c) + "'" : "byte " + std::to_string(static_cast<unsigned char>(c));
    return set_error("malformed JSON watch stream at byte " + std::to_string(offset) + ": expected '{' to start an event, found " + shown);
  }

  std::string m_current;
  std::string m_closers;  // expected closing brackets, innermost last
  std::size_t m_last_size = 256;  // capacity hint for the next frame
  bool m_in_string = false;
  bool m_escaped = false;
};

class LengthPrefixedFrameDecoder final : public QueueDecoder {
 public:
  using QueueDecoder::QueueDecoder;

 protected:
  Result<void> consume(std::string_view bytes) override {
    while (!bytes.empty()) {
      if (m_header_size < 4) {
        m_header[m_header_size++] = static_cast<unsigned char>(bytes.front());
        bytes.remove_prefix(1);
        ++m_offset;
        if (m_header_size < 4) continue;
        m_length = (std::size_t{m_header[0]} << 24) | (std::size_t{m_header[1]} << 16) |
                   (std::size_t{m_header[2]} << 8) | std::size_t{m_header[3]};
        if (m_length > m_max_frame)
          return set_error("length-prefixed frame at byte " + std::to_string(m_offset - 4) + " declares " +
                           size_text(m_length) + ", over the limit of " + size_text(m_max_frame));
        if (m_length == 0) complete();
        continue;
      }
      std::size_t take = std::min(bytes.size(), m_length - m_body.size());
      m_body.append(bytes.substr(0, take));  // grows only as bytes arrive
      bytes.remove_prefix(take);
      m_offset += take;
      if (m_body.size() == m_length) complete();
    }
    return {};
  }

  Result<void> end_of_stream() override {
    if (m_header_size == 0) return {};
    if (m_header_size < 4)
      return set_error("length-prefixed stream ended inside a frame header (" + std::to_string(m_header_size) + " of 4 bytes)");
    return set_error("length-prefixed stream ended inside a frame: got " + size_text(m_body.size()) + " of " + size_text(m_length));
  }

 private:
  void complete() {
    emit(std::move(m_body));
    m_body.clear();
    m_header_size = 0;
    m_length = 0;
  }

  unsigned char m_header[4] = {};
  std::size_t m_header_size = 0;
  std::size_t m_length = 0;
  std::string m_body;
};

class YamlFrameDecoder final : public QueueDecoder {
 public:
  YamlFrameDecoder(std::size_t max_frame, bool watch_events) : QueueDecoder(max_frame), m_watch_events(watch_events) {}

 protected:
  Result<void> consume(std::string_view bytes) override {
    while (!bytes.empty()) {
      std::size_t nl = bytes.find('\n');
      std::size_t take = nl == std::string_view::npos ? bytes.size() : nl + 1;
      if (m_document.size() + take > m_max_frame) return too_large("YAML document");
      m_document.append(bytes.substr(0, take));
      bytes.remove_prefix(take);
      m_offset += take;
      if (nl != std::string_view::npos) end_of_line();
    }
    return {};
  }

  Result<void> end_of_stream() override {
    m_line_start = m_document.size();
    flush_document();
    return {};
  }

 private:
  static bool is_separator(std::string_view line) {
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
      line.remove_suffix(1);
    if (line == "---" || line == "...") return true;
    if (line.substr(0, 4) == "--- " || line.substr(0, 4) == "---\t") {
      std::string_view rest = line.substr(4);
      rest.remove_prefix(std::min(rest.find_first_not_of(" \t"), rest.size()));
      return rest.empty() || rest.front() == '#';
    }
    return false;
  }

  void end_of_line() {
    std::string_view line = std::string_view(m_document).substr(m_line_start);
    if (is_separator(line)) {
      flush_document();
      m_seen_object = false;
      return;
    }
    m_line_start = m_document.size();
    if (!m_watch_events) return;
    // A watch event's keys come in sorted order, `object` then `type`: the top-level `type:`
    // line ends the event, so it is handed on without waiting for the next separator.
    if (line.starts_with("object:")) {
      m_seen_object = true;
    } else if (m_seen_object && line.starts_with("type:")) {
      flush_document();
      m_seen_object = false;
    }
  }

  // Emits the document before m_line_start (the separator line, if any, is dropped).
  void flush_document() {
    std::string doc = m_document.substr(0, m_line_start);
    m_document.clear();
    m_line_start = 0;
    if (std::all_of(doc.begin(), doc.end(), [](char c) { return is_json_space(c); })) return;
    emit(std::move(doc));
  }

  std::string m_document;
  std::size_t m_line_start = 0;
  bool m_watch_events;
  bool m_seen_object = false;  // a top-level `object:` line in the current document
};

}  // namespace

std::unique_ptr<FrameDecoder> make_json_frame_decoder(std::size_t max_frame) {
  return std::make_unique<JsonFrameDecoder>(max_frame);
}
std::unique_ptr<FrameDecoder> make_length_prefixed_frame_decoder(std::size_t max_frame) {
  return std::make_unique<LengthPrefixedFrameDecoder>(max_frame);
}
std::unique_ptr<FrameDecoder> make_yaml_frame_decoder(std::size_t max_frame) {
  return std::make_unique<YamlFrameDecoder>(max_frame, false);
}
std::unique_ptr<FrameDecoder> make_yaml_watch_frame_decoder(std::size_t max_frame) {
  return std::make_unique<YamlFrameDecoder>(max_frame, true);
}

}  // namespace kw::codec
