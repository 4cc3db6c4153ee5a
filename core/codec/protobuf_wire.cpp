#include "core/codec/protobuf_wire.hpp"

#include "core/codec/protobuf.hpp"

namespace kw::codec {

namespace {

constexpr std::uint32_t k_length_delimited = 2;
constexpr std::uint32_t k_object_metadata = 1;       // every kind's ObjectMeta
constexpr std::uint32_t k_meta_resource_version = 6;  // ObjectMeta.resourceVersion
// metav1.ListMeta
constexpr std::uint32_t k_list_meta_resource_version = 2, k_list_meta_continue = 3, k_list_meta_remaining = 4;
constexpr std::uint32_t k_list_items = 2;
// runtime.Unknown and runtime.TypeMeta
constexpr std::uint32_t k_unknown_type_meta = 1, k_unknown_raw = 2, k_unknown_content_encoding = 3,
                        k_unknown_content_type = 4;
constexpr std::uint32_t k_type_meta_api_version = 1, k_type_meta_kind = 2;

void append_key(std::string& out, std::uint32_t number, std::uint32_t wire_type) {
  append_varint(out, (static_cast<std::uint64_t>(number) << 3) | wire_type);
}

std::size_t varint_size(std::uint64_t value) {
  std::size_t n = 1;
  for (; value >= 0x80; value >>= 7) ++n;
  return n;
}

// ObjectMeta with field 6 replaced or added, in field-number order as Go writes it.
kw::Result<std::string> meta_with_resource_version(std::string_view meta, std::string_view resource_version) {
  std::string out;
  out.reserve(meta.size() + resource_version.size() + 8);
  bool written = false;
  auto write = [&] {
    append_bytes_field(out, k_meta_resource_version, resource_version);
    written = true;
  };
  WireReader reader(meta);
  for (WireField field; reader.next(field);) {
    if (field.number == k_meta_resource_version) continue;
    if (!written && field.number > k_meta_resource_version) write();
    out += field.whole;
  }
  if (reader.bad()) return kw::fail("malformed protobuf ObjectMeta");
  if (!written) write();
  return out;
}

}  // namespace

bool WireReader::next(WireField& field) {
  if (m_in.empty() || m_bad) return false;
  const std::string_view start = m_in;
  std::uint64_t key = 0;
  if (!varint(key) || (key >> 3) == 0 || (key >> 3) > 0x1fffffff) return fail();
  field.number = static_cast<std::uint32_t>(key >> 3);
  field.wire_type = static_cast<std::uint32_t>(key & 7);
  field.varint = 0;
  field.bytes = {};
  bool ok = false;
  switch (field.wire_type) {
    case 0: ok = varint(field.varint); break;
    case 1: ok = skip(8); break;
    case 2: {
      std::uint64_t length = 0;
      ok = varint(length) && length <= m_in.size();
      if (ok) {
        field.bytes = m_in.substr(0, static_cast<std::size_t>(length));
        m_in.remove_prefix(static_cast<std::size_t>(length));
      }
      break;
    }
    case 5: ok = skip(4); break;
    default: break;
  }
  if (!ok) return fail();
  field.whole = start.substr(0, start.size() - m_in.size());
  return true;
}

bool WireReader::varint(std::uint64_t& out) {
  out = 0;
  for (int shift = 0; shift < 64 && !m_in.empty(); shift += 7) {
    const auto byte = static_cast<unsigned char>(m_in.front());
    m_in.remove_prefix(1);
    out |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

bool WireReader::skip(std::size_t n) {
  if (m_in.size() < n) return fail();
  m_in.remove_prefix(n);
  return true;
}

void append_varint(std::string& out, std::uint64_t value) {
  for (; value >= 0x80; value >>= 7) out += static_cast<char>((value & 0x7f) | 0x80);
  out += static_cast<char>(value);
}

void append_bytes_field(std::string& out, std::uint32_t number, std::string_view payload) {
  append_key(out, number, k_length_delimited);
  append_varint(out, payload.size());
  out += payload;
}

kw::Result<std::string> with_resource_version(std::string_view raw, std::string_view resource_version) {
  std::string out;
  out.reserve(raw.size() + resource_version.size() + 16);
  bool written = false;
  auto write_meta = [&](std::string_view meta) -> kw::Result<void> {
    auto updated = meta_with_resource_version(meta, resource_version);
    if (!updated) return std::unexpected(updated.error());
    append_bytes_field(out, k_object_metadata, *updated);
    written = true;
    return {};
  };
  WireReader reader(raw);
  for (WireField field; reader.next(field);) {
    if (field.number == k_object_metadata) {
      if (field.wire_type != k_length_delimited || written) return kw::fail("malformed protobuf object metadata");
      if (auto done = write_meta(field.bytes); !done) return std::unexpected(done.error());
      continue;
    }
    if (!written)
      if (auto done = write_meta({}); !done) return std::unexpected(done.error());
    out += field.whole;
  }
  if (reader.bad()) return kw::fail("malformed protobuf object");
  if (!written)
    if (auto done = write_meta({}); !done) return std::unexpected(done.error());
  return out;
}

namespace {

// "k8s\0" and runtime.Unknown up to its raw field's length: the caller appends `raw_size`
// bytes of raw, then close_envelope().
std::string open_envelope(std::string_view api_version, std::string_view kind, std::size_t raw_size) {
  std::string type_meta;
  append_bytes_field(type_meta, k_type_meta_api_version, api_version);
  append_bytes_field(type_meta, k_type_meta_kind, kind);
  std::string out(k_protobuf_magic);
  out.reserve(out.size() + type_meta.size() + raw_size + 32);
  append_bytes_field(out, k_unknown_type_meta, type_meta);
  append_key(out, k_unknown_raw, k_length_delimited);
  append_varint(out, raw_size);
  return out;
}

// Go always writes contentEncoding and contentType, empty.
void close_envelope(std::string& out) {
  append_bytes_field(out, k_unknown_content_encoding, {});
  append_bytes_field(out, k_unknown_content_type, {});
}

}  // namespace

std::string encode_envelope(std::string_view api_version, std::string_view kind, std::string_view raw) {
  std::string out = open_envelope(api_version, kind, raw.size());
  out += raw;
  close_envelope(out);
  return out;
}

std::string encode_watch_event_protobuf(std::string_view type, std::string_view enveloped_object) {
  std::string object;  // runtime.RawExtension{raw = 1}
  append_bytes_field(object, 1, enveloped_object);
  std::string out;
  out.reserve(object.size() + type.size() + 8);
  append_bytes_field(out, 1, type);  // metav1.WatchEvent{type = 1, object = 2}
  append_bytes_field(out, 2, object);
  return out;
}

std::string encode_list_protobuf(std::string_view api_version, std::string_view list_kind, const ListMetaFields& meta,
                                 const std::vector<std::string_view>& items) {
  // What is set, as the JSON list encodes (an empty continue is left out).
  std::string list_meta;
  append_bytes_field(list_meta, k_list_meta_resource_version, meta.resource_version);
  if (!meta.continue_token.empty()) append_bytes_field(list_meta, k_list_meta_continue, meta.continue_token);
  if (meta.remaining_item_count) {
    append_key(list_meta, k_list_meta_remaining, 0);
    append_varint(list_meta, static_cast<std::uint64_t>(*meta.remaining_item_count));
  }
  std::size_t raw_size = 1 + varint_size(list_meta.size()) + list_meta.size();
  for (std::string_view item : items) raw_size += 1 + varint_size(item.size()) + item.size();

  std::string out = open_envelope(api_version, list_kind, raw_size);  // the List written in place
  append_bytes_field(out, k_object_metadata, list_meta);
  for (std::string_view item : items) append_bytes_field(out, k_list_items, item);
  close_envelope(out);
  return out;
}

}  // namespace kw::codec
