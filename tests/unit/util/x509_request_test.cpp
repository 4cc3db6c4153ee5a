// util::parse_certificate_request (core/util/x509_request.hpp).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/util/x509_request.hpp"

namespace {

using Strings = std::vector<std::string>;

// openssl req -subj "/CN=first/CN=bob/O=b/O=a/serialNumber=7" -addext "subjectAltName=
// DNS:x.example.com,IP:10.1.2.3,IP:fd00::1,IP:::ffff:1.2.3.4,email:b@example.com,URI:https://example.com/b"
constexpr const char* k_request = R"(-----BEGIN CERTIFICATE REQUEST-----
MIIBeDCCAR8CAQAwQjEOMAwGA1UEAwwFZmlyc3QxDDAKBgNVBAMMA2JvYjEKMAgG
A1UECgwBYjEKMAgGA1UECgwBYTEKMAgGA1UEBRMBNzBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABGWo6b1NkcG/S9xzX9TQc3RmbSJhf+66aUQxfq6Lh0AK13MyXs2O
iR/CRIHUhiqxpxK5xS3JdjINpEENf8RRa1igezB5BgkqhkiG9w0BCQ4xbDBqMGgG
A1UdEQRhMF+CDXguZXhhbXBsZS5jb22HBAoBAgOHEP0AAAAAAAAAAAAAAAAAAAGH
EAAAAAAAAAAAAAD//wECAwSBDWJAZXhhbXBsZS5jb22GFWh0dHBzOi8vZXhhbXBs
ZS5jb20vYjAKBggqhkjOPQQDAgNHADBEAh9d7Pz0if7L97vaAgzpnjp4/QK7cd2F
btWdp6RY9YrJAiEA2M5pw5N0p3v88jbKAx6wpxIE7ANpFe4nyCXEjSMIxaI=
-----END CERTIFICATE REQUEST-----
)";

}  // namespace

TEST_CASE("a certificate request's subject and alternative names, as Go's x509 reads them") {
  auto request = kw::util::parse_certificate_request(k_request);
  REQUIRE(request);
  CHECK(request->subject.common_name == "bob");  // the last one, as pkix.Name keeps it
  CHECK(request->subject.serial_number == "7");
  CHECK(request->subject.organization == Strings{"b", "a"});  // in the request's order
  CHECK(request->subject.country.empty());
  CHECK(request->dns_names == Strings{"x.example.com"});
  CHECK(request->email_addresses == Strings{"b@example.com"});
  CHECK(request->uris == Strings{"https://example.com/b"});
  CHECK(request->ip_addresses == Strings{"10.1.2.3", "fd00::1", "1.2.3.4"});  // a v4-mapped one as IPv4
}

TEST_CASE("what is not a certificate request is an error") {
  CHECK_FALSE(kw::util::parse_certificate_request(""));
  CHECK_FALSE(kw::util::parse_certificate_request("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"));
  CHECK(kw::util::parse_certificate_request("junk").error().message == "PEM block type must be CERTIFICATE REQUEST");
}
