// kw auth whoami | can-i, and kw create token: the questions a user asks the server about
// itself (SelfSubjectReview, SelfSubjectAccessReview, SelfSubjectRulesReview, TokenRequest),
// printed as kubectl prints the answers.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <set>

#include "cli/client/discovery.hpp"
#include "cli/commands/common.hpp"
#include "cli/commands/verbs.hpp"
#include "cli/print/printers.hpp"
#include "core/codec/yaml.hpp"
#include "core/util/text.hpp"

namespace kw::cli {

namespace {

using nlohmann::json;

// Prints `object` as -o asks (json, yaml), or returns false for the default form.
bool print_structured(const json& object, const std::string& output) {
  if (output == "json") {
    std::cout << to_kubectl_typed_json(object) << "\n";
    return true;
  }
  if (output == "yaml") {
    std::cout << codec::json_to_yaml(object);
    return true;
  }
  return false;
}

std::string bracketed(const json& list) {
  std::string out = "[";
  if (list.is_array())
    for (std::size_t i = 0; i < list.size(); ++i) out += (i ? " " : "") + list[i].get<std::string>();
  return out + "]";
}

// ---- auth whoami ------------------------------------------------------------------------------

struct WhoamiOptions {
  ConnectionFlags connection;
  std::string output;
};

int run_whoami(const WhoamiOptions& o) {
  auto api = ApiClient::create(o.connection);
  if (!api) return report_usage(api.error().message);
  const json review = {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "SelfSubjectReview"}};
  auto answer = call_json(**api, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                          std::string(k_json), review.dump());
  if (!answer) return report(answer.error());
  if (print_structured(*answer, o.output)) return k_exit_ok;
  const json info = answer->value("status", json::object()).value("userInfo", json::object());
  std::vector<std::vector<std::string>> rows = {{"ATTRIBUTE", "VALUE"}};
  rows.push_back({"Username", info.value("username", std::string())});
  if (info.contains("uid")) rows.push_back({"UID", info.value("uid", std::string())});
  if (info.contains("groups")) rows.push_back({"Groups", bracketed(info["groups"])});
  if (const auto extra = info.find("extra"); extra != info.end() && extra->is_object())
    for (const auto& [key, values] : extra->items()) rows.push_back({"Extra: " + key, bracketed(values)});
  std::cout << tabulate(rows);
  return k_exit_ok;
}

// ---- auth can-i -------------------------------------------------------------------------------

struct CanIOptions {
  ConnectionFlags connection;
  std::vector<std::string> args;  // VERB TYPE[/NAME] [NAME] | VERB NONRESOURCEURL
  bool all_namespaces = false;
  std::string subresource;
  bool list = false;
  bool quiet = false;
  bool no_headers = false;
};

// kubectl's --list table: one row per rule, resources as "plural.group".
int print_rules(const json& status, bool no_headers) {
  std::vector<std::vector<std::string>> rows;
  if (!no_headers) rows.push_back({"Resources", "Non-Resource URLs", "Resource Names", "Verbs"});
  // Resource rules first, then URL rules, each sorted and without repeats.
  std::vector<std::vector<std::string>> body, urls;
  for (const auto& rule : status.value("resourceRules", json::array())) {
    const json groups = rule.value("apiGroups", json::array({""}));
    for (const auto& resource : rule.value("resources", json::array()))
      for (const auto& group : groups) {
        const std::string g = group.get<std::string>();
        body.push_back({resource.get<std::string>() + (g.empty() ? "" : "." + g), "[]",
                        bracketed(rule.value("resourceNames", json::array())), bracketed(rule.value("verbs", json::array()))});
      }
  }
  for (const auto& rule : status.value("nonResourceRules", json::array()))
    for (const auto& url : rule.value("nonResourceURLs", json::array()))
      urls.push_back({"", "[" + url.get<std::string>() + "]", "[]", bracketed(rule.value("verbs", json::array()))});
  for (auto* part : {&body, &urls}) {
    std::ranges::sort(*part);
    part->erase(std::unique(part->begin(), part->end()), part->end());
    rows.insert(rows.end(), part->begin(), part->end());
  }
  std::cout << tabulate(rows);
  return k_exit_ok;
}

int run_can_i(const CanIOptions& o) {
  auto api = ApiClient::create(o.connection);
  if (!api) return report_usage(api.error().message);
  const std::string ns = o.all_namespaces ? "" : (*api)->config().namespace_name;
  if (o.list) {
    const json review = {{"apiVersion", "authorization.k8s.io/v1"},
                         {"kind", "SelfSubjectRulesReview"},
                         {"spec", {{"namespace", ns.empty() ? "default" : ns}}}};
    auto answer = call_json(**api, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                            std::string(k_json), review.dump());
    if (!answer) return report(answer.error());
    return print_rules(answer->value("status", json::object()), o.no_headers);
  }
  if (o.args.size() < 2 || o.args.size() > 3)
    return report_usage("you must specify two or three arguments: verb, resource, and optional resourceName");
  json attributes;
  const std::string& verb = o.args[0];
  // kubectl's warnings, each followed by an empty line as its warning printer writes them.
  const auto warn = [](const std::string& text) { std::cerr << "Warning: " << text << "\n\n"; };
  static const std::set<std::string, std::less<>> known_resource_verbs = {
      "get", "list", "watch",       "create", "update",  "patch", "delete",   "deletecollection",
      "use", "bind", "impersonate", "*",      "approve", "sign",  "escalate", "attest"};
  static const std::set<std::string, std::less<>> known_non_resource_verbs = {"get",     "put",    "post", "head",
                                                                              "options", "delete", "patch", "*"};
  if (o.args[1].starts_with("/")) {
    if (!known_non_resource_verbs.contains(verb)) warn("verb '" + verb + "' is not a known verb");
    attributes = {{"nonResourceAttributes", {{"verb", verb}, {"path", o.args[1]}}}};
  } else {
    std::string type = util::to_lower(o.args[1]);
    std::string name = o.args.size() == 3 ? o.args[2] : "";
    if (const auto slash = type.find('/'); slash != std::string::npos) {
      name = type.substr(slash + 1);
      type = type.substr(0, slash);
    }
    Resolver resolver(**api);
    std::string group, plural = type;
    if (type != "*") {
      if (auto resolved = resolver.resolve(type)) {
        group = resolved->group;
        plural = resolved->plural;
        if (!resolved->namespaced && !o.all_namespaces)
          warn("resource '" + plural + "' is not namespace scoped" + (group.empty() ? "" : " in group '" + group + "'"));
      } else if (type != "users" && type != "groups") {
        // kubectl warns and asks about the name as typed: the server may still know it.
        const auto dot = type.find('.');
        warn("the server doesn't have a resource type '" + type.substr(0, dot) + "'" +
             (dot == std::string::npos ? "" : " in group '" + type.substr(dot + 1) + "'"));
      }
    }
    if (!known_resource_verbs.contains(verb)) warn("verb '" + verb + "' is not a known verb");
    json resource = {{"verb", verb}, {"group", group}, {"resource", plural}};
    if (!ns.empty()) resource["namespace"] = ns;
    if (!name.empty()) resource["name"] = name;
    if (!o.subresource.empty()) resource["subresource"] = o.subresource;
    attributes = {{"resourceAttributes", resource}};
  }
  const json review = {{"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SelfSubjectAccessReview"}, {"spec", attributes}};
  auto answer = call_json(**api, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                          std::string(k_json), review.dump());
  if (!answer) return report(answer.error());
  const json status = answer->value("status", json::object());
  const bool allowed = status.value("allowed", false);
  if (!o.quiet) {
    if (allowed) {
      std::cout << "yes\n";
    } else {
      std::cout << "no";
      if (const std::string reason = status.value("reason", std::string()); !reason.empty()) std::cout << " - " << reason;
      if (const std::string error = status.value("evaluationError", std::string()); !error.empty())
        std::cout << " - " << error;
      std::cout << "\n";
    }
  }
  return allowed ? k_exit_ok : k_exit_usage;
}

// ---- create token -----------------------------------------------------------------------------

struct TokenOptions {
  ConnectionFlags connection;
  std::string service_account;
  std::vector<std::string> audiences;
  std::string duration;  // "10m", "1h", "3600s" or seconds
  std::string bound_object_kind, bound_object_name, bound_object_uid;
  std::string output;
};

std::optional<long long> duration_seconds(const std::string& text) {
  long long total = 0;
  std::size_t i = 0;
  if (text.empty()) return std::nullopt;
  while (i < text.size()) {
    std::size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(text.substr(i), &used);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    i += used;
    long long unit = 1;
    if (i < text.size()) {
      switch (text[i]) {
        case 'h': unit = 3600; break;
        case 'm': unit = 60; break;
        case 's': unit = 1; break;
        default: return std::nullopt;
      }
      ++i;
    } else if (total != 0) {
      return std::nullopt;
    }
    total += value * unit;
  }
  return total;
}

int run_create_token(const TokenOptions& o) {
  auto api = ApiClient::create(o.connection);
  if (!api) return report_usage(api.error().message);
  json spec = json::object();
  if (!o.audiences.empty()) spec["audiences"] = o.audiences;
  if (!o.duration.empty()) {
    const auto seconds = duration_seconds(o.duration);
    if (!seconds || *seconds < 0) return report_usage("--duration must be a duration such as 10m, 1h or 3600s");
    if (*seconds > 0) spec["expirationSeconds"] = *seconds;
  }
  if (!o.bound_object_kind.empty()) {
    if (o.bound_object_kind != "Pod" && o.bound_object_kind != "Secret")
      return report_usage("supported --bound-object-kind values are Pod, Secret");
    if (o.bound_object_name.empty()) return report_usage("--bound-object-name is required if --bound-object-kind is provided");
    spec["boundObjectRef"] = {{"kind", o.bound_object_kind}, {"apiVersion", "v1"}, {"name", o.bound_object_name}};
    if (!o.bound_object_uid.empty()) spec["boundObjectRef"]["uid"] = o.bound_object_uid;
  } else if (!o.bound_object_name.empty() || !o.bound_object_uid.empty()) {
    return report_usage("--bound-object-name and --bound-object-uid need --bound-object-kind");
  }
  const json request = {{"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}, {"spec", spec}};
  const std::string path = "/api/v1/namespaces/" + url_escape((*api)->config().namespace_name) + "/serviceaccounts/" +
                           url_escape(o.service_account) + "/token";
  auto answer = call_json(**api, "POST", path, std::string(k_json), request.dump());
  if (!answer) return report(answer.error());
  if (print_structured(*answer, o.output)) return k_exit_ok;
  // As kubectl: a newline only on a terminal, so $(kw create token x) and pipes get the bare token.
  std::cout << answer->value("status", json::object()).value("token", std::string())
            << (isatty(STDOUT_FILENO) ? "\n" : "");
  return k_exit_ok;
}

}  // namespace

void add_auth_command(CLI::App& app, int* exit_code) {
  CLI::App* auth = app.add_subcommand("auth", "Inspect authorization: who you are and what you may do (kubectl auth)");
  auth->require_subcommand(1);

  auto whoami = std::make_shared<WhoamiOptions>();
  CLI::App* who = auth->add_subcommand("whoami", "Print the user the server sees (SelfSubjectReview)");
  add_connection_flags(*who, whoami->connection);
  who->add_option("-o,--output", whoami->output, "json or yaml")->check(CLI::IsMember({"json", "yaml"}));
  who->footer(std::string(k_client_exit_codes));
  who->callback([whoami, exit_code] { *exit_code = run_whoami(*whoami); });

  auto can = std::make_shared<CanIOptions>();
  CLI::App* can_i = auth->add_subcommand(
      "can-i", "Ask whether you may do something: VERB TYPE [NAME], VERB TYPE/NAME or VERB /path (exit 0 yes, 1 no)");
  add_connection_flags(*can_i, can->connection);
  can_i->add_option("args", can->args, "VERB TYPE [NAME], or VERB NONRESOURCEURL");
  can_i->add_flag("-A,--all-namespaces", can->all_namespaces, "Ask about every namespace");
  can_i->add_option("--subresource", can->subresource, "The subresource (e.g. log, scale)");
  can_i->add_flag("--list", can->list, "List everything you may do in the namespace (SelfSubjectRulesReview)");
  can_i->add_flag("-q,--quiet", can->quiet, "Print nothing; the exit status answers");
  can_i->add_flag("--no-headers", can->no_headers, "With --list: no header row");
  can_i->callback([can, exit_code] { *exit_code = run_can_i(*can); });
}

void add_create_token_command(CLI::App& create, int* exit_code) {
  auto options = std::make_shared<TokenOptions>();
  CLI::App* token = create.add_subcommand("token", "Request a token for a ServiceAccount (TokenRequest; kubectl create token)");
  add_connection_flags(*token, options->connection);
  token->add_option("name", options->service_account, "The ServiceAccount")->required();
  token->add_option("--audience", options->audiences, "An audience of the token (repeatable; default: the API's)");
  token->add_option("--duration", options->duration, "How long the token lives (10m, 1h, 3600s; default: the server's)");
  token->add_option("--bound-object-kind", options->bound_object_kind, "Pod or Secret: the token dies with that object");
  token->add_option("--bound-object-name", options->bound_object_name, "The name of the object the token is bound to");
  token->add_option("--bound-object-uid", options->bound_object_uid, "The uid of the object the token is bound to");
  token->add_option("-o,--output", options->output, "json or yaml (the whole TokenRequest)")
      ->check(CLI::IsMember({"json", "yaml"}));
  token->footer(std::string(k_client_exit_codes));
  token->callback([options, exit_code] { *exit_code = run_create_token(*options); });
}

}  // namespace kw::cli
