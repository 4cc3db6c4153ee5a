#include "core/proto/registry.hpp"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <string>

#include "k8s.io/api/apps/v1/generated.pb.h"
#include "k8s.io/api/batch/v1/generated.pb.h"
#include "k8s.io/api/coordination/v1/generated.pb.h"
#include "k8s.io/api/core/v1/generated.pb.h"
#include "k8s.io/apimachinery/pkg/api/resource/generated.pb.h"
#include "k8s.io/apimachinery/pkg/apis/meta/v1/generated.pb.h"
#include "k8s.io/apimachinery/pkg/runtime/generated.pb.h"
#include "k8s.io/apimachinery/pkg/util/intstr/generated.pb.h"

namespace kw::proto {
namespace {

// The generated files register their descriptors lazily (see
// cmake/lazy_descriptors.cmake): asking one message of each file for its
// descriptor adds that file and its imports to the generated pool, and keeps
// the static linker from dropping the file's object. Runs once, on the first
// lookup, so processes that never touch protobuf never pay for it.
void link_all_files() {
  static const bool k_linked = [] {
    (void)k8s::io::apimachinery::pkg::runtime::Unknown::descriptor();
    (void)k8s::io::apimachinery::pkg::api::resource::Quantity::descriptor();
    (void)k8s::io::apimachinery::pkg::util::intstr::IntOrString::descriptor();
    (void)k8s::io::apimachinery::pkg::apis::meta::v1::ObjectMeta::descriptor();
    (void)k8s::io::api::core::v1::Pod::descriptor();
    (void)k8s::io::api::apps::v1::Deployment::descriptor();
    (void)k8s::io::api::batch::v1::Job::descriptor();
    (void)k8s::io::api::coordination::v1::Lease::descriptor();
    return true;
  }();
  (void)k_linked;
}

}  // namespace

const google::protobuf::Descriptor* find_message(std::string_view full_name) {
  link_all_files();
  return google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(std::string(full_name));
}

const google::protobuf::Message* prototype(const google::protobuf::Descriptor* descriptor) {
  if (descriptor == nullptr) return nullptr;
  return google::protobuf::MessageFactory::generated_factory()->GetPrototype(descriptor);
}

}  // namespace kw::proto
