// apimachinery's name formats (server/registry/kinds/checks_names.cpp), message for message as
// k8s.io/apimachinery/pkg/util/validation words them.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "server/registry/kinds/checks.hpp"

using namespace kw::kinds;
using Messages = std::vector<std::string>;

namespace {

const std::string k_subdomain =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const std::string k_label =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const std::string k_dns1035 =
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
    "'[a-z]([-a-z0-9]*[a-z0-9])?')";
const std::string k_name_part =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const std::string k_label_value =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

}  // namespace

TEST_CASE("IsDNS1123Subdomain") {
  CHECK(subdomain_errors("example.com").empty());
  CHECK(subdomain_errors("a-1.b-2").empty());
  CHECK(subdomain_errors("Bad_Name") == Messages{k_subdomain});
  CHECK(subdomain_errors("") == Messages{k_subdomain});
  CHECK(subdomain_errors("a..b") == Messages{k_subdomain});
  CHECK(subdomain_errors(std::string(254, 'a')) == Messages{"must be no more than 253 characters"});
  CHECK(k_subdomain_help == k_subdomain);
}

TEST_CASE("IsDNS1123Label: dots, shape and length") {
  CHECK(dns1123_label_errors("my-name").empty());
  CHECK(dns1123_label_errors("a.b") == Messages{"must not contain dots"});
  CHECK(dns1123_label_errors("-a") == Messages{k_label});
  CHECK(dns1123_label_errors("A") == Messages{k_label});
  CHECK(dns1123_label_errors(std::string(64, 'a')) == Messages{"must be no more than 63 characters"});
  CHECK(dns1123_label_errors(std::string(64, '-')) == Messages{"must be no more than 63 characters", k_label});
  CHECK(is_dns1123_label("abc"));
  CHECK_FALSE(is_dns1123_label("a.b"));
}

TEST_CASE("IsDNS1035Label") {
  CHECK(dns1035_label_errors("v1beta1").empty());
  CHECK(dns1035_label_errors("1abc") == Messages{k_dns1035});
  CHECK(dns1035_label_errors("") == Messages{k_dns1035});
  CHECK(k_dns1035_help == k_dns1035);
}

TEST_CASE("IsWildcardDNS1123Subdomain") {
  CHECK(wildcard_subdomain_errors("*.example.com").empty());
  CHECK(wildcard_subdomain_errors("foo.*.com") ==
        Messages{"a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must "
                 "consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character "
                 "(e.g. '*.example.com', regex used for validation is "
                 "'\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"});
}

TEST_CASE("IsQualifiedName: prefix and name parts") {
  CHECK(qualified_name_errors("app").empty());
  CHECK(qualified_name_errors("example.com/My.Name_1").empty());
  CHECK(qualified_name_errors("a/b/c") ==
        Messages{"a qualified name " + k_name_part +
                 " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"});
  CHECK(qualified_name_errors("/a") == Messages{"prefix part must be non-empty"});
  CHECK(qualified_name_errors("Example.com/a") == Messages{"prefix part " + k_subdomain});
  CHECK(qualified_name_errors("a/") == Messages{"name part must be non-empty", "name part " + k_name_part});
  CHECK(qualified_name_errors(std::string(64, 'a')) == Messages{"name part must be no more than 63 characters"});
  CHECK(qualified_name_errors("-x-") == Messages{"name part " + k_name_part});
  CHECK(is_qualified_name("kubernetes.io/hostname"));
}

TEST_CASE("IsValidLabelValue") {
  CHECK(label_value_errors("").empty());
  CHECK(label_value_errors("My_value.1").empty());
  CHECK(label_value_errors("-x-") == Messages{k_label_value});
  CHECK(label_value_errors(std::string(64, 'a')) == Messages{"must be no more than 63 characters"});
  CHECK(is_label_value(""));
}

TEST_CASE("IsValidPathSegmentName") {
  CHECK(path_segment_errors("name").empty());
  CHECK(path_segment_errors("..") == Messages{"may not be '..'"});
  CHECK(path_segment_errors("a/b%c") == Messages{"may not contain '/'", "may not contain '%'"});
}

TEST_CASE("IsValidPortName and IsValidPortNum") {
  CHECK(port_name_errors("http").empty());
  CHECK(port_name_errors("-Http--1234567890") ==
        Messages{"must be no more than 15 characters",
                 "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
                 "must not contain consecutive hyphens", "must not begin or end with a hyphen"});
  CHECK(port_name_errors("123") == Messages{"must contain at least one letter (a-z)"});
  CHECK(port_number_errors(80).empty());
  CHECK(port_number_errors(0) == Messages{"must be between 1 and 65535, inclusive"});
  CHECK(port_number_errors(65536) == Messages{"must be between 1 and 65535, inclusive"});
}

TEST_CASE("ValidateCSIDriverName") {
  Causes causes = Causes::array();
  validate_csi_driver_name(causes, "spec.driver", "CSI.Example.com");
  CHECK(causes.empty());
  validate_csi_driver_name(causes, "spec.driver", std::string(64, 'a'));
  REQUIRE(causes.size() == 1);
  CHECK(causes[0]["message"] == "Too long: may not be more than 63 bytes");
}
