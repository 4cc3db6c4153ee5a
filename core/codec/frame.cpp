#include "core/codec/frame.hpp"

#include <algorithm>
#include <array>
#include <deque>

namespace kw::codec {

FrameDecoder::~FrameDecoder() = default;

std::string frame_json(std::string_view event_json) {
  std::string out;
  out.reserve(event_json.size() + 1);
  out.append(event_json);
  out += '\n';
  return out;
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
  // Scans for the next byte that matters (a quote or backslash inside a string, a bracket or
  // quote outside) and copies the plain bytes before it in one piece.
  Result<void> consume(std::string_view bytes) override {
    std::size_t i = 0;
    while (i < bytes.size()) {
      if (m_current.empty()) {
        const char c = bytes[i];
        if (!is_json_space(c) && c != '{') return garbage(c);
        if (c == '{') {
          m_current.reserve(m_last_size);
          m_current += c;
          m_closers.push_back('}');
        }
        ++i;
        ++m_offset;
        continue;
      }
      std::size_t j = i;
      if (!m_escaped) {
        const auto& stops = m_in_string ? k_string_stops : k_structure_stops;
        while (j < bytes.size() && !stops[static_cast<unsigned char>(bytes[j])]) ++j;
      }
      if (m_current.size() + (j - i) > m_max_frame) return too_large("JSON");
      m_current.append(bytes.substr(i, j - i));
      m_offset += j - i;
      if (j == bytes.size()) break;
      if (auto ok = step(bytes[j]); !ok) return ok;
      ++m_offset;
      i = j + 1;
    }
    return {};
  }

  Result<void> end_of_stream() override {
    if (!m_current.empty())
      return set_error("JSON watch stream ended inside an object (" + size_text(m_current.size()) + " pending)");
    return {};
  }

 private:
  // One significant byte of an open object: an escaped byte, a quote, a backslash or a bracket.
  Result<void> step(char c) {
    if (m_current.size() >= m_max_frame) return too_large("JSON");
    m_current += c;
    if (m_in_string) {
      if (m_escaped) m_escaped = false;
      else if (c == '\\') m_escaped = true;
      else if (c == '"') m_in_string = false;
      return {};
    }
    switch (c) {
      case '"': m_in_string = true; break;
      case '{': m_closers.push_back('}'); break;
      case '[': m_closers.push_back(']'); break;
      case '}':
      case ']':
        if (m_closers.back() != c)
          return set_error("malformed JSON watch stream at byte " + std::to_string(m_offset) + ": '" +
                           std::string(1, c) + "' does not match the open '" +
                           (m_closers.back() == '}' ? "{" : "[") + "'");
        m_closers.pop_back();
        if (m_closers.empty()) {
          m_last_size = m_current.size();
          emit(std::move(m_current));
          m_current.clear();
        }
        break;
      default: break;
    }
    return {};
  }

  std::unexpected<Error> garbage(char c) {
    std::string shown = (c >= 0x20 && c < 0x7f) ? "'" + std::string(1, c) + "'" : "byte " + std::to_string(static_cast<unsigned char>(c));
    return set_error("malformed JSON watch stream at byte " + std::to_string(m_offset) + ": expected '{' to start an event, found " + shown);
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
  using QueueDecoder::QueueDecoder;

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
    } else {
      m_line_start = m_document.size();
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
};

}  // namespace

std::unique_ptr<FrameDecoder> make_json_frame_decoder(std::size_t max_frame) {
  return std::make_unique<JsonFrameDecoder>(max_frame);
}
std::unique_ptr<FrameDecoder> make_length_prefixed_frame_decoder(std::size_t max_frame) {
  return std::make_unique<LengthPrefixedFrameDecoder>(max_frame);
}
std::unique_ptr<FrameDecoder> make_yaml_frame_decoder(std::size_t max_frame) {
  return std::make_unique<YamlFrameDecoder>(max_frame);
}

}  // namespace kw::codec
