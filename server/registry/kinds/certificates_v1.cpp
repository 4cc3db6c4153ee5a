// certificates.k8s.io/v1: CertificateSigningRequest.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/api/print_support.hpp"
#include "core/codec/protobuf_scalars.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

// ---- PEM and DER (Go's encoding/pem and the shape x509 parses) --------------------------------

struct PemBlock {
  std::string type;
  bool has_headers = false;
  std::string bytes;
  std::string_view rest;  // what follows the block
};

// A line without its newline and trailing blanks, and what follows it.
std::pair<std::string_view, std::string_view> next_line(std::string_view data) {
  const auto nl = data.find('\n');
  auto line = data.substr(0, nl);
  auto rest = nl == std::string_view::npos ? std::string_view() : data.substr(nl + 1);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
  return {line, rest};
}

// pem.Decode: the first well-formed block in data, skipping anything before it.
std::optional<PemBlock> pem_decode(std::string_view data) {
  constexpr std::string_view k_begin = "-----BEGIN ", k_end = "-----END ", k_dashes = "-----";
  std::string_view rest = data;
  for (;;) {
    if (rest.starts_with(k_begin)) {
      rest.remove_prefix(k_begin.size());
    } else if (const auto at = rest.find("\n-----BEGIN "); at != std::string_view::npos) {
      rest.remove_prefix(at + 1 + k_begin.size());
    } else {
      return std::nullopt;
    }
    auto [type_line, after_type] = next_line(rest);
    rest = after_type;
    if (!type_line.ends_with(k_dashes)) continue;
    PemBlock block;
    block.type = std::string(type_line.substr(0, type_line.size() - k_dashes.size()));
    for (;;) {  // "Key: value" headers
      if (rest.empty()) return std::nullopt;
      auto [line, next] = next_line(rest);
      if (line.find(':') == std::string_view::npos) break;
      block.has_headers = true;
      rest = next;
    }
    std::size_t end_index = 0, trailer_index = 0;
    if (!block.has_headers && rest.starts_with(k_end)) {
      trailer_index = k_end.size();
    } else {
      end_index = rest.find("\n-----END ");
      if (end_index == std::string_view::npos) continue;
      trailer_index = end_index + 1 + k_end.size();
    }
    const auto trailer = rest.substr(trailer_index);
    const std::string expected = block.type + std::string(k_dashes);
    if (!trailer.starts_with(expected) || !next_line(trailer.substr(expected.size())).first.empty()) continue;
    std::string base64;
    for (char c : rest.substr(0, end_index))
      if (c != ' ' && c != '\t' && c != '\r' && c != '\n') base64 += c;
    auto decoded = codec::scalars::base64_decode(base64);
    if (!decoded) continue;
    block.bytes = std::move(*decoded);
    block.rest = next_line(rest.substr(trailer_index + expected.size())).second;
    return block;
  }
}

// One DER element: its tag and contents, and what follows it; nullopt when truncated.
struct Der {
  std::uint8_t tag = 0;
  std::string_view contents, rest;
};

std::optional<Der> der_element(std::string_view data) {
  if (data.size() < 2) return std::nullopt;
  Der out{static_cast<std::uint8_t>(data[0])};
  std::size_t length = static_cast<std::uint8_t>(data[1]), header = 2;
  if (length & 0x80) {
    const std::size_t n = length & 0x7f;
    if (n == 0 || n > 4 || data.size() < 2 + n) return std::nullopt;
    length = 0;
    for (std::size_t i = 0; i < n; ++i) length = (length << 8) | static_cast<std::uint8_t>(data[2 + i]);
    header += n;
  }
  if (data.size() - header < length) return std::nullopt;
  out.contents = data.substr(header, length);
  out.rest = data.substr(header + length);
  return out;
}

// The outer shape of a signed X.509 structure (a certificate or a PKCS#10 request): a
// SEQUENCE of the signed SEQUENCE, the algorithm SEQUENCE and the signature BIT STRING.
// The signature itself is not checked. Returns Go's asn1 error text, or "" when well formed.
std::string signed_der_error(std::string_view der, bool allow_trailing) {
  const auto outer = der_element(der);
  if (!outer) return "asn1: syntax error: data truncated";
  if (outer->tag != 0x30) return "asn1: structure error: tags don't match";
  if (!allow_trailing && !outer->rest.empty()) return "asn1: syntax error: trailing data";
  std::string_view inside = outer->contents;
  for (std::uint8_t tag : {std::uint8_t{0x30}, std::uint8_t{0x30}, std::uint8_t{0x03}}) {
    const auto element = der_element(inside);
    if (!element) return "asn1: syntax error: data truncated";
    if (element->tag != tag) return "asn1: structure error: tags don't match";
    inside = element->rest;
  }
  return "";
}

