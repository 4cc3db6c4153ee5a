#pragma once
// The building blocks of the rows' strategies, one implementation each, worded as Kubernetes
// words them:
//   - field errors (field.Error): each failure is a StatusCause {reason, message, field}
//     appended to a Causes array (checks.cpp);
//   - Go's rendering of values inside those messages (%q, %#v of a []string) (checks.cpp);
//   - small JSON helpers for paths and defaulting (checks.cpp);
//   - apimachinery's name formats with their exact messages (checks_names.cpp);
//   - metav1 validation: labels, annotations, label selectors, conditions (checks_meta.cpp);
//   - IP addresses and CIDRs as netutils parses them (checks_ip.cpp);
//   - core/v1 resource names and quantities (checks_resources.cpp).
// Pod specs and templates have their own header (pod_spec.hpp).
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/registry/kinds/kind_spec.hpp"

namespace kw::kinds {

// ---- field errors ----------------------------------------------------------------------------

void add_cause(Causes& causes, const std::string& field, const std::string& reason, const std::string& message);
// "Invalid value: <value as JSON>: <why>"
void invalid_value(Causes& causes, const std::string& field, const nlohmann::json& value, const std::string& why);
// "Invalid value: <rendered>: <why>" (no ": <why>" when why is empty), for values Go prints with
// %#v (structs, typed slices).
void invalid_rendered(Causes& causes, const std::string& field, const std::string& rendered, const std::string& why);
// One invalid_value per message (a validation.Is* result).
void invalid_each(Causes& causes, const std::string& field, const nlohmann::json& value,
                  const std::vector<std::string>& whys);
// "Required value" or "Required value: <detail>"
void required(Causes& causes, const std::string& field, const std::string& detail = "");
// "Unsupported value: "x": supported values: "a", "b""
void unsupported(Causes& causes, const std::string& field, const nlohmann::json& value,
                 std::initializer_list<std::string_view> supported);
void unsupported(Causes& causes, const std::string& field, const nlohmann::json& value,
                 std::span<const std::string_view> supported);
void unsupported_rendered(Causes& causes, const std::string& field, const std::string& rendered,
                          std::initializer_list<std::string_view> supported);
void unsupported_rendered(Causes& causes, const std::string& field, const std::string& rendered,
                          std::span<const std::string_view> supported);
// "Forbidden: <detail>"
void forbidden(Causes& causes, const std::string& field, const std::string& detail);
// "Duplicate value: <value as JSON>" / "Duplicate value: <rendered>"
void duplicate(Causes& causes, const std::string& field, const nlohmann::json& value);
void duplicate_rendered(Causes& causes, const std::string& field, const std::string& rendered);
// "Too long: may not be more than <max> bytes"
void too_long(Causes& causes, const std::string& field, std::size_t max_bytes);
// "Too many: <actual>: must have at most <max> items"
void too_many(Causes& causes, const std::string& field, std::size_t actual, std::size_t max);
// "Invalid value: <value>: field is immutable" when `field` differs between the objects.
void immutable(Causes& causes, const std::string& field, const nlohmann::json& now, const nlohmann::json& before);
// An integer field that, when set, must be >= 0 (or > 0 with `positive`).
void non_negative(Causes& causes, const std::string& field, const nlohmann::json& value, bool positive = false);
// non_negative for each of a status' counters, reported as status.<field>.
void non_negative_status(Causes& causes, const nlohmann::json& status, std::initializer_list<const char*> fields);
// status.<field> may not exceed status.<limit>: "Invalid value: N: cannot be greater than <what>".
void not_above_status(Causes& causes, const nlohmann::json& status, const char* field, const char* limit,
                      const std::string& what);
// ValidateReplicaSetStatus (and ValidateReplicationControllerStatus, the same rules): the counts
// are not negative and none exceeds status.replicas, nor availableReplicas readyReplicas.
void validate_replica_counts(Causes& causes, const nlohmann::json& status);
// IsDecremented: status.collisionCount went down ("cannot be decremented"; unset counts as 0).
void collision_count_not_decremented(Causes& causes, const nlohmann::json& object, const nlohmann::json& old);

// ---- paths and JSON helpers --------------------------------------------------------------------

// A *bool member that is set to true (is_true) or to false (is_false); unset is neither.
inline bool is_true(const nlohmann::json& value) { return value.is_boolean() && value.get<bool>(); }
inline bool is_false(const nlohmann::json& value) { return value.is_boolean() && !value.get<bool>(); }
// Whether strings.TrimSpace would change `text` (ASCII white space at either end).
bool has_surrounding_space(std::string_view text);
// Whether a slash-separated path has a ".." element.
bool has_backsteps(std::string_view path);
// validatePathNoBacksteps: no ".." element in a slash-separated path.
void no_backsteps(Causes& causes, const std::string& field, const std::string& path);
// validateLocalDescendingPath: relative, without "..".
void local_descending_path(Causes& causes, const std::string& field, const std::string& path);
std::string index_path(const std::string& path, std::size_t i);       // "path[i]"
std::string key_path(const std::string& path, std::string_view key);  // "path[key]"
// The member `key` of `parent`, made an empty object when it is missing or not an object.
nlohmann::json& object_member(nlohmann::json& parent, const char* key);
// A member that is absent or null, as Go sees a nil pointer.
bool unset(const nlohmann::json& parent, const char* key);
// Sets `key` when the member is absent or null (a nil pointer).
void default_value(nlohmann::json& parent, const char* key, const nlohmann::json& value);
// Sets `key` when the member is absent, null or "" (a Go zero string).
void default_string(nlohmann::json& parent, const char* key, const char* value);
bool one_of(std::string_view value, std::initializer_list<std::string_view> set);
// Go's nil or empty: null, or an empty list or map.
bool empty_value(const nlohmann::json& value);
// apiequality.Semantic.DeepEqual over the JSON form: a missing member, null and an empty list
// or map are the same (Go's nil and empty), and quantities compare by value ("1" == "1000m")
// under a "resources" member, or everywhere with `quantities`.
bool semantic_equal(const nlohmann::json& a, const nlohmann::json& b, bool quantities = false);
// Whether a list holds "*".
bool contains_wildcard(const nlohmann::json& list);
// Go's strings.Split: n+1 parts for n separators.
std::vector<std::string_view> split(std::string_view text, char separator);

// ---- Go's rendering of values in field errors --------------------------------------------------

// A string field as %q prints it ("" for anything but a string); JSON's quoting, which is Go's
// for printable text.
std::string go_quoted(const nlohmann::json& value);
// A string list as %#v prints it: []string{"a", "b"}, or []string(nil) when it is not a list.
std::string go_slice(const nlohmann::json& list, std::string_view type = "string");
// A []byte as %#v prints it: []byte{0x6e, 0x6f}, []byte{} when empty.
std::string go_bytes(std::string_view bytes);
// A map[string]string as %#v prints it: map[string]string{"a":"b", "c":"d"} (keys in order),
// map[string]string{} when empty, map[string]string(nil) when absent.
std::string go_string_map(const nlohmann::json& map);
// A metav1.LabelSelector as %#v prints it:
// v1.LabelSelector{MatchLabels:map[string]string{...}, MatchExpressions:[]v1.LabelSelectorRequirement{...}}.
std::string go_label_selector(const nlohmann::json& selector);

// A strategy's validate_create and validate_update made of one check that takes the stored object
// (null on create), for kinds whose updates differ from creates only in what the stored object
// lets them keep (a pod template's ratchets).
template <void (*Check)(const nlohmann::json&, const nlohmann::json*, Causes&)>
void check_create(const nlohmann::json& object, Causes& causes) {
  Check(object, nullptr, causes);
}
template <void (*Check)(const nlohmann::json&, const nlohmann::json*, Causes&)>
void check_update(const nlohmann::json& object, const nlohmann::json& old, Causes& causes) {
  Check(object, &old, causes);
}

// ---- apimachinery's name formats (util/validation), message for message ------------------------

// [A-Za-z0-9], whatever the locale.
inline bool ascii_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

extern const std::string k_subdomain_help;      // RegexError of IsDNS1123Subdomain
extern const char* const k_label_help;          // RegexError of IsDNS1123Label
extern const char* const k_dns1035_help;        // RegexError of IsDNS1035Label
std::string max_len_error(std::size_t length);  // MaxLenError

std::vector<std::string> subdomain_errors(std::string_view value);           // IsDNS1123Subdomain
std::vector<std::string> underscore_subdomain_errors(std::string_view value);  // IsDNS1123SubdomainWithUnderscore
std::vector<std::string> dns1123_label_errors(std::string_view value);       // IsDNS1123Label
std::vector<std::string> dns1035_label_errors(std::string_view value);       // IsDNS1035Label
std::vector<std::string> wildcard_subdomain_errors(std::string_view value);  // IsWildcardDNS1123Subdomain
std::vector<std::string> qualified_name_errors(std::string_view value);      // IsQualifiedName (label keys)
std::vector<std::string> label_value_errors(std::string_view value);         // IsValidLabelValue
std::vector<std::string> path_segment_errors(std::string_view value);        // path.IsValidPathSegmentName
std::vector<std::string> config_key_errors(std::string_view value);          // IsConfigMapKey
std::vector<std::string> port_name_errors(std::string_view value);           // IsValidPortName
std::vector<std::string> port_number_errors(std::int64_t port);              // IsValidPortNum

bool is_dns1123_label(std::string_view value);
bool is_dns1123_subdomain(std::string_view value);
bool is_qualified_name(std::string_view value);  // label/annotation key
bool is_label_value(std::string_view value);

// A string field that, when non-empty, must be a DNS subdomain (class names, driver names...).
void subdomain_field(Causes& causes, const std::string& field, const nlohmann::json& value);
// A string field that, when set, must be a DNS-1123 label (namespaces, volume names...).
void label_field(Causes& causes, const std::string& field, const nlohmann::json& value);
// core validation's ValidateCSIDriverName: a DNS subdomain (case-insensitive) of at most 63
// characters.
void validate_csi_driver_name(Causes& causes, const std::string& field, const std::string& name);

// ---- metav1 validation -------------------------------------------------------------------------

// ValidateLabels: every key a qualified name, every value a label value (errors name the map).
void validate_labels(Causes& causes, const nlohmann::json& labels, const std::string& path);
// ValidateAnnotations' key check: every key, lowered, a qualified name.
void validate_annotation_keys(Causes& causes, const nlohmann::json& annotations, const std::string& path);
// ValidateLabelSelector: matchLabels as labels, matchExpressions by operator.
void validate_label_selector(Causes& causes, const nlohmann::json& selector, const std::string& path);
// ValidateConditions: a metav1.Condition list.
void validate_conditions(Causes& causes, const nlohmann::json& conditions, const std::string& path);

// ---- IP addresses and CIDRs (netutils' sloppy parsing, Go's printing) --------------------------

struct Ip {
  std::array<std::uint8_t, 16> bytes{};  // IPv4 in the last four bytes, after ::ffff
  bool v4 = false;                       // written as dotted IPv4
  bool mapped = false;                   // an IPv4-mapped IPv6 address (::ffff:a.b.c.d)
  bool leading_zero = false;             // a dotted part with a leading 0, or a group of over four hex
                                         // digits: only sloppy parsing allows them
};
// netutils.ParseIPSloppy: dotted IPv4 (leading zeros allowed) or IPv6, no zone.
std::optional<Ip> parse_ip(std::string_view text);
// IP.To4() != nil: dotted, or IPv4-mapped.
bool is_v4(const Ip& ip);
// Go's IP.String(): dotted for IPv4 (and mapped) addresses, RFC 5952 for IPv6.
std::string ip_string(const Ip& ip);

struct Cidr {
  Ip ip;  // as written
  int bits = 0;
  bool prefix_leading_zero = false;

