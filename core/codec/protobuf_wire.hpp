#pragma once
// The protobuf wire format walked and written by hand, for the few places where decoding a
// whole object through its descriptor costs more than the job needs: setting a stored
// object's resourceVersion, joining stored objects into a List, reading a handful of fields.
// Field numbers are Kubernetes' (ObjectMeta.resourceVersion is 6, a List's items are 2...).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.hpp"

namespace kw::codec {

// One field on the wire. Varints are read into `varint`; length-delimited payloads are
// `bytes`; `whole` is the field's complete encoding, key included (to copy it unchanged).
struct WireField {
  std::uint32_t number = 0;
  std::uint32_t wire_type = 0;
  std::uint64_t varint = 0;
  std::string_view bytes;
  std::string_view whole;
};

class WireReader {
 public:
  explicit WireReader(std::string_view message) : m_in(message) {}
  // The next field; false at the end or on malformed input (then bad() is true). Groups
  // (wire types 3 and 4), which Kubernetes' messages never use, count as malformed.
  bool next(WireField& field);
  bool bad() const { return m_bad; }

 private:
  bool varint(std::uint64_t& out);
  bool skip(std::size_t n);
  bool fail() {
    m_bad = true;
    return false;
  }
  std::string_view m_in;
  bool m_bad = false;
};

void append_varint(std::string& out, std::uint64_t value);
// A length-delimited field: a string, bytes or an embedded message.
void append_bytes_field(std::string& out, std::uint32_t number, std::string_view payload);

// The object message `raw` (a built-in kind's bytes, no envelope) with metadata.resourceVersion
// set: ObjectMeta (field 1) gets field 6 in field-number order, any old value dropped. The
// stored bytes of an object as served, with nothing decoded. Malformed input is an error.
kw::Result<std::string> with_resource_version(std::string_view raw, std::string_view resource_version);

// What a List's metav1.ListMeta carries.
struct ListMetaFields {
  std::string_view resource_version;
  std::string_view continue_token;
  std::optional<std::int64_t> remaining_item_count;
};

// A built-in List, enveloped ("k8s\0" + runtime.Unknown): ListMeta as field 1 and each item's
// message (no envelope) as field 2, as every List kind of Kubernetes numbers them.
std::string encode_list_protobuf(std::string_view api_version, std::string_view list_kind, const ListMetaFields& meta,
                                 const std::vector<std::string_view>& items);

}  // namespace kw::codec
