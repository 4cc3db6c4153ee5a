#pragma once
// Output for kw get / kw watch, laid out as kubectl prints it: tables padded like Go's
// tabwriter (3 spaces, minimum width 6), headers uppercase, NAMESPACE with -A, priority-1
// columns only with -o wide; json/yaml/name/jsonpath/custom-columns. Text from the server is
// escaped so it cannot drive the terminal.
#include <chrono>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/api/resource.hpp"
#include "core/util/error.hpp"

namespace kw::cli {

struct PrintOptions {
  std::string output;  // "", "wide", "json", "yaml", "name", "jsonpath=...", "custom-columns=..."
  bool no_headers = false;
  bool show_labels = false;
  bool with_namespace = false;  // -A
  bool with_kind = false;       // several kinds: NAME becomes kind/name
  bool watch_events = false;    // --output-watch-events
  std::vector<std::string> label_columns;  // -L
  bool show_managed_fields = false;  // -o json|yaml keep metadata.managedFields
  std::string template_text;  // --template: the text of -o go-template / -o template
  bool allow_missing_keys = true;  // --allow-missing-template-keys: a missing key prints nothing
                                   // (JSONPath) or <no value> (Go template) instead of failing
  bool typed = false;  // the objects are kubectl's Go types (create's generators): a failed Go
                       // template shows their JSON in struct order
};

// One printable object: the full object or, from a server Table, its metadata, plus the row's
// cells when the server rendered them. `type` is the watch event type ("" for plain lists).
struct Item {
  std::string type;
  nlohmann::json object;
  nlohmann::json cells;  // array, or null when the client must render the row
};

// What the printer needs to know about the kind being printed.
struct KindInfo {
  const api::ResourceInfo* info = nullptr;  // may be null for kinds not known locally
  std::string kind;                          // "Pod"
  std::string group;                         // "" / "apps"
  std::string api_version;                   // "v1"
  std::vector<api::ColumnDefinition> columns;  // from the server Table or built-ins
  std::string prefix() const;                // "pod" / "deployment.apps"
};

// The valid -o values, for the error an unknown one gets.
inline constexpr std::string_view k_output_formats =
    "custom-columns, go-template, go-template-file, json, jsonpath, jsonpath-as-json, jsonpath-file, name, template, "
    "templatefile, wide, yaml";

class Printer {
 public:
  virtual ~Printer() = default;
  // A whole listing (kw get, or the initial list of a watch).
  virtual Result<void> print_list(const KindInfo& kind, const std::vector<Item>& items, bool single_object,
                                  std::ostream& out) = 0;
  // The end of kw get: flushes a combined List for json/yaml.
  virtual Result<void> finish(std::ostream&) { return {}; }
  // One watch event.
  virtual Result<void> print_event(const KindInfo& kind, const Item& item, std::ostream& out) = 0;
  // Whether the printer wants server-side Tables.
  virtual bool wants_table() const { return false; }
  // Whether it reads more of an object than a thin table row keeps (kind, apiVersion, name,
  // namespace, uid, resourceVersion, timestamps, labels): what a watch must remember of the
  // objects it has shown, to print them again when they go.
  virtual bool needs_objects() const { return true; }
};

// Whether -o names a JSONPath or Go template format (jsonpath, jsonpath-as-json, jsonpath-file,
// go-template, go-template-file, template, templatefile; with or without "=TEMPLATE").
bool is_template_output(const std::string& output);

// Validates -o; the error lists the valid formats.
Result<std::unique_ptr<Printer>> make_printer(const PrintOptions& options);

// Go text/tabwriter with kubectl's settings (minwidth 6, padding 3, pad ' '), or others (kubectl's
// describe and history text: minwidth 0, padding 2).
std::string tabulate(const std::vector<std::vector<std::string>>& rows, std::size_t min_width = 6,
                     std::size_t padding = 3);
// A string field of .metadata ("" when absent or not a string).
std::string meta_string(const nlohmann::json& object, std::string_view key);
// kubectl's cell rendering: cut at the first newline ("..."), terminal escapes neutralised.
std::string cell_text(const nlohmann::json& cell);
std::string escape_terminal(std::string_view text);
// kubectl -o json text: 4-space indent, keys sorted, <>& escaped as Go does.
std::string to_kubectl_json(const nlohmann::json& value);
// The same for an object kubectl prints from its Go type (what create's generators make, a
// review's answer): keys in the Go struct's order, for the built-in kinds; `indent` -1 is
// compact (json.Marshal).
std::string to_kubectl_typed_json(const nlohmann::json& object, int indent = 4);
// The object as kubectl holds it once decoded into its Go type: a built-in kind gets the
// members Go's encoding always writes ("resources": {}, "creationTimestamp": null); other
// kinds are returned unchanged.
nlohmann::json go_typed(nlohmann::json object);

// Row cells for an object of a kind known locally (kwcore printers) when no server Table came.
nlohmann::json client_cells(const KindInfo& kind, const nlohmann::json& object,
                            std::chrono::system_clock::time_point now);

}  // namespace kw::cli
