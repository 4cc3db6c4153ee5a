// JsonCursor and codec::parse_json against nlohmann: whatever nlohmann accepts, the cursor reads
// whole (member by member, and with one skip()) into the same document, and parse_json builds
// the same value (within its nesting limit) and names as many repeated members as it has;
// neither crashes on anything else.
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/codec/json_cursor.hpp"
#include "core/codec/json_limits.hpp"
#include "tests/unit/codec/json_cursor_rebuild.hpp"

using kw::codec::JsonCursor;
using nlohmann::json;

namespace {

// How many members the objects of `input` repeat, counted from nlohmann's parse events.
std::size_t repeats_in(std::string_view input) {
  std::vector<std::set<std::string>> open;
  std::size_t repeats = 0;
  json::parser_callback_t count = [&](int, json::parse_event_t event, json& value) {
    if (event == json::parse_event_t::object_start) open.emplace_back();
    else if (event == json::parse_event_t::object_end) open.pop_back();
    else if (event == json::parse_event_t::key && !open.back().insert(value.get<std::string>()).second) ++repeats;
    return true;
  };
  (void)json::parse(input, count, false);
  return repeats;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  JsonCursor reader(input);
  auto rebuilt = kw::codec::test::rebuild(reader);
  JsonCursor skipper(input);
  const bool skipped = skipper.skip() && skipper.at_end();
  // nlohmann stops at a NUL byte as if the text ended there; JSON does not.
  if (input.find('\0') != std::string_view::npos) return 0;
  const json parsed = json::parse(input, nullptr, false);
  std::vector<std::string> repeated;
  const auto ours = kw::codec::parse_json(input, kw::codec::k_max_json_depth, &repeated);
  const bool within_limit = !kw::codec::json_nesting_exceeds(input);
  if (within_limit && ours.has_value() == parsed.is_discarded()) std::abort();
  if (ours && !(*ours == parsed)) std::abort();
  if (ours && repeated.size() != repeats_in(input)) std::abort();
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
