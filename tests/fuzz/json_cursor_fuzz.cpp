// JsonCursor against nlohmann: whatever nlohmann accepts, the cursor reads whole (member by
// member, and with one skip()) into the same document; it never crashes on anything else.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/codec/json_cursor.hpp"
#include "tests/unit/codec/json_cursor_rebuild.hpp"

using kw::codec::JsonCursor;
using nlohmann::json;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  JsonCursor reader(input);
  auto rebuilt = kw::codec::test::rebuild(reader);
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
