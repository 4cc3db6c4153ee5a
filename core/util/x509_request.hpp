#pragma once
// What a PKCS#10 certificate signing request (a CertificateSigningRequest's spec.request, PEM)
// asks for: its subject and subject alternative names, read with OpenSSL. The signature is
// not checked here.
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.hpp"

namespace kw::util {

struct CertificateRequest {
  struct Subject {
    std::string common_name;
    std::string serial_number;
    std::vector<std::string> organization;
    std::vector<std::string> organizational_unit;
    std::vector<std::string> country;
    std::vector<std::string> locality;
    std::vector<std::string> province;
    std::vector<std::string> street_address;
    std::vector<std::string> postal_code;
  };
  Subject subject;
  std::vector<std::string> dns_names;
  std::vector<std::string> email_addresses;
  std::vector<std::string> uris;
  std::vector<std::string> ip_addresses;  // as Go prints a net.IP (an IPv4-mapped one as IPv4)
};

// The first CERTIFICATE REQUEST of `pem`; an error when there is none or it cannot be read.
Result<CertificateRequest> parse_certificate_request(std::string_view pem);

}  // namespace kw::util