// certificates.ParseCSR, short of the signature check: the error text, or "".
std::string csr_error(std::string_view pem) {
  const auto block = pem_decode(pem);
  if (!block || block->type != "CERTIFICATE REQUEST") return "PEM block type must be CERTIFICATE REQUEST";
  return signed_der_error(block->bytes, false);
}

// status.certificate: one or more CERTIFICATE blocks, each holding certificates.
std::string certificate_error(std::string_view pem) {
  int blocks = 0;
  for (auto block = pem_decode(pem); block; block = pem_decode(block->rest)) {
    if (block->type != "CERTIFICATE") return "only CERTIFICATE PEM blocks are allowed, found \"" + block->type + "\"";
    if (block->has_headers) return "no PEM block headers are permitted";
    ++blocks;
    if (block->bytes.empty()) return "found CERTIFICATE PEM block containing 0 certificates";
    for (std::string_view der = block->bytes; !der.empty();) {  // x509.ParseCertificates: back to back
      if (auto error = signed_der_error(der, true); !error.empty()) return error;
      der = der_element(der)->rest;
    }
  }
  return blocks == 0 ? "must contain at least one CERTIFICATE PEM block" : "";
}

// A bytes field as JSON carries it (base64), decoded; "" when absent or not base64.
std::string bytes_field(const json& value) {
  if (!value.is_string()) return {};
  auto decoded = codec::scalars::base64_decode(value.get<std::string>());
  return decoded ? std::move(*decoded) : std::string();
}

// ---- CertificateSigningRequest ---------------------------------------------------------------

constexpr std::string_view k_legacy_signer = "kubernetes.io/legacy-unknown";

// certificates.KeyUsage values, sorted as Kubernetes lists them.
// clang-format off
constexpr std::array<std::string_view, 23> k_usages = {
    "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment",
    "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel",
    "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime",
    "server auth", "signing", "timestamping"};
// clang-format on

Cells print_csr(const json& csr, TimePoint now) {
  const auto signer = str(at(csr, {"spec", "signerName"}));
  const auto& expiration = at(csr, {"spec", "expirationSeconds"});
  const std::string duration =
      expiration.is_number() ? since(now - std::chrono::seconds(num(expiration)), now) : std::string("<none>");
  return {name_of(csr),
          age_of(csr, now),
          signer.empty() ? std::string("<none>") : signer,
          str(at(csr, {"spec", "username"})),
          duration,
          csr_status(csr)};
}

// PrepareForCreate: the requester's identity is the server's to fill in (from the
// authenticated user: the registry does that), and a request starts without conditions.
void prepare_csr(json& csr) {
  auto& spec = object_member(csr, "spec");
  for (const char* field : {"username", "uid", "groups", "extra"}) spec.erase(field);
  csr["status"] = json::object();
}

// The requester's identity, recorded on create (PrepareForCreate's UserFrom).
void stamp_csr_requester(json& csr, const json& user) {
  auto& spec = object_member(csr, "spec");
  for (const char* field : {"username", "uid", "groups", "extra"}) {
    const auto& value = at(user, {field});
    const bool empty = value.is_null() || (value.is_string() && value.get_ref<const std::string&>().empty()) ||
                       ((value.is_array() || value.is_object()) && value.empty());
    if (!empty) spec[field] = value;
  }
}

// populateConditionTimestamps: conditions without times get now, or keep the transition time of
// the same type and status before.
void populate_condition_timestamps(json& csr, const json& old) {
  auto& conditions = csr["status"]["conditions"];
  if (!conditions.is_array()) {
    if (conditions.is_null()) csr["status"].erase("conditions");
    return;
  }
  const auto now = api::print::format_rfc3339(std::chrono::system_clock::now());
  for (auto& condition : conditions) {
    if (!condition.is_object()) continue;
    if (str(at(condition, {"lastUpdateTime"})).empty()) condition["lastUpdateTime"] = now;
    if (!str(at(condition, {"lastTransitionTime"})).empty()) continue;
    std::string transition = now;
    for (const auto& before : arr(at(old, {"status", "conditions"})))
      if (at(before, {"type"}) == at(condition, {"type"}) && at(before, {"status"}) == at(condition, {"status"}) &&
          !str(at(before, {"lastTransitionTime"})).empty()) {
        transition = str(at(before, {"lastTransitionTime"}));
        break;
      }
    condition["lastTransitionTime"] = transition;
  }
}

std::vector<json> conditions_of_type(const json& csr, std::string_view type) {
  std::vector<json> out;
  for (const auto& condition : arr(at(csr, {"status", "conditions"})))
    if (str(at(condition, {"type"})) == type) out.push_back(condition);
  return out;
}

