#include "core/util/x509_request.hpp"

#include <arpa/inet.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <array>
#include <memory>

namespace kw::util {

namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct RequestFree {
  void operator()(X509_REQ* request) const { X509_REQ_free(request); }
};
struct ExtensionsFree {
  void operator()(STACK_OF(X509_EXTENSION) * extensions) const {
    sk_X509_EXTENSION_pop_free(extensions, X509_EXTENSION_free);
  }
};
struct NamesFree {
  void operator()(GENERAL_NAMES* names) const { GENERAL_NAMES_free(names); }
};

std::string text_of(const ASN1_STRING* value) {
  return {reinterpret_cast<const char*>(ASN1_STRING_get0_data(value)), static_cast<std::size_t>(ASN1_STRING_length(value))};
}

// Every value of the attribute `nid` in `name`, in order.
std::vector<std::string> values_of(const X509_NAME* name, int nid) {
  std::vector<std::string> out;
  for (int i = X509_NAME_get_index_by_NID(name, nid, -1); i >= 0; i = X509_NAME_get_index_by_NID(name, nid, i))
    out.push_back(text_of(X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i))));
  return out;
}

// Go's net.IP.String() of 4 or 16 address bytes; "" for any other length.
std::string ip_text(const ASN1_OCTET_STRING* address) {
  const unsigned char* bytes = ASN1_STRING_get0_data(address);
  const int length = ASN1_STRING_length(address);
  static constexpr std::array<unsigned char, 12> k_v4_mapped = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  std::array<char, INET6_ADDRSTRLEN> text{};
  if (length == 16 && std::equal(k_v4_mapped.begin(), k_v4_mapped.end(), bytes))
    return inet_ntop(AF_INET, bytes + 12, text.data(), text.size()) ? text.data() : "";
  if (length == 4) return inet_ntop(AF_INET, bytes, text.data(), text.size()) ? text.data() : "";
  if (length == 16) return inet_ntop(AF_INET6, bytes, text.data(), text.size()) ? text.data() : "";
  return "";
}

void read_alternative_names(X509_REQ* request, CertificateRequest& out) {
  std::unique_ptr<STACK_OF(X509_EXTENSION), ExtensionsFree> extensions(X509_REQ_get_extensions(request));
  if (!extensions) return;
  for (int i = 0; i < sk_X509_EXTENSION_num(extensions.get()); ++i) {
    X509_EXTENSION* extension = sk_X509_EXTENSION_value(extensions.get(), i);
    if (OBJ_obj2nid(X509_EXTENSION_get_object(extension)) != NID_subject_alt_name) continue;
    std::unique_ptr<GENERAL_NAMES, NamesFree> names(static_cast<GENERAL_NAMES*>(X509V3_EXT_d2i(extension)));
    if (!names) continue;
    for (int j = 0; j < sk_GENERAL_NAME_num(names.get()); ++j) {
      const GENERAL_NAME* name = sk_GENERAL_NAME_value(names.get(), j);
      switch (name->type) {
        case GEN_DNS: out.dns_names.push_back(text_of(name->d.dNSName)); break;
        case GEN_EMAIL: out.email_addresses.push_back(text_of(name->d.rfc822Name)); break;
        case GEN_URI: out.uris.push_back(text_of(name->d.uniformResourceIdentifier)); break;
        case GEN_IPADD: out.ip_addresses.push_back(ip_text(name->d.iPAddress)); break;
        default: break;
      }
    }
  }
}

}  // namespace

Result<CertificateRequest> parse_certificate_request(std::string_view pem) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return fail("out of memory reading the certificate request");
  std::unique_ptr<X509_REQ, RequestFree> request(PEM_read_bio_X509_REQ(bio.get(), nullptr, nullptr, nullptr));
  if (!request) return fail("PEM block type must be CERTIFICATE REQUEST");
  CertificateRequest out;
  const X509_NAME* subject = X509_REQ_get_subject_name(request.get());
  auto& s = out.subject;
  if (auto names = values_of(subject, NID_commonName); !names.empty()) s.common_name = names.back();
  if (auto numbers = values_of(subject, NID_serialNumber); !numbers.empty()) s.serial_number = numbers.back();
  s.organization = values_of(subject, NID_organizationName);
  s.organizational_unit = values_of(subject, NID_organizationalUnitName);
  s.country = values_of(subject, NID_countryName);
  s.locality = values_of(subject, NID_localityName);
  s.province = values_of(subject, NID_stateOrProvinceName);
  s.street_address = values_of(subject, NID_streetAddress);
  s.postal_code = values_of(subject, NID_postalCode);
  read_alternative_names(request.get(), out);
  return out;
}

}  // namespace kw::util