  // The network address: the bits past the prefix cleared.
  Ip network() const;
  bool host_bits_set() const;
  // IPNet.Contains: IPv4 and IPv4-mapped addresses compare as IPv4.
  bool contains(const Ip& other) const;
};
// netutils.ParseCIDRSloppy.
std::optional<Cidr> parse_cidr(std::string_view text);
std::string cidr_string(const Cidr& cidr);

extern const char* const k_ip_help;
extern const char* const k_cidr_help;
// validation.IsValidIP: a valid address in canonical form.
std::vector<std::string> strict_ip_errors(std::string_view value);
// validation.IsValidCIDR: a valid CIDR in canonical form.
std::vector<std::string> strict_cidr_errors(std::string_view value);

// ---- core/v1 resource names and quantities (pkg/apis/core/helper, core validation) ------------

bool is_native_resource(std::string_view name);    // no domain, or a kubernetes.io one
bool is_hugepages(std::string_view name);          // hugepages-<size>
bool is_extended_resource(std::string_view name);  // a domain-qualified, non-native resource
bool is_standard_resource(std::string_view name);  // IsStandardResourceName
bool is_integer_resource(std::string_view name);   // IsIntegerResourceName
// validateResourceName: qualified, and standard unless it carries a domain.
void resource_name(Causes& causes, const std::string& field, const std::string& name);
// validateContainerResourceName.
void container_resource_name(Causes& causes, const std::string& field, const std::string& name);

// The quantity as its text, for messages.
std::string quantity_text(const nlohmann::json& value);
// ValidateNonnegativeQuantity.
void nonnegative_quantity(Causes& causes, const std::string& field, const nlohmann::json& value);

// Go's %#v of an IntOrString, as its field errors print it.
std::string go_int_or_string(const nlohmann::json& value);
// ValidatePositiveIntOrPercent (a non-negative integer or "N%"), and with at_most_100
// IsNotMoreThan100Percent. Absent values pass.
void validate_int_or_percent(Causes& causes, const nlohmann::json& value, const std::string& path, bool at_most_100);
// IsNotMoreThan100Percent: a valid "N%" must not exceed 100%; anything else passes.
void not_over_100_percent(Causes& causes, const nlohmann::json& value, const std::string& path);
// getIntOrPercentValue: N of a valid "N%", an integer as it is, a numeric string as its number,
// anything else 0.
std::int64_t int_or_percent_value(const nlohmann::json& value);
// ValidatePositiveQuantityValue.
void positive_quantity(Causes& causes, const std::string& field, const nlohmann::json& value);
// validateBasicResource: the value rounded up to an integer (Value()) must not be negative.
void basic_resource(Causes& causes, const std::string& field, const nlohmann::json& value);
// ValidateResourceQuantityValue: not negative, and whole for countable resources.
void resource_quantity(Causes& causes, const std::string& field, const std::string& name, const nlohmann::json& value);

}  // namespace kw::kinds