// The status strategies. /status: spec is the stored one and Approved/Denied entries cannot
// change (preserveConditionInstances); /approval: only the conditions come from the request.
void prepare_csr_subresource(std::string_view subresource, json& csr, const json& old) {
  populate_condition_timestamps(csr, old);
  if (subresource == "approval") {
    auto conditions = at(csr, {"status", "conditions"});
    csr["status"] = old.contains("status") ? old["status"] : json::object();
    if (conditions.is_null()) csr["status"].erase("conditions");
    else csr["status"]["conditions"] = std::move(conditions);
    return;
  }
  for (const char* type : {"Approved", "Denied"}) {
    const auto before = conditions_of_type(old, type);
    if (before.size() != conditions_of_type(csr, type).size()) continue;
    std::size_t next = 0;
    for (auto& condition : csr["status"]["conditions"])
      if (str(at(condition, {"type"})) == type) condition = before[next++];
  }
}

// validateCertificateSigningRequestUpdate: Approved, Denied and Failed stay once there; only
// /approval adds or changes Approved and Denied; only /status sets the certificate, once.
void validate_csr_subresource(std::string_view subresource, const json& csr, const json& old, Causes& causes) {
  for (const char* type : {"Approved", "Denied", "Failed"})
    if (conditions_of_type(csr, type).size() < conditions_of_type(old, type).size())
      forbidden(causes, "status.conditions", std::string("updates may not remove a condition of type \"") + type + "\"");
  if (subresource != "approval")
    for (const char* type : {"Approved", "Denied"}) {
      const auto now = conditions_of_type(csr, type);
      const auto before = conditions_of_type(old, type);
      if (now.size() > before.size())
        forbidden(causes, "status.conditions", std::string("updates may not add a condition of type \"") + type + "\"");
      else if (now.size() == before.size() && now != before)
        forbidden(causes, "status.conditions", std::string("updates may not modify a condition of type \"") + type + "\"");
    }
  const auto& certificate = at(csr, {"status", "certificate"});
  const auto& previous = at(old, {"status", "certificate"});
  if (certificate != previous) {
    if (subresource != "status") forbidden(causes, "status.certificate", "updates may not set certificate content");
    else if (!str(previous).empty()) forbidden(causes, "status.certificate", "updates may not modify existing certificate content");
  }
}

// PrepareForUpdate: the request and its status only change through the subresources.
void prepare_csr_update(json& csr, const json& old) {
  for (const char* field : {"spec", "status"})
    if (old.contains(field))
      csr[field] = old[field];
    else
      csr.erase(field);
}

// ValidateCertificateSigningRequestSignerName.
void validate_signer_name(Causes& causes, const std::string& signer) {
  const std::string field = "spec.signerName";
  if (signer.empty()) {
    required(causes, field, "signerName must be provided");
    return;
  }
  const auto segments = split(signer, '/');
  if (segments.size() != 2) {
    invalid_value(causes, field, signer,
                  "must be a fully qualified domain and path of the form 'example.com/signer-name'");
    return;
  }
  const std::string domain(segments[0]), path(segments[1]);
  if (domain.size() > 253) too_long(causes, field, 253);
  const auto domain_labels = split(domain, '.');
  for (const auto label : domain_labels)
    if (const auto errors = dns1123_label_errors(label); !errors.empty()) {
      for (const auto& error : errors)
        invalid_value(causes, field, domain, "validating label " + json(label).dump() + ": " + error);
      break;
    }
  if (domain_labels.size() < 2)
    invalid_value(causes, field, domain, "should be a domain with at least two segments separated by dots");
  for (const auto label : split(path, '.'))
    if (const auto errors = subdomain_errors(label); !errors.empty()) {
      for (const auto& error : errors)
        invalid_value(causes, field, path, "validating label " + json(label).dump() + ": " + error);
      break;
    }
  if (signer.size() > 253 + 63 + 1 + 253 + 1) too_long(causes, field, 253 + 63 + 1 + 253 + 1);
}

// ValidateCertificateSigningRequest's condition checks: typed, each type once, True for the
// terminal ones, never both Approved and Denied.
void validate_csr_conditions(Causes& causes, const json& conditions) {
  std::set<std::string> seen;
  bool approved = false, denied = false;
  for (std::size_t i = 0; i < arr(conditions).size(); ++i) {
    const auto& c = conditions[i];
    const std::string path = "status.conditions[" + std::to_string(i) + "]";
    const auto type = str(at(c, {"type"}));
    if (type.empty()) required(causes, path + ".type");
    const bool true_only = type == "Approved" || type == "Denied" || type == "Failed";
    const auto& status = at(c, {"status"});
    if (str(status).empty())
      required(causes, path + ".status");
    else if (true_only && status != "True")
      unsupported(causes, path + ".status", status, {"True"});
    else if (status != "True" && status != "False" && status != "Unknown")
      unsupported(causes, path + ".status", status, {"False", "True", "Unknown"});
    if ((type == "Approved" && denied) || (type == "Denied" && approved))
      invalid_value(causes, path + ".type", type, "Approved and Denied conditions are mutually exclusive");
    approved = approved || type == "Approved";
    denied = denied || type == "Denied";
    if (!seen.insert(type).second) duplicate(causes, path + ".type", type);
  }
}

