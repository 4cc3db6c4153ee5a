#pragma once
// Lookup of the Kubernetes wire messages compiled into kw_proto.
//
// Every message of the k8s.io packages kw knows (runtime, meta/v1, resource,
// intstr, and each API group compiled in) is reachable by its full protobuf name, e.g.
// "k8s.io.api.core.v1.Pod". Descriptors live in protobuf's generated pool and
// stay valid for the life of the process. A message declares its fields in the order of
// the Kubernetes Go struct (not by number), as Kubernetes' own .proto files do: that
// order is the key order of Go's JSON for a typed object (what kubectl's typed printers
// write), and descriptor->field(i) reads it.
#include <string_view>

namespace google::protobuf {
class Descriptor;
class Message;
}  // namespace google::protobuf

namespace kw::proto {

// The descriptor of `full_name`, or nullptr when kw has no such message.
const google::protobuf::Descriptor* find_message(std::string_view full_name);

// The immutable default instance for `descriptor` (use ->New() to get a mutable one).
const google::protobuf::Message* prototype(const google::protobuf::Descriptor* descriptor);

}  // namespace kw::proto
