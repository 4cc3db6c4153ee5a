#include "core/proto/registry.hpp"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <string>

#include "k8s.io/api/admissionregistration/v1/generated.pb.h"
#include "k8s.io/api/apps/v1/generated.pb.h"
#include "k8s.io/api/authentication/v1/generated.pb.h"
#include "k8s.io/api/authorization/v1/generated.pb.h"
#include "k8s.io/api/autoscaling/v1/generated.pb.h"
#include "k8s.io/api/autoscaling/v2/generated.pb.h"
#include "k8s.io/api/batch/v1/generated.pb.h"
#include "k8s.io/api/certificates/v1/generated.pb.h"
#include "k8s.io/api/coordination/v1/generated.pb.h"
#include "k8s.io/api/core/v1/generated.pb.h"
#include "k8s.io/api/discovery/v1/generated.pb.h"
#include "k8s.io/api/events/v1/generated.pb.h"
#include "k8s.io/api/flowcontrol/v1/generated.pb.h"
#include "k8s.io/api/networking/v1/generated.pb.h"
#include "k8s.io/api/node/v1/generated.pb.h"
#include "k8s.io/api/policy/v1/generated.pb.h"
#include "k8s.io/api/rbac/v1/generated.pb.h"
#include "k8s.io/api/scheduling/v1/generated.pb.h"
#include "k8s.io/api/storage/v1/generated.pb.h"
#include "k8s.io/api/storage/v1beta1/generated.pb.h"
#include "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/generated.pb.h"
#include "k8s.io/apimachinery/pkg/api/resource/generated.pb.h"
#include "k8s.io/apimachinery/pkg/apis/meta/v1/generated.pb.h"
#include "k8s.io/apimachinery/pkg/runtime/generated.pb.h"
#include "k8s.io/apimachinery/pkg/util/intstr/generated.pb.h"
#include "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/generated.pb.h"

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
    (void)k8s::io::api::admissionregistration::v1::AuditAnnotation::descriptor();
    (void)k8s::io::api::authentication::v1::TokenReview::descriptor();
    (void)k8s::io::api::authorization::v1::SubjectAccessReview::descriptor();
    (void)k8s::io::api::autoscaling::v1::Scale::descriptor();
    (void)k8s::io::api::autoscaling::v2::HorizontalPodAutoscaler::descriptor();
    (void)k8s::io::api::certificates::v1::CertificateSigningRequest::descriptor();
    (void)k8s::io::api::discovery::v1::EndpointSlice::descriptor();
    (void)k8s::io::api::events::v1::Event::descriptor();
    (void)k8s::io::api::flowcontrol::v1::FlowSchema::descriptor();
    (void)k8s::io::api::networking::v1::Ingress::descriptor();
    (void)k8s::io::api::node::v1::RuntimeClass::descriptor();
    (void)k8s::io::api::policy::v1::PodDisruptionBudget::descriptor();
    (void)k8s::io::api::rbac::v1::Role::descriptor();
    (void)k8s::io::api::scheduling::v1::PriorityClass::descriptor();
    (void)k8s::io::api::storage::v1::StorageClass::descriptor();
    (void)k8s::io::api::storage::v1beta1::CSIStorageCapacity::descriptor();
    (void)k8s::io::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition::descriptor();
    (void)k8s::io::kube_aggregator::pkg::apis::apiregistration::v1::APIService::descriptor();
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
