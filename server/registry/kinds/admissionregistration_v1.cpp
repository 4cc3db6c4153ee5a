// admissionregistration.k8s.io/v1: MutatingWebhookConfiguration, ValidatingAdmissionPolicy,
// ValidatingAdmissionPolicyBinding, ValidatingWebhookConfiguration. matchConditions are compiled
// as kube-apiserver compiles them; a policy's validations are only checked for presence.
#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/api/print_support.hpp"
#include "core/util/text.hpp"
#include "server/registry/kinds/cel_envs.hpp"
#include "server/registry/kinds/checks.hpp"
#include "server/registry/kinds/groups.hpp"

namespace kw::kinds {
namespace {

using namespace api::print;

std::vector<std::string> strings_of(const json& list) {
  std::vector<std::string> out;
  for (const auto& item : arr(list)) out.push_back(str(item));
  return out;
}

bool blank(std::string_view s) {
  return std::ranges::all_of(s, [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
}

// ---- printers ----------------------------------------------------------------------------------

Cells print_webhook_configuration(const json& o, TimePoint now) {
  return {name_of(o), size_of(at(o, {"webhooks"})), age_of(o, now)};
}

Cells print_policy(const json& o, TimePoint now) {
  const auto& kind = at(o, {"spec", "paramKind"});
  const std::string param_kind =
      kind.is_object() ? str(at(kind, {"apiVersion"})) + "/" + str(at(kind, {"kind"})) : std::string("<unset>");
  return {name_of(o), size_of(at(o, {"spec", "validations"})), param_kind, age_of(o, now)};
}

// A LabelSelector as its generated Go String() method prints it.
std::string go_label_selector_string(const json& selector) {
  std::string labels = "map[string]string{";
  std::vector<std::string> keys;
  if (at(selector, {"matchLabels"}).is_object())
    for (const auto& [k, v] : at(selector, {"matchLabels"}).items()) keys.push_back(k);
  std::ranges::sort(keys);
  for (const auto& k : keys) labels += k + ": " + str(at(selector, {"matchLabels", k})) + ",";
  labels += "}";
  std::string expressions = "[]LabelSelectorRequirement{";
  for (const auto& req : arr(at(selector, {"matchExpressions"})))
    expressions += "LabelSelectorRequirement{Key:" + str(at(req, {"key"})) + ",Operator:" + str(at(req, {"operator"})) +
                   ",Values:[" + join(strings_of(at(req, {"values"})), " ") + "],},";
  expressions += "}";
  return "&LabelSelector{MatchLabels:" + labels + ",MatchExpressions:" + expressions + ",}";
}

Cells print_policy_binding(const json& o, TimePoint now) {
  std::string param = "<unset>";
  if (const auto& ref = at(o, {"spec", "paramRef"}); ref.is_object()) {
    const std::string name = str(at(ref, {"name"}));
    const std::string ns = str(at(ref, {"namespace"}));
    if (!name.empty())
      param = (ns.empty() ? "*" : ns) + "/" + name;
    else if (at(ref, {"selector"}).is_object())
      param = go_label_selector_string(at(ref, {"selector"}));
  }
  return {name_of(o), str(at(o, {"spec", "policyName"})), param, age_of(o, now)};
}

api::ColumnDefinition webhooks_col() {
  return col("Webhooks", "integer", "Webhooks indicates the number of webhooks registered in this configuration");
}

// ---- defaults ----------------------------------------------------------------------------------

// SetDefaults_Rule on every rule of a list (the Rule fields sit inline in JSON).
void default_rules(json& rules) {
  if (!rules.is_array()) return;
  for (auto& rule : rules)
    if (rule.is_object()) default_value(rule, "scope", "*");
}

void default_webhook(json& hook, bool mutating) {
  default_value(hook, "failurePolicy", "Fail");
  default_value(hook, "matchPolicy", "Equivalent");
  default_value(hook, "namespaceSelector", json::object());
  default_value(hook, "objectSelector", json::object());
  default_value(hook, "timeoutSeconds", 10);
  if (mutating) default_value(hook, "reinvocationPolicy", "Never");
  if (auto& service = at(hook, {"clientConfig", "service"}); service.is_object())
    default_value(hook["clientConfig"]["service"], "port", 443);
  if (hook.contains("rules")) default_rules(hook["rules"]);
}

void default_webhooks(json& configuration, bool mutating) {
  if (!configuration.contains("webhooks") || !configuration["webhooks"].is_array()) return;
  for (auto& hook : configuration["webhooks"])
    if (hook.is_object()) default_webhook(hook, mutating);
}

void default_mutating(json& o) { default_webhooks(o, true); }
void default_validating(json& o) { default_webhooks(o, false); }

// SetDefaults_MatchResources and the rules inside.
void default_match_resources(json& match) {
  if (!match.is_object()) return;
  default_value(match, "matchPolicy", "Equivalent");
  default_value(match, "namespaceSelector", json::object());
  default_value(match, "objectSelector", json::object());
  for (const char* list : {"resourceRules", "excludeResourceRules"})
    if (match.contains(list)) default_rules(match[list]);
}

void default_policy(json& policy) {
  auto& spec = object_member(policy, "spec");
  default_value(spec, "failurePolicy", "Fail");
  if (spec.contains("matchConstraints")) default_match_resources(spec["matchConstraints"]);
}

void default_binding(json& binding) {
  auto& spec = object_member(binding, "spec");
  if (spec.contains("matchResources")) default_match_resources(spec["matchResources"]);
}

// ---- create and update -------------------------------------------------------------------------

// Webhook configurations have no spec: their generation follows the webhooks.
void prepare_webhooks_create(json& o) { object_member(o, "metadata")["generation"] = 1; }

void prepare_webhooks_update(json& o, const json& old) {
  auto& meta = object_member(o, "metadata");
  const std::int64_t before = num(at(old, {"metadata", "generation"}));
  meta["generation"] = at(o, {"webhooks"}) != at(old, {"webhooks"}) ? before + 1 : before;
}

void prepare_policy_create(json& policy) { policy["status"] = json::object(); }

// ---- rules -------------------------------------------------------------------------------------

// validateResources: resources may name subresources, with wildcards that must not overlap.
void validate_resources(Causes& causes, const json& resources, const std::string& path) {
  const auto& list = arr(resources);
  if (list.empty()) required(causes, path);
  std::set<std::string> with_wildcard_sub, with_wildcard_res;
  bool double_wildcard = false, single_wildcard = false, without_sub = false;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string r = str(list[i]);
    if (r.empty()) {
      required(causes, index_path(path, i));
      continue;
    }
    if (r == "*/*") double_wildcard = true;
    if (r == "*") single_wildcard = true;
    const auto slash = r.find('/');
    if (slash == std::string::npos) {
      without_sub = r != "*";
      continue;
    }
    const std::string res = r.substr(0, slash), sub = r.substr(slash + 1);
    if (with_wildcard_sub.contains(res))
      invalid_value(causes, index_path(path, i), r, "if '" + res + "/*' is present, must not specify " + r);
    if (with_wildcard_res.contains(sub))
      invalid_value(causes, index_path(path, i), r, "if '*/" + sub + "' is present, must not specify " + r);
    if (sub == "*") with_wildcard_sub.insert(res);
    if (res == "*") with_wildcard_res.insert(sub);
  }
  if (list.size() > 1 && double_wildcard)
    invalid_rendered(causes, path, go_slice(list), "if '*/*' is present, must not specify other resources");
  if (single_wildcard && without_sub)
    invalid_rendered(causes, path, go_slice(list),
                     "if '*' is present, must not specify other resources without subresources");
}

// validateRuleWithOperations; `rule` holds the operations and, inline, the Rule fields.
void validate_rule_with_operations(Causes& causes, const json& rule, const std::string& path) {
  const auto& ops = arr(at(rule, {"operations"}));
  if (ops.empty()) required(causes, path + ".operations");
  if (ops.size() > 1 && contains_wildcard(ops))
    invalid_rendered(causes, path + ".operations", go_slice(ops, "admissionregistration.OperationType"),
                     "if '*' is present, must not specify other operations");
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const std::string op = str(ops[i]);
    if (op != "*" && op != "CONNECT" && op != "CREATE" && op != "DELETE" && op != "UPDATE")
      unsupported(causes, index_path(path + ".operations", i), ops[i], {"*", "CONNECT", "CREATE", "DELETE", "UPDATE"});
  }
  const auto& groups = arr(at(rule, {"apiGroups"}));
  if (groups.empty()) required(causes, path + ".apiGroups");
  if (groups.size() > 1 && contains_wildcard(groups))
    invalid_rendered(causes, path + ".apiGroups", go_slice(groups),
                     "if '*' is present, must not specify other API groups");
  const auto& versions = arr(at(rule, {"apiVersions"}));
  if (versions.empty()) required(causes, path + ".apiVersions");
  if (versions.size() > 1 && contains_wildcard(versions))
    invalid_rendered(causes, path + ".apiVersions", go_slice(versions),
                     "if '*' is present, must not specify other API versions");
  for (std::size_t i = 0; i < versions.size(); ++i)
    if (str(versions[i]).empty()) required(causes, index_path(path + ".apiVersions", i));
  validate_resources(causes, at(rule, {"resources"}), path + ".resources");
  const auto& scope = at(rule, {"scope"});
  if (scope.is_string() && scope != "*" && scope != "Cluster" && scope != "Namespaced")
    unsupported(causes, path + ".scope", scope, {"*", "Cluster", "Namespaced"});
}

// validateNamedRuleWithOperations: resource names, then the rule.
void validate_named_rule(Causes& causes, const json& rule, const std::string& path) {
  std::set<std::string> seen;
  const auto& names = arr(at(rule, {"resourceNames"}));
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string name = str(names[i]);
    invalid_each(causes, index_path(path + ".resourceNames", i), name, path_segment_errors(name));
    if (!seen.insert(name).second) duplicate(causes, index_path(path + ".resourceNames", i), name);
  }
  validate_rule_with_operations(causes, rule, path);
}

// kw's CEL has no authorizer library: an expression that calls it is accepted unchecked and
// fails when evaluated (the webhook's or policy's failurePolicy then applies).

// An expression must compile in `env` ("compilation failed: ...").
void check_compiles(Causes& causes, const std::string& field, const std::string& expression, const cel::Env& env) {
  if (auto program = cel::compile(expression, env); !program)
    invalid_value(causes, field, expression, "compilation failed: " + program.error().message);
}

// validateMatchConditions: each expression must compile in `env`.
void validate_match_conditions(Causes& causes, const json& conditions, const std::string& path, const cel::Env& env) {
  const auto& list = arr(conditions);
  if (list.size() > 64) too_many(causes, path, list.size(), 64);
  std::set<std::string> names;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string field = index_path(path, i);
    const std::string expression = str(at(list[i], {"expression"}));
    if (blank(expression)) required(causes, field + ".expression");
    else check_compiles(causes, field + ".expression", expression, env);
    const std::string name = str(at(list[i], {"name"}));
    if (name.empty())
      required(causes, field + ".name");
    else
      invalid_each(causes, field + ".name", name, qualified_name_errors(name));
    if (!name.empty() && !names.insert(name).second) duplicate(causes, field + ".name", name);
  }
}

