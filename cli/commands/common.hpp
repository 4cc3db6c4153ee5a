#pragma once
// Helpers the write verbs share: one JSON request with kubectl's error wording, object paths,
// and the exit-status text every client subcommand documents.
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli_fwd.hpp"
#include <nlohmann/json.hpp>

#include "cli/client/api.hpp"
#include "cli/client/list.hpp"
#include "core/api/resource.hpp"

namespace kw::cli {

inline constexpr std::string_view k_client_exit_codes =
    "Exit status: 0 success, 1 an error, as with kubectl: usage, kubeconfig, manifest or resource type, an error "
    "answered by the server, or a server that cannot be reached.";

inline constexpr std::string_view k_json = "application/json";

// A failed step of a verb: the line to print (already worded like kubectl's) and the exit code.
struct VerbError {
  int http_status = 0;  // the server's status, 0 when there was no answer or no request
  std::string message;
  int exit_code = k_exit_usage;
};
template <class T>
using VerbResult = std::expected<T, VerbError>;

VerbError usage_error(std::string message);  // "error: " + message, exit 1
// kubectl's refusal of a namespaced object named (not selected) with -A.
std::optional<VerbError> named_across_namespaces(const api::ResourceInfo& info, bool all_namespaces);
// The server's own words in an "Error from server (Reason): ..." message; other messages as they are.
std::string server_message(const std::string& message);
// kubectl's answer to a verb given no resource (scale, wait): the message and its examples.
std::string no_resources_message();

std::vector<std::string> split_list(std::string_view text, char separator);

// Sends one request and decodes the JSON answer. A non-2xx answer becomes
// {status, "Error from server (Reason): message", 2}; no answer {0, "error: ...", 3}.
VerbResult<nlohmann::json> call_json(ApiClient& api, const std::string& method, const std::string& target,
                                    const std::string& content_type, const std::string& body);
// The kubectl wording of an error response ("Error from server (NotFound): pods \"x\" not found").
std::string server_error_text(const net::client::Response& response);

// "/api/v1/namespaces/ns/pods/name" ("" name = the collection; namespace ignored for
// cluster-scoped kinds).
std::string object_path(const api::ResourceInfo& info, const std::string& namespace_name, const std::string& name);

// Resource arguments as kubectl takes them: "TYPE NAME...", "TYPE[,TYPE...]" (with a selector)
// or "TYPE/NAME...".
struct ResourceArgs {
  std::string type;
  std::vector<std::string> names;
};
Result<std::vector<ResourceArgs>> parse_resource_args(const std::vector<std::string>& args);

// --dry-run, -o and --template of the verbs that write, with kubectl's meaning and wording.
struct WriteOutput {
  std::string dry_run = "none";  // none | client (nothing sent) | server (dryRun=All)
  // "" (the outcome line) | json | yaml | name | jsonpath=T | go-template=T | go-template-file=F
  // | template=T | templatefile=F
  std::string output = {};
  std::string template_text = {};  // --template: the template of -o go-template or -o template
  bool allow_missing_keys = true;  // --allow-missing-template-keys
  bool show_managed_fields = false;  // --show-managed-fields: -o json|yaml keep metadata.managedFields

  bool client_dry_run() const { return dry_run == "client"; }
  // `target` with dryRun=All added for --dry-run=server.
  std::string with_dry_run(std::string target) const;
  // Whether -o and --template name a way to print: kubectl's printer error if not, which it
  // reports before anything is written.
  Result<void> check() const;
  // The outcome: the object (-o json|yaml, a JSONPath or Go template), `kind_name` ("pod/web",
  // -o name), or `line` ("pod/web created") with " (dry run)" / " (server dry run)" appended.
  // kubectl's patch adds no dry-run note: `dry_run_note` false does the same. False when a
  // template could not be run on the object (the reason is on standard error).
  [[nodiscard]] bool print(const nlohmann::json& object, const std::string& kind_name, const std::string& line,
                           bool dry_run_note = true) const;
  // The same for an object kubectl holds in its Go type (create's generators): -o json keeps
  // the struct's key order.
  [[nodiscard]] bool print_typed(const nlohmann::json& object, const std::string& kind_name,
                                 const std::string& line) const;
  // `object` as -o json|yaml print it: without metadata.managedFields unless --show-managed-fields.
  nlohmann::json shown(const nlohmann::json& object) const;
};
// `target` with KEY=VALUE (VALUE escaped) added to its query.
std::string with_query(std::string target, std::string_view key, std::string_view value);

// What kubectl adds to the query of a write besides dryRun: the manager the server records for
// the fields, and how strictly the server checks the object's fields (empty: left out).
struct WriteQuery {
  std::string field_manager;
  std::string field_validation;  // Strict | Warn | Ignore

  std::string apply_to(std::string target) const;
};

// --validate of the verbs that send whole objects (create, apply, edit), as kubectl reads it:
// strict (or true), warn, ignore (or false); a bare --validate is strict.
struct ValidateFlag {
  std::string value = "strict";
  // The fieldValidation value it asks for (Strict, Warn, Ignore), or kubectl's error.
  Result<std::string> field_validation() const;
};
void add_validate_flag(CLI::App& command, ValidateFlag& flag);

// Registers -f/--filename (described by `help`) and -R/--recursive on a verb that reads
// manifests; returns the -f option.
CLI::Option* add_manifest_flags(CLI::App& command, std::vector<std::string>& filenames, bool& recursive,
                                const std::string& help);
// Registers --dry-run=none|client|server, and -o (json, yaml, name, jsonpath and Go templates)
// with --template, on a write verb (-o name only when the verb has no object to show, as for
// delete). -o and --template are checked once the command line is parsed.
void add_write_output_flags(CLI::App& command, WriteOutput& output, bool prints_objects = true);
// The same flags but --dry-run, for the verbs kubectl gives no dry run (rollout pause, resume
// and restart).
void add_object_output_flags(CLI::App& command, WriteOutput& output);

// $TMPDIR, else /tmp: where kubectl puts its temporary files (Go's os.TempDir).
std::string temp_root();

// Runs args[0] (looked up in $PATH) with this process's stdin, stdout and stderr and waits
// for it: its exit status (128 + the signal when one killed it), or an error when it could
// not be started.
Result<int> run_program(std::vector<std::string> args);

// Prints "error: ..." (or the server's error line) to stderr and returns the exit code.
int report(const VerbError& error);
int report_usage(const std::string& message);

}  // namespace kw::cli
