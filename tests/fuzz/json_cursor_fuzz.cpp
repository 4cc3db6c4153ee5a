// JsonCursor against nlohmann: whatever nlohmann accepts, the cursor reads whole (member by
// member, and with one skip()) into the same document; it never crashes on anything else.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/codec/json_cursor.hpp"

namespace {

using kw::codec::JsonCursor;
using nlohmann::json;

std::optional<json> rebuild(JsonCursor& in, int depth) {
  if (depth > 256) return std::nullopt;
  const char c = in.peek();
  if (c == '{' || c == '[') {
    const bool object = c == '{';
    if (!(object ? in.begin_object() : in.begin_array())) return std::nullopt;
    json out = object ? json::object() : json::array();
    for (;;) {
      std::string name;
      if (object) {
        auto key = in.next_key();
        if (!key) break;
        if (!kw::codec::json_unescape(*key, name)) return std::nullopt;
      } else if (!in.next_element()) {
        break;
      }
      auto value = rebuild(in, depth + 1);
      if (!value) return std::nullopt;
      if (object) out[name] = std::move(*value);
      else out.push_back(std::move(*value));
    }
    if (in.failed()) return std::nullopt;
    return out;
  }
  json value;
  if (!in.scalar(value)) return std::nullopt;
  return value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  JsonCursor reader(input);
  auto rebuilt = rebuild(reader, 0);
  JsonCursor skipper(input);
  const bool skipped = skipper.skip() && skipper.at_end();
  // nlohmann stops at a NUL byte as if the text ended there; JSON does not.
  if (input.find('\0') != std::string_view::npos) return 0;
  const json parsed = json::parse(input, nullptr, false);
  if (parsed.is_discarded()) return 0;
  bool shallow = true;  // the cursor's reader above stops at depth 256
  for (std::size_t i = 0, depth = 0; i < size && shallow; ++i)
    if (data[i] == '[' || data[i] == '{') shallow = ++depth <= 200;
  if (!skipped) std::abort();
  if (shallow && (!rebuilt || !reader.at_end())) std::abort();
  if (rebuilt && reader.at_end() && !(*rebuilt == parsed))
    std::abort();
  return 0;
}