// ---- webhooks ----------------------------------------------------------------------------------

// IsFullyQualifiedName: a DNS subdomain of at least three segments.
void fully_qualified_name(Causes& causes, const std::string& field, const std::string& name) {
  if (name.empty()) return required(causes, field);
  if (auto errs = subdomain_errors(name); !errs.empty()) return invalid_value(causes, field, name, join(errs, ","));
  if (std::ranges::count(name, '.') < 2)
    invalid_value(causes, field, name, "should be a domain with at least three segments separated by dots");
}

// ValidateWebhookURL, following Go's url.Parse for the parts it checks.
void validate_webhook_url(Causes& causes, const std::string& field, const std::string& url) {
  const std::string form = "; desired format: https://host[/path]";
  if (std::ranges::any_of(url, [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    return required(
        causes, field,
        "url must be a valid URL: parse " + json(url).dump() + ": net/url: invalid control character in URL" + form);
  std::string rest = url, fragment, scheme;
  if (const auto hash = rest.find('#'); hash != std::string::npos) {
    fragment = rest.substr(hash + 1);
    rest.resize(hash);
  }
  for (std::size_t i = 0; i < rest.size(); ++i) {
    const char c = rest[i];
    if (std::isalpha(static_cast<unsigned char>(c))) continue;
    if (i > 0 && (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.')) continue;
    if (c == ':') {
      if (i == 0)
        return required(causes, field,
                        "url must be a valid URL: parse " + json(url).dump() + ": missing protocol scheme" + form);
      scheme = rest.substr(0, i);
      rest = rest.substr(i + 1);
    }
    break;
  }
  std::string query;
  if (const auto q = rest.find('?'); q != std::string::npos) {
    query = rest.substr(q + 1);
    rest.resize(q);
  }
  std::string host, user;
  bool has_user = false;
  if (rest.starts_with("//")) {
    std::string authority =
        rest.substr(2, rest.find('/', 2) == std::string::npos ? std::string::npos : rest.find('/', 2) - 2);
    if (const auto at_sign = authority.rfind('@'); at_sign != std::string::npos) {
      has_user = true;
      user = authority.substr(0, at_sign);
      authority = authority.substr(at_sign + 1);
    }
    host = authority;
  }
  const std::string lower_scheme = util::to_lower(scheme);
  if (lower_scheme != "https")
    invalid_value(causes, field, lower_scheme, "'https' is the only allowed URL scheme" + form);
  if (host.empty()) invalid_value(causes, field, host, "host must be provided" + form);
  if (has_user) invalid_value(causes, field, user, "user information is not permitted in the URL");
  if (!fragment.empty()) invalid_value(causes, field, fragment, "fragments are not permitted in the URL");
  if (!query.empty()) invalid_value(causes, field, query, "query parameters are not permitted in the URL");
}

// ValidateWebhookService.
void validate_webhook_service(Causes& causes, const std::string& path, const json& service) {
  if (str(at(service, {"name"})).empty()) required(causes, path + ".name", "service name is required");
  if (str(at(service, {"namespace"})).empty()) required(causes, path + ".namespace", "service namespace is required");
  const auto& port = at(service, {"port"});
  const std::int64_t p = port.is_number() ? num(port) : 443;
  if (p < 1 || p > 65535)
    invalid_value(causes, path + ".port", p, "port is not valid: must be between 1 and 65535, inclusive");
  const auto& path_value = at(service, {"path"});
  if (!path_value.is_string()) return;
  const std::string url_path = path_value.get<std::string>();
  if (url_path == "/" || url_path.empty()) return;
  if (url_path == "//") return invalid_value(causes, path + ".path", url_path, "segment[0] may not be empty");
  if (!url_path.starts_with("/")) invalid_value(causes, path + ".path", url_path, "must start with a '/'");
  std::string check = url_path.substr(1);
  if (check.ends_with("/")) check.pop_back();
  std::size_t i = 0, start = 0;
  for (;; ++i) {
    const auto slash = check.find('/', start);
    const std::string step = check.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (step.empty())
      invalid_value(causes, path + ".path", url_path, "segment[" + std::to_string(i) + "] may not be empty");
    else
      for (const auto& msg : subdomain_errors(step))
        invalid_value(causes, path + ".path", url_path, "segment[" + std::to_string(i) + "]: " + msg);
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
}

void validate_webhook(Causes& causes, const json& hook, const std::string& path, bool mutating) {
  fully_qualified_name(causes, path + ".name", str(at(hook, {"name"})));
  const auto& rules = arr(at(hook, {"rules"}));
  for (std::size_t i = 0; i < rules.size(); ++i)
    validate_rule_with_operations(causes, rules[i], index_path(path + ".rules", i));
  const auto& failure = at(hook, {"failurePolicy"});
  if (failure.is_string() && failure != "Fail" && failure != "Ignore")
    unsupported(causes, path + ".failurePolicy", failure, {"Fail", "Ignore"});
  const auto& match = at(hook, {"matchPolicy"});
  if (match.is_string() && match != "Equivalent" && match != "Exact")
    unsupported(causes, path + ".matchPolicy", match, {"Equivalent", "Exact"});
  const auto& side_effects = at(hook, {"sideEffects"});
  if (!side_effects.is_string())
    required(causes, path + ".sideEffects", "must specify one of None, NoneOnDryRun");
  else if (side_effects != "None" && side_effects != "NoneOnDryRun")
    unsupported(causes, path + ".sideEffects", side_effects, {"None", "NoneOnDryRun"});
  const auto& timeout = at(hook, {"timeoutSeconds"});
  if (timeout.is_number() && (num(timeout) > 30 || num(timeout) < 1))
    invalid_value(causes, path + ".timeoutSeconds", timeout, "the timeout value must be between 1 and 30 seconds");
  validate_label_selector(causes, at(hook, {"namespaceSelector"}), path + ".namespaceSelector");
  validate_label_selector(causes, at(hook, {"objectSelector"}), path + ".objectSelector");
  if (mutating) {
    const auto& reinvocation = at(hook, {"reinvocationPolicy"});
    if (reinvocation.is_string() && reinvocation != "IfNeeded" && reinvocation != "Never")
      unsupported(causes, path + ".reinvocationPolicy", reinvocation, {"IfNeeded", "Never"});
  }
  const auto& url = at(hook, {"clientConfig", "url"});
  const auto& service = at(hook, {"clientConfig", "service"});
  if (url.is_string() == service.is_object())
    required(causes, path + ".clientConfig", "exactly one of url or service is required");
  else if (url.is_string())
    validate_webhook_url(causes, path + ".clientConfig.url", url.get<std::string>());
  else
    validate_webhook_service(causes, path + ".clientConfig.service", service);
  validate_match_conditions(causes, at(hook, {"matchConditions"}), path + ".matchConditions", webhook_match_env());
}

// validateAdmissionReviewVersions, with a recognized version required.
void validate_review_versions(Causes& causes, const json& versions, const std::string& path) {
  const auto& list = arr(versions);
  if (list.empty()) return required(causes, path, "must specify one of v1, v1beta1");
  std::set<std::string> seen;
  bool accepted = false;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string v = str(list[i]);
    if (!seen.insert(v).second) {
      invalid_value(causes, index_path(path, i), v, "duplicate version");
      continue;
    }
    invalid_each(causes, index_path(path, i), v, dns1035_label_errors(v));
    accepted = accepted || v == "v1" || v == "v1beta1";
  }
  if (!accepted) invalid_rendered(causes, path, go_slice(list), "must include at least one of v1, v1beta1");
}

void validate_webhooks(const json& configuration, Causes& causes, bool mutating) {
  const auto& hooks = arr(at(configuration, {"webhooks"}));
  std::set<std::string> names;
  for (std::size_t i = 0; i < hooks.size(); ++i) {
    const std::string path = index_path("webhooks", i);
    validate_webhook(causes, hooks[i], path, mutating);
    validate_review_versions(causes, at(hooks[i], {"admissionReviewVersions"}), path + ".admissionReviewVersions");
    const std::string name = str(at(hooks[i], {"name"}));
    if (!name.empty() && !names.insert(name).second) duplicate(causes, path + ".name", name);
  }
}

void validate_mutating(const json& o, Causes& causes) { validate_webhooks(o, causes, true); }
void validate_validating(const json& o, Causes& causes) { validate_webhooks(o, causes, false); }

// ---- policies ----------------------------------------------------------------------------------

void validate_match_resources(Causes& causes, const json& match, const std::string& path) {
  if (!match.is_object()) return;
  const auto& policy = at(match, {"matchPolicy"});
  if (!policy.is_string())
    required(causes, path + ".matchPolicy");
  else if (policy != "Equivalent" && policy != "Exact")
    unsupported(causes, path + ".matchPolicy", policy, {"Equivalent", "Exact"});
  for (const char* selector : {"namespaceSelector", "objectSelector"}) {
    const auto& value = at(match, {selector});
    if (!value.is_object())
      required(causes, path + "." + selector);
    else
      validate_label_selector(causes, value, path + "." + selector);
  }
  for (const char* list : {"resourceRules", "excludeResourceRules"}) {
    const auto& rules = arr(at(match, {list}));
    for (std::size_t i = 0; i < rules.size(); ++i)
      validate_named_rule(causes, rules[i], index_path(path + "." + list, i));
  }
}

void validate_param_kind(Causes& causes, const json& kind, const std::string& path) {
  const std::string api_version = str(at(kind, {"apiVersion"}));
  if (api_version.empty()) {
    required(causes, path + ".apiVersion");
  } else if (std::ranges::count(api_version, '/') > 1) {
    invalid_value(causes, path + ".apiVersion", api_version, "unexpected GroupVersion string: " + api_version);
  } else {
    std::string group, version = api_version;
    if (api_version == "/")
      version.clear();
    else if (const auto slash = api_version.find('/'); slash != std::string::npos) {
      group = api_version.substr(0, slash);
      version = api_version.substr(slash + 1);
    }
    if (!group.empty())
      if (auto errs = subdomain_errors(group); !errs.empty())
        invalid_value(causes, path + ".apiVersion", group, join(errs, ","));
    if (version.empty())
      invalid_value(causes, path + ".apiVersion", api_version, "version must be specified");
    else if (auto errs = dns1035_label_errors(version); !errs.empty())
      invalid_value(causes, path + ".apiVersion", version, join(errs, ","));
  }
  const std::string kind_name = str(at(kind, {"kind"}));
  if (kind_name.empty())
    required(causes, path + ".kind");
  else if (auto errs = dns1035_label_errors(util::to_lower(kind_name)); !errs.empty())
    invalid_value(causes, path + ".kind", kind_name,
                  "may have mixed case, but should otherwise match: " + join(errs, ","));
}

bool cel_identifier(std::string_view name) {
  static const std::set<std::string_view> k_reserved = {
      "true", "false",  "null", "in",   "as",      "break",     "const",  "continue", "else", "for",  "function",
      "if",   "import", "let",  "loop", "package", "namespace", "return", "var",      "void", "while"};
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name.front())) || name.front() == '_')) return false;
  if (!std::ranges::all_of(name, [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
    return false;
  return !k_reserved.contains(name);
}

void validate_validation(Causes& causes, const json& v, const std::string& path, bool has_params) {
  const std::string expression = str(at(v, {"expression"}));
  if (blank(expression)) required(causes, path + ".expression", "expression is not specified");
  else check_compiles(causes, path + ".expression", expression, policy_env(has_params, true));
  const std::string message_expression = str(at(v, {"messageExpression"}));
  if (!message_expression.empty() && blank(message_expression))
    invalid_value(causes, path + ".messageExpression", message_expression, "must be non-empty if specified");
  else if (!message_expression.empty())
    check_compiles(causes, path + ".messageExpression", message_expression, policy_env(has_params, false));
  const std::string message = str(at(v, {"message"}));
  if (!message.empty() && blank(message))
    invalid_value(causes, path + ".message", message, "message must be non-empty if specified");
  else if (util::trim(message).find_first_of("\r\n") != std::string::npos)
    invalid_value(causes, path + ".message", message, "message must not contain line breaks");
  const auto& reason = at(v, {"reason"});
  if (reason.is_string() && reason != "Forbidden" && reason != "Invalid" && reason != "RequestEntityTooLarge")
    unsupported(causes, path + ".reason", reason, {"Forbidden", "Invalid", "RequestEntityTooLarge"});
}

void validate_audit_annotation(Causes& causes, const json& annotation, const std::string& policy_name,
                               const std::string& path, bool has_params) {
  const std::string key = str(at(annotation, {"key"}));
  if (const std::string qualified = policy_name + "/" + key; !policy_name.empty())
    invalid_each(causes, path + ".key", qualified, qualified_name_errors(qualified));
  else
    invalid_value(causes, path + ".key", key, "requires metadata.name be non-empty");
  const std::string value(util::trim(str(at(annotation, {"valueExpression"}))));
  if (value.empty())
    required(causes, path + ".valueExpression", "valueExpression is not specified");
  else if (value.size() > 5 * 1024)
    required(causes, path + ".valueExpression", "must not exceed 5120 bytes in length");
  else
    check_compiles(causes, path + ".valueExpression", str(at(annotation, {"valueExpression"})),
                   policy_env(has_params, true));
}

void validate_policy_status(Causes& causes, const json& status) {
  const auto& warnings = arr(at(status, {"typeChecking", "expressionWarnings"}));
  for (std::size_t i = 0; i < warnings.size(); ++i) {
    const std::string field = index_path("status.typeChecking.expressionWarnings", i);
    if (str(at(warnings[i], {"warning"})).empty()) required(causes, field + ".warning");
    if (blank(str(at(warnings[i], {"fieldRef"})))) required(causes, field + ".fieldRef");
  }
  validate_conditions(causes, at(status, {"conditions"}), "status.conditions");
}

void validate_policy(const json& policy, Causes& causes) {
  const auto& spec = at(policy, {"spec"});
  const auto& failure = at(spec, {"failurePolicy"});
  if (!failure.is_string())
    required(causes, "spec.failurePolicy");
  else if (failure != "Fail" && failure != "Ignore")
    unsupported(causes, "spec.failurePolicy", failure, {"Fail", "Ignore"});
  if (at(spec, {"paramKind"}).is_object()) validate_param_kind(causes, at(spec, {"paramKind"}), "spec.paramKind");
  const auto& constraints = at(spec, {"matchConstraints"});
  if (!constraints.is_object()) {
    required(causes, "spec.matchConstraints");
  } else {
    validate_match_resources(causes, constraints, "spec.matchConstraints");
    if (arr(at(constraints, {"resourceRules"})).empty()) required(causes, "spec.matchConstraints.resourceRules");
  }
  const bool has_params = at(spec, {"paramKind"}).is_object();
  validate_match_conditions(causes, at(spec, {"matchConditions"}), "spec.matchConditions", policy_env(has_params, true));
  const auto& variables = arr(at(spec, {"variables"}));
  for (std::size_t i = 0; i < variables.size(); ++i) {
    const std::string field = index_path("spec.variables", i);
    const std::string name = str(at(variables[i], {"name"}));
    if (blank(name))
      required(causes, field + ".name", "name is not specified");
    else if (!cel_identifier(name))
      invalid_value(causes, field + ".name", name, "name is not a valid CEL identifier");
    const std::string expression = str(at(variables[i], {"expression"}));
    if (blank(expression))
      required(causes, field + ".expression", "expression is not specified");
    else
      check_compiles(causes, field + ".expression", expression, policy_env(has_params, true));
  }
  const auto& validations = arr(at(spec, {"validations"}));
  const auto& annotations = arr(at(spec, {"auditAnnotations"}));
  if (validations.empty() && annotations.empty()) {
    required(causes, "spec.validations", "validations or auditAnnotations must contain at least one item");
    required(causes, "spec.auditAnnotations", "validations or auditAnnotations must contain at least one item");
  } else {
    for (std::size_t i = 0; i < validations.size(); ++i)
      validate_validation(causes, validations[i], index_path("spec.validations", i), has_params);
    if (annotations.size() > 20)
      invalid_value(causes, "spec.auditAnnotations", annotations, "must not have more than 20 auditAnnotations");
    std::set<std::string> keys;
    for (std::size_t i = 0; i < annotations.size(); ++i) {
      const std::string field = index_path("spec.auditAnnotations", i);
      validate_audit_annotation(causes, annotations[i], name_of(policy), field, has_params);
      const std::string key = str(at(annotations[i], {"key"}));
      if (!keys.insert(key).second) duplicate(causes, field + ".key", key);
    }
  }
  validate_policy_status(causes, at(policy, {"status"}));
}

void validate_param_ref(Causes& causes, const json& ref, const std::string& path) {
  if (!ref.is_object()) return;
  const std::string name = str(at(ref, {"name"}));
  const auto& selector = at(ref, {"selector"});
  if (!name.empty()) {
    invalid_each(causes, path + ".name", name, path_segment_errors(name));
    if (selector.is_object()) forbidden(causes, path + ".name", "name and selector are mutually exclusive");
  }
  if (selector.is_object()) {
    validate_label_selector(causes, selector, path + ".selector");
    if (!name.empty()) forbidden(causes, path + ".selector", "name and selector are mutually exclusive");
  }
  if (name.empty() && !selector.is_object()) required(causes, path, "one of name or selector must be specified");
  const std::string action = str(at(ref, {"parameterNotFoundAction"}));
  if (action.empty())
    required(causes, path + ".parameterNotFoundAction");
  else if (action != "Deny" && action != "Allow")
    unsupported(causes, path + ".parameterNotFoundAction", action, {"Deny", "Allow"});
}

void validate_validation_actions(Causes& causes, const json& actions, const std::string& path) {
  const auto& list = arr(actions);
  std::set<std::string> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string action = str(list[i]);
    if (action != "Audit" && action != "Deny" && action != "Warn")
      unsupported(causes, index_path(path, i), list[i], {"Audit", "Deny", "Warn"});
    if (!seen.insert(action).second) duplicate(causes, index_path(path, i), list[i]);
  }
  if (seen.contains("Deny") && seen.contains("Warn"))
    invalid_rendered(
        causes, path, go_slice(list, "admissionregistration.ValidationAction"),
        "must not contain both Deny and Warn (repeating the same validation failure information in the API "
        "response and headers serves no purpose)");
  if (seen.empty()) required(causes, path, "at least one validation action is required");
}

void validate_binding(const json& binding, Causes& causes) {
  const auto& spec = at(binding, {"spec"});
  const std::string policy = str(at(spec, {"policyName"}));
  if (policy.empty())
    required(causes, "spec.policyName");
  else
    invalid_each(causes, "spec.policyName", policy, subdomain_errors(policy));
  validate_param_ref(causes, at(spec, {"paramRef"}), "spec.paramRef");
  // kube-apiserver words this path "matchResouces".
  validate_match_resources(causes, at(spec, {"matchResources"}), "spec.matchResouces");
  validate_validation_actions(causes, at(spec, {"validationActions"}), "spec.validationActions");
}

// ---- rows --------------------------------------------------------------------------------------

const std::vector<std::string> k_categories = {"api-extensions"};

KindSpec mutating_webhook_row() {
  return {.info = {.group = "admissionregistration.k8s.io",
                   .version = "v1",
                   .kind = "MutatingWebhookConfiguration",
                   .plural = "mutatingwebhookconfigurations",
                   .categories = k_categories,
                   .namespaced = false,
                   .columns = {name_col(), webhooks_col(), age_col()},
                   .printer = print_webhook_configuration},
          .generation = std::vector<std::string>{"webhooks"},
          .strategy = {.defaults = default_mutating,
                       .prepare_create = prepare_webhooks_create,
                       .prepare_update = prepare_webhooks_update,
                       .validate = validate_mutating}};
}

KindSpec policy_row() {
  return {
      .info = {.group = "admissionregistration.k8s.io",
               .version = "v1",
               .kind = "ValidatingAdmissionPolicy",
               .plural = "validatingadmissionpolicies",
               .categories = k_categories,
               .namespaced = false,
               .subresources = {"status"},
               .columns = {name_col(),
                           col("Validations", "integer",
                               "Validations indicates the number of validation rules defined in this configuration"),
                           col("ParamKind", "string",
                               "ParamKind specifies the kind of resources used to parameterize this policy"),
                           age_col()},
               .printer = print_policy},
      .generation = std::vector<std::string>{"spec"},
      .status_keeps_meta = status_meta::k_reset_all,
      .strategy = {.defaults = default_policy, .prepare_create = prepare_policy_create, .validate = validate_policy}};
}

KindSpec binding_row() {
  return {.info = {.group = "admissionregistration.k8s.io",
                   .version = "v1",
                   .kind = "ValidatingAdmissionPolicyBinding",
                   .plural = "validatingadmissionpolicybindings",
                   .categories = k_categories,
                   .namespaced = false,
                   .columns = {name_col(),
                               col("PolicyName", "string",
                                   "PolicyName indicates the policy definition which the policy binding binded to"),
                               col("ParamRef", "string",
                                   "ParamRef indicates the param resource which sets the configration param"),
                               age_col()},
                   .printer = print_policy_binding},
          .generation = std::vector<std::string>{"spec"},
          .strategy = {.defaults = default_binding, .validate = validate_binding}};
}

KindSpec validating_webhook_row() {
  return {.info = {.group = "admissionregistration.k8s.io",
                   .version = "v1",
                   .kind = "ValidatingWebhookConfiguration",
                   .plural = "validatingwebhookconfigurations",
                   .categories = k_categories,
                   .namespaced = false,
                   .columns = {name_col(), webhooks_col(), age_col()},
                   .printer = print_webhook_configuration},
          .generation = std::vector<std::string>{"webhooks"},
          .strategy = {.defaults = default_validating,
                       .prepare_create = prepare_webhooks_create,
                       .prepare_update = prepare_webhooks_update,
                       .validate = validate_validating}};
}

}  // namespace

std::vector<KindSpec> admissionregistration_v1_kinds() {
  return {mutating_webhook_row(), policy_row(), binding_row(), validating_webhook_row()};
}

cel::Env webhook_match_env() {
  cel::Env env;
  for (const char* name : {"object", "oldObject", "request", "authorizer"}) env.variables.push_back({.name = name});
  return env;
}

cel::Env policy_env(bool params, bool authorizer) {
  cel::Env env;
  for (const char* name : {"object", "oldObject", "request", "namespaceObject", "variables"})
    env.variables.push_back({.name = name});
  if (params) env.variables.push_back({.name = "params"});
  if (authorizer) env.variables.push_back({.name = "authorizer"});
  return env;
}

}  // namespace kw::kinds