void validate_csr(const json& csr, Causes& causes) {
  const auto& spec = at(csr, {"spec"});
  const std::string request = bytes_field(at(spec, {"request"}));
  if (const auto error = csr_error(request); !error.empty()) invalid_rendered(causes, "spec.request", go_bytes(request), error);

  const auto& usages = arr(at(spec, {"usages"}));
  if (usages.empty()) required(causes, "spec.usages", "usages must be provided");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < usages.size(); ++i) {
    const auto usage = str(usages[i]);
    const std::string path = "spec.usages[" + std::to_string(i) + "]";
    if (std::find(k_usages.begin(), k_usages.end(), usage) == k_usages.end())
      unsupported(causes, path, usages[i], k_usages);
  }
  for (std::size_t i = 0; i < usages.size(); ++i)
    if (!seen.insert(str(usages[i])).second) duplicate(causes, "spec.usages[" + std::to_string(i) + "]", usages[i]);

  const auto signer = str(at(spec, {"signerName"}));
  if (signer == k_legacy_signer)
    invalid_value(causes, "spec.signerName", signer, "the legacy signerName is not allowed via this API version");
  else
    validate_signer_name(causes, signer);

  if (const auto& expiration = at(spec, {"expirationSeconds"}); expiration.is_number() && num(expiration) < 600)
    invalid_value(causes, "spec.expirationSeconds", expiration,
                  "may not specify a duration less than 600 seconds (10 minutes)");

  validate_csr_conditions(causes, at(csr, {"status", "conditions"}));
  if (const auto certificate = bytes_field(at(csr, {"status", "certificate"})); !certificate.empty())
    if (const auto error = certificate_error(certificate); !error.empty())
      invalid_value(causes, "status.certificate", "<certificate data>", error);
}

KindSpec csr_row() {
  return {
      .info = {.group = "certificates.k8s.io",
               .version = "v1",
               .kind = "CertificateSigningRequest",
               .plural = "certificatesigningrequests",
               .short_names = {"csr"},
               .namespaced = false,
               .subresources = {"approval", "status"},
               .columns =
                   {name_col(), age_col(),
                    col("SignerName", "string",
                        "Requested signer for the request. It is a qualified name in the form: "
                        "`scope-hostname.io/name`. If empty, it will be defaulted:\n 1. If it's a kubelet client "
                        "certificate, it is assigned\n    \"kubernetes.io/kube-apiserver-client-kubelet\".\n 2. If "
                        "it's a kubelet serving certificate, it is assigned\n    \"kubernetes.io/kubelet-serving\".\n "
                        "3. Otherwise, it is assigned \"kubernetes.io/legacy-unknown\".\nDistribution of trust for "
                        "signers happens out of band. You can select on this field using `spec.signerName`."),
                    col("Requestor", "string", "Base64-encoded PKCS#10 CSR data"),
                    col("RequestedDuration", "string",
                        "expirationSeconds is the requested duration of validity of the issued certificate. The "
                        "certificate signer may issue a certificate with a different validity duration so a client "
                        "must check the delta between the notBefore and and notAfter fields in the issued certificate "
                        "to determine the actual duration.\n\nThe v1.22+ in-tree implementations of the well-known "
                        "Kubernetes signers will honor this field as long as the requested duration is not greater "
                        "than the maximum duration they will honor per the --cluster-signing-duration CLI flag to the "
                        "Kubernetes controller manager.\n\nCertificate signers may not honor this field for various "
                        "reasons:\n\n  1. Old signer that is unaware of the field (such as the in-tree\n     "
                        "implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than the "
                        "requested duration\n  3. Signer whose configured minimum is longer than the requested "
                        "duration\n\nThe minimum valid value for expirationSeconds is 600, i.e. 10 minutes."),
                    col("Condition", "string", "Conditions applied to the request, such as approval or denial.")},
               .printer = print_csr},
      .fields = {{"spec.signerName", {"spec", "signerName"}, ""}},
      .strategy = {.prepare_create = prepare_csr,
                   .prepare_update = prepare_csr_update,
                   .validate = validate_csr,
                   .stamp_requester = stamp_csr_requester,
                   .prepare_subresource = prepare_csr_subresource,
                   .validate_subresource = validate_csr_subresource}};
}

}  // namespace

std::vector<KindSpec> certificates_v1_kinds() { return {csr_row()}; }

}  // namespace kw::kinds
