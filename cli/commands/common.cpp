#include "cli/commands/common.hpp"

#include <CLI/CLI.hpp>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "cli/print/printers.hpp"
#include "core/api/json_access.hpp"
#include "core/codec/yaml.hpp"
#include "core/util/text.hpp"

namespace kw::cli {

std::vector<std::string> split_list(std::string_view text, char separator) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto end = text.find(separator, start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) out.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

namespace {

// kubectl's words for a 422 Invalid Status (cmdutil's checkErr): the object and its causes
// ("FIELD: MESSAGE"), one on the line or each on its own "* " line.
std::string invalid_text(const nlohmann::json& status) {
  const auto& details = api::at(status, {"details"});
  const std::string message = api::str(api::at(status, {"message"}));
  if (!details.is_object()) return "The request is invalid" + (message.empty() ? "" : ": " + message);
  const std::string kind = api::str(api::at(details, {"kind"})), name = api::str(api::at(details, {"name"}));
  std::string text = !kind.empty() || !name.empty() ? "The " + kind + " " + util::go_quote(name) + " is invalid"
                     : message.empty()              ? "The request is invalid"
                                                    : "The request is invalid: " + message;
  std::vector<std::string> causes;
  for (const auto& cause : api::arr(api::at(details, {"causes"})))
    causes.push_back(api::str(api::at(cause, {"field"})) + ": " + api::str(api::at(cause, {"message"})));
  if (causes.size() == 1) return text + ": " + causes.front();
  if (causes.empty()) return text;
  text += ": ";
  for (const auto& cause : causes) text += "\n* " + cause;
  return text;
}

}  // namespace

std::string server_error_text(const net::client::Response& response) {
  auto body = nlohmann::json::parse(response.body, nullptr, false);
  std::string reason;
  if (body.is_object() && body.value("kind", "") == "Status") reason = body.value("reason", "");
  if (reason == "Invalid") return invalid_text(body);
  if (reason.empty()) {
    switch (response.head.status) {
      case 400: reason = "BadRequest"; break;
      case 401: reason = "Unauthorized"; break;
      case 403: reason = "Forbidden"; break;
      case 404: reason = "NotFound"; break;
      case 405: reason = "MethodNotAllowed"; break;
      case 409: reason = "Conflict"; break;
      case 415: reason = "UnsupportedMediaType"; break;
      case 422: reason = "Invalid"; break;
      default: break;
    }
  }
  std::string text = "Error from server";
  if (!reason.empty()) text += " (" + reason + ")";
  return text + ": " + error_message(response);
}

std::string no_resources_message() {
  return "You must provide one or more resources by argument or filename.\n"
         "Example resource specifications include:\n"
         "   '-f rsrc.yaml'\n"
         "   '--filename=rsrc.json'\n"
         "   '<resource> <name>'\n"
         "   '<resource>'";
}

VerbError usage_error(std::string message) { return VerbError{0, "error: " + std::move(message), k_exit_usage}; }

std::optional<VerbError> named_across_namespaces(const api::ResourceInfo& info, bool all_namespaces) {
  if (!all_namespaces || !info.namespaced) return std::nullopt;
  return usage_error("a resource cannot be retrieved by name across all namespaces");
}

std::string server_message(const std::string& message) {
  if (!message.starts_with("Error from server")) return message;
  const auto colon = message.find(": ");
  return colon == std::string::npos ? message : message.substr(colon + 2);
}

VerbResult<nlohmann::json> call_json(ApiClient& api, const std::string& method, const std::string& target,
                                    const std::string& content_type, const std::string& body) {
  auto response = api.send(method, target, std::string(k_json), content_type, body);
  if (!response) return std::unexpected(VerbError{0, "error: " + response.error().message, k_exit_unreachable});
  if (response->head.status < 200 || response->head.status >= 300)
    return std::unexpected(VerbError{response->head.status, server_error_text(*response), k_exit_server});
  if (response->body.empty()) return nlohmann::json::object();
  auto parsed = nlohmann::json::parse(response->body, nullptr, false);
  if (parsed.is_discarded())
    return std::unexpected(VerbError{response->head.status,
                                     "error: the server's answer to " + method + " " + target + " is not JSON",
                                     k_exit_server});
  return parsed;
}

std::string object_path(const api::ResourceInfo& info, const std::string& namespace_name, const std::string& name) {
  std::string path = info.group.empty() ? "/api/" + info.version : "/apis/" + info.group + "/" + info.version;
  if (info.namespaced && !namespace_name.empty()) path += "/namespaces/" + url_escape(namespace_name);
  path += "/" + info.plural;
  if (!name.empty()) path += "/" + url_escape(name);
  return path;
}

Result<std::vector<ResourceArgs>> parse_resource_args(const std::vector<std::string>& args) {
  std::vector<ResourceArgs> out;
  if (args.empty()) return out;
  const auto slashed = [](const std::string& arg) { return arg.find('/') != std::string::npos; };
  if (std::ranges::any_of(args, slashed) && !std::ranges::all_of(args, slashed))
    return fail("there is no need to specify a resource type as a separate argument when passing arguments in "
                "resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource "
                "resource/<resource_name>'");
  if (slashed(args.front())) {
    for (const auto& arg : args) {
      const auto slash = arg.find('/');
      if (slash == std::string::npos || slash == 0 || slash + 1 == arg.size())
        return fail("arguments in resource/name form must have a single resource and name, not \"" + arg + "\"");
      out.push_back(ResourceArgs{arg.substr(0, slash), {arg.substr(slash + 1)}});
    }
    return out;
  }
  // "a,b NAME..." names a/NAME... and b/NAME..., as kubectl reads it.
  const auto types = split_list(args.front(), ',');
  for (const auto& type : types) out.push_back(ResourceArgs{type, {args.begin() + 1, args.end()}});
  return out;
}

std::string with_query(std::string target, std::string_view key, std::string_view value) {
  target += target.find('?') == std::string::npos ? '?' : '&';
  target += key;
  target += '=';
  return target + url_escape(value);
}

std::string WriteOutput::with_dry_run(std::string target) const {
  if (dry_run != "server") return target;
  return with_query(std::move(target), "dryRun", "All");
}

std::string WriteQuery::apply_to(std::string target) const {
  if (!field_manager.empty()) target = with_query(std::move(target), "fieldManager", field_manager);
  if (!field_validation.empty()) target = with_query(std::move(target), "fieldValidation", field_validation);
  return target;
}

Result<std::string> ValidateFlag::field_validation() const {
  // Go's strconv.ParseBool spellings come first, as in kubectl's GetValidationDirective.
  for (std::string_view yes : {"1", "t", "T", "TRUE", "true", "True"})
    if (value == yes) return std::string("Strict");
  for (std::string_view no : {"0", "f", "F", "FALSE", "false", "False"})
    if (value == no) return std::string("Ignore");
  if (value == "strict") return std::string("Strict");
  if (value == "warn") return std::string("Warn");
  if (value == "ignore") return std::string("Ignore");
  return fail("invalid - validate option " + util::go_quote(value) +
              "; must be one of: strict (or true), warn, ignore (or false)");
}

void add_validate_flag(CLI::App& command, ValidateFlag& flag) {
  command
      .add_option("--validate", flag.value,
                  "How the server checks the object's fields: strict (or true) refuses unknown or duplicate fields, "
                  "warn accepts them with a warning, ignore (or false) drops them silently")
      ->expected(0, 1)
      ->default_str("strict");
}

namespace {

// kubectl's printers leave metadata.managedFields out of -o json and -o yaml.
nlohmann::json without_managed_fields(nlohmann::json object) {
  if (object.is_object())
    if (auto meta = object.find("metadata"); meta != object.end() && meta->is_object()) meta->erase("managedFields");
  return object;
}

// What the verbs that write print with -o, in kubectl's words.
constexpr std::string_view k_write_output_formats =
    "go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,yaml";

bool prints_with_template(const WriteOutput& write) {
  return write.output != "json" && write.output != "yaml" && write.output != "name" &&
         !(write.output.empty() && write.template_text.empty());
}

Result<std::unique_ptr<Printer>> template_printer_of(const WriteOutput& write, bool typed = false) {
  if (!write.output.empty() && !is_template_output(write.output))
    return fail("unable to match a printer suitable for the output format " + util::go_quote(write.output) +
                ", allowed formats are: " + std::string(k_write_output_formats));
  PrintOptions options;
  options.output = write.output;
  options.template_text = write.template_text;
  options.typed = typed;
  options.allow_missing_keys = write.allow_missing_keys;
  return make_printer(options);
}

// The object through -o's JSONPath or Go template; false (and the reason on standard error)
// when it could not be printed.
bool print_with_template(const WriteOutput& write, const nlohmann::json& object, bool typed) {
  auto printer = template_printer_of(write, typed);
  Result<void> printed = printer ? (*printer)->print_list(KindInfo{}, {Item{"", object, nullptr}}, true, std::cout)
                                 : std::unexpected(printer.error());
  if (printed) printed = (*printer)->finish(std::cout);
  if (!printed) std::cerr << "error: " << printed.error().message << '\n';
  return printed.has_value();
}

}  // namespace

Result<void> WriteOutput::check() const {
  if (!prints_with_template(*this)) return {};
  auto printer = template_printer_of(*this);
  if (!printer) return std::unexpected(printer.error());
  return {};
}

nlohmann::json WriteOutput::shown(const nlohmann::json& object) const {
  return show_managed_fields ? object : without_managed_fields(object);
}

bool WriteOutput::print(const nlohmann::json& object, const std::string& kind_name, const std::string& line,
                        bool dry_run_note) const {
  if (prints_with_template(*this)) return print_with_template(*this, object, false);
  if (output == "json") {
    std::cout << to_kubectl_json(shown(object)) << '\n';
  } else if (output == "yaml") {
    std::cout << codec::json_to_yaml(shown(object));
  } else if (output == "name") {
    std::cout << kind_name << '\n';
  } else {
    if (!dry_run_note) std::cout << line << '\n';
    else std::cout << line << (dry_run == "client" ? " (dry run)" : dry_run == "server" ? " (server dry run)" : "") << '\n';
  }
  return true;
}

bool WriteOutput::print_typed(const nlohmann::json& object, const std::string& kind_name,
                              const std::string& line) const {
  // The outcome line alone needs no typed copy.
  if (output.empty() && template_text.empty()) return print(object, kind_name, line);
  const nlohmann::json typed = go_typed(object);
  if (prints_with_template(*this)) return print_with_template(*this, typed, true);
  if (output != "json") return print(typed, kind_name, line);
  std::cout << to_kubectl_typed_json(shown(typed)) << '\n';
  return true;
}

CLI::Option* add_manifest_flags(CLI::App& command, std::vector<std::string>& filenames, bool& recursive,
                                const std::string& help) {
  // One file per -f, as kubectl's: the next word is an argument again (label -f x.yaml k=v).
  CLI::Option* filename = command.add_option("-f,--filename", filenames, help)->allow_extra_args(false);
  command.add_flag("-R,--recursive", recursive, "Also read the manifests of subdirectories of -f directories");
  return filename;
}

void add_write_output_flags(CLI::App& command, WriteOutput& output, bool prints_objects) {
  command.add_option("--dry-run", output.dry_run,
                     "none: make the change; client: only print what would be sent; server: let the server "
                     "validate and answer without storing (dryRun=All)")
      ->check(CLI::IsMember({"none", "client", "server"}))
      ->default_str("none");
  if (prints_objects) add_object_output_flags(command, output);
  else
    command.add_option("-o,--output", output.output, "name: print kind/name instead of the outcome line")
        ->check(CLI::IsMember({"name"}));
}

void add_object_output_flags(CLI::App& command, WriteOutput& output) {
  command.add_option("-o,--output", output.output,
                     "Print the resulting object instead of the outcome line: json, yaml, name, jsonpath=TEMPLATE, "
                     "jsonpath-as-json=TEMPLATE, jsonpath-file=FILE, go-template=TEMPLATE, go-template-file=FILE, "
                     "template=TEMPLATE or templatefile=FILE");
  command.add_option("--template", output.template_text,
                     "The Go template of -o go-template or -o template (alone, it implies -o go-template)");
  command.add_option("--allow-missing-template-keys", output.allow_missing_keys,
                     "A key a JSONPath or Go template names that the object lacks prints nothing (or <no value>) "
                     "instead of failing")
      ->default_str("true");
  command.add_flag("--show-managed-fields", output.show_managed_fields,
                   "Keep metadata.managedFields in -o json and -o yaml");
  command.parse_complete_callback([&output] {
    if (auto usable = output.check(); !usable) {
      std::cerr << "error: " << usable.error().message << '\n';
      throw CLI::RuntimeError(k_exit_usage);  // ends the parse with this code, printing nothing more
    }
  });
}

std::string temp_root() {
  const char* base = std::getenv("TMPDIR");
  return base != nullptr && *base != '\0' ? base : "/tmp";
}

Result<int> run_program(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::cout.flush();
  pid_t pid = 0;
  if (const int error = ::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ); error != 0)
    return fail("cannot run " + args[0] + ": " + std::strerror(error));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

int report(const VerbError& error) {
  std::cerr << error.message << '\n';
  return error.exit_code;
}

int report_usage(const std::string& message) {
  std::cerr << "error: " << message << '\n';
  return k_exit_usage;
}

}  // namespace kw::cli
