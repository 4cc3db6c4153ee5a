// The hand-written protobuf wire code (core/codec/protobuf_wire.hpp) on arbitrary bytes:
// WireReader's fields cover exactly what they consumed; with_resource_version gives an object
// whose metadata holds the version once, keeps every other field in order and is a fixed
// point; encode_list_protobuf gives an envelope that the protobuf library parses and whose
// List reads back as the meta and items that went in.
//
// Input: byte 0 is the resourceVersion's length (mod 32), then the resourceVersion, then the
// object message.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/codec/protobuf.hpp"
#include "core/codec/protobuf_wire.hpp"

namespace {

using kw::codec::WireField;
using kw::codec::WireReader;

void check(bool ok) {
  if (!ok) std::abort();
}

// Every field of `message`; reading stops at the end or at the first malformed field.
std::vector<WireField> fields_of(std::string_view message, bool& bad) {
  std::vector<WireField> out;
  WireReader reader(message);
  std::size_t consumed = 0;
  for (WireField field; reader.next(field);) {
    // Fields are contiguous: each one starts where the previous one ended.
    check(field.whole.data() == message.data() + consumed);
    check(field.number != 0);
    check(field.wire_type != 2 || field.whole.ends_with(field.bytes));
    consumed += field.whole.size();
    out.push_back(field);
  }
  bad = reader.bad();
  check(bad || consumed == message.size());
  return out;
}

// The resourceVersion written in an object's metadata by with_resource_version().
void check_resource_version(std::string_view object, std::string_view original, std::string_view resource_version) {
  bool bad = false;
  const auto fields = fields_of(object, bad);
  check(!bad);
  int metas = 0;
  std::vector<std::string_view> others;
  for (const auto& field : fields) {
    if (field.number != 1) {
      others.push_back(field.whole);
      continue;
    }
    ++metas;
    check(field.wire_type == 2);
    bool meta_bad = false;
    int versions = 0;
    for (const auto& meta_field : fields_of(field.bytes, meta_bad)) {
      if (meta_field.number != 6) continue;
      ++versions;
      check(meta_field.bytes == resource_version);
    }
    check(!meta_bad && versions == 1);
  }
  check(metas == 1);
  // Everything but the metadata is copied unchanged and in order.
  bool original_bad = false;
  std::vector<std::string_view> original_others;
  for (const auto& field : fields_of(original, original_bad))
    if (field.number != 1) original_others.push_back(field.whole);
  check(!original_bad && others == original_others);
}

void check_list(std::string_view resource_version, const std::vector<std::string_view>& items) {
  kw::codec::ListMetaFields meta{resource_version, items.empty() ? std::string_view() : items.front(),
                                 static_cast<std::int64_t>(items.size()) - 2};
  const std::string list = kw::codec::encode_list_protobuf("v1", "PodList", meta, items);
  auto envelope = kw::codec::decode_envelope(list);
  check(envelope && envelope->api_version == "v1" && envelope->kind == "PodList");
  bool bad = false;
  const auto fields = fields_of(envelope->raw, bad);
  check(!bad && fields.size() == items.size() + 1 && fields[0].number == 1);
  for (std::size_t i = 0; i < items.size(); ++i) check(fields[i + 1].number == 2 && fields[i + 1].bytes == items[i]);
  for (const auto& field : fields_of(fields[0].bytes, bad)) {
    if (field.number == 2) check(field.bytes == meta.resource_version);
    if (field.number == 3) check(field.bytes == meta.continue_token);
    if (field.number == 4) check(static_cast<std::int64_t>(field.varint) == *meta.remaining_item_count);
  }
  check(!bad);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string_view resource_version = input.substr(0, data[0] % 32);
  const std::string_view object = input.substr(resource_version.size());

  bool bad = false;
  const auto fields = fields_of(object, bad);

  auto updated = kw::codec::with_resource_version(object, resource_version);
  if (updated) {
    check_resource_version(*updated, object, resource_version);
    auto again = kw::codec::with_resource_version(*updated, resource_version);
    check(again && *again == *updated);
  } else {
    check(!updated.error().message.empty());
  }

  std::vector<std::string_view> items;
  for (const auto& field : fields)
    if (field.wire_type == 2 && items.size() < 16) items.push_back(field.bytes);
  check_list(resource_version, items);
  return 0;
}
