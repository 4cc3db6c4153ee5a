#include "core/api/print_support.hpp"
#include "core/codec/protobuf_scalars.hpp"
#include "core/util/x509_request.hpp"
#include "server/admission/builtin.hpp"

namespace kw::admission {
namespace {

using nlohmann::json;
using api::print::at;
using api::print::str;

constexpr const char* k_group = "certificates.k8s.io";
constexpr const char* k_client_signer = "kubernetes.io/kube-apiserver-client";

bool signing_request(const registry::AdmissionRequest& r, std::string_view subresource, std::string_view operation) {
  return r.operation == operation && r.info.group == k_group && r.info.plural == "certificatesigningrequests" &&
         r.subresource == subresource;
}

// certificates.IsAuthorizedForSignerName: `verb` on the signer by name, or on its domain's
// wildcard ("example.com/*").
bool may_use_signer(const auth::Authorizer& authorizer, const json& requester, const std::string& verb,
                    const std::string& signer) {
  if (!requester.is_object()) return true;  // the server's own writes
  const auth::UserInfo user = auth::user_info_from_json(requester);
  for (const std::string& name : {signer, signer.substr(0, signer.find('/')) + "/*"})
    if (authorizer.authorize(auth::resource_attributes(user, verb, "", k_group, "signers", "", name, "")).allowed)
      return true;
  return false;
}

}  // namespace

registry::AdmissionCheck certificate_approval(const auth::Authorizer& authorizer) {
  return [&authorizer](const registry::AdmissionRequest& r) -> registry::ApiResult<void> {
    if (!signing_request(r, "approval", "UPDATE") || r.old == nullptr) return {};
    const std::string signer = str(at(*r.old, {"spec", "signerName"}));
    if (may_use_signer(authorizer, r.user, "approve", signer)) return {};
    return std::unexpected(
        registry::admission_forbidden(r, "user not permitted to approve requests with signerName \"" + signer + "\""));
  };
}

registry::AdmissionCheck certificate_signing(const auth::Authorizer& authorizer) {
  return [&authorizer](const registry::AdmissionRequest& r) -> registry::ApiResult<void> {
    if (!signing_request(r, "status", "UPDATE") || r.old == nullptr) return {};
    // Only a change of the certificate or the conditions is signing.
    if (at(r.object, {"status", "certificate"}) == at(*r.old, {"status", "certificate"}) &&
        at(r.object, {"status", "conditions"}) == at(*r.old, {"status", "conditions"}))
      return {};
    const std::string signer = str(at(*r.old, {"spec", "signerName"}));
    if (may_use_signer(authorizer, r.user, "sign", signer)) return {};
    return std::unexpected(
        registry::admission_forbidden(r, "user not permitted to sign requests with signerName \"" + signer + "\""));
  };
}

registry::AdmissionCheck certificate_subject_restriction() {
  return [](const registry::AdmissionRequest& r) -> registry::ApiResult<void> {
    if (!signing_request(r, "", "CREATE") || str(at(r.object, {"spec", "signerName"})) != k_client_signer) return {};
    auto pem = codec::scalars::base64_decode(str(at(r.object, {"spec", "request"})));
    const auto request = pem ? util::parse_certificate_request(*pem) : kw::fail("");
    if (!request)
      return std::unexpected(
          registry::admission_forbidden(r, "failed to parse CSR: PEM block type must be CERTIFICATE REQUEST"));
    for (const auto& group : request->subject.organization)
      if (group == "system:masters")
        return std::unexpected(registry::admission_forbidden(
            r, std::string("use of ") + k_client_signer + " signer with system:masters group is not allowed"));
    return {};
  };
}

}  // namespace kw::admission
