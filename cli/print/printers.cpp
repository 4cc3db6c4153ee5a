#include "cli/print/printers.hpp"

#include "cli/print/go_template.hpp"
#include "cli/print/tabwriter.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <map>
#include <optional>

#include "core/api/jsonpath.hpp"
#include "core/api/table.hpp"
#include "core/codec/protobuf.hpp"
#include "core/codec/protobuf_mapping.hpp"
#include "core/codec/text.hpp"
#include "core/codec/yaml.hpp"
#include <google/protobuf/descriptor.h>

#include "core/proto/registry.hpp"
#include "core/util/text.hpp"
#include "server/registry/kinds/kind_spec.hpp"

namespace kw::cli {

using nlohmann::json;

namespace {

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

const json& meta(const json& object, std::string_view key) {
  static const json k_null;
  if (!object.is_object()) return k_null;
  auto m = object.find("metadata");
  if (m == object.end() || !m->is_object()) return k_null;
  auto it = m->find(key);
  return it == m->end() ? k_null : *it;
}

std::string format_labels(const json& labels) {
  std::vector<std::string> parts;
  if (labels.is_object())
    for (const auto& [k, v] : labels.items()) parts.push_back(k + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
  std::sort(parts.begin(), parts.end());
  if (parts.empty()) return "<none>";
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "," : "") + parts[i];
  return out;
}

std::string label_header(const std::string& key) {
  const auto slash = key.rfind('/');
  return upper(slash == std::string::npos ? key : key.substr(slash + 1));
}

// ---- table printer ----------------------------------------------------------------------

class TablePrinter final : public Printer {
 public:
  explicit TablePrinter(PrintOptions options) : m_options(std::move(options)) {}
  bool wants_table() const override { return true; }

  Result<void> print_list(const KindInfo& kind, const std::vector<Item>& items, bool, std::ostream& out) override {
    if (items.empty()) return {};
    std::vector<std::vector<std::string>> rows;
    if (header_needed(kind)) {
      if (m_printed_any && !m_options.watch_events) out << '\n';
      rows.push_back(header(kind, !items.front().type.empty() && m_options.watch_events));
    }
    for (const auto& item : items) rows.push_back(row(kind, item, m_options.watch_events && !item.type.empty()));
    out << tabulate(rows);
    m_printed_any = true;
    return {};
  }

  Result<void> print_event(const KindInfo& kind, const Item& item, std::ostream& out) override {
    std::vector<std::vector<std::string>> rows;
    if (header_needed(kind)) rows.push_back(header(kind, m_options.watch_events));
    rows.push_back(row(kind, item, m_options.watch_events));
    out << tabulate(rows);
    m_printed_any = true;
    return {};
  }

 private:
  bool header_needed(const KindInfo& kind) {
    const bool changed = !m_printed_any || kind.group != m_last_group || kind.kind != m_last_kind;
    if (changed) {
      m_last_group = kind.group;
      m_last_kind = kind.kind;
    }
    return changed && !m_options.no_headers;
  }

  bool shown(const api::ColumnDefinition& column) const {
    return column.priority == 0 || m_options.output == "wide";
  }

  std::vector<std::string> header(const KindInfo& kind, bool with_event) const {
    std::vector<std::string> cells;
    if (with_event) cells.push_back("EVENT");
    if (m_options.with_namespace) cells.push_back("NAMESPACE");
    for (const auto& column : kind.columns)
      if (shown(column)) cells.push_back(upper(column.name));
    for (const auto& key : m_options.label_columns) cells.push_back(label_header(key));
    if (m_options.show_labels) cells.push_back("LABELS");
    return cells;
  }

  std::vector<std::string> row(const KindInfo& kind, const Item& item, bool with_event) const {
    std::vector<std::string> cells;
    if (with_event) cells.push_back(item.type);
    if (m_options.with_namespace) cells.push_back(escape_terminal(meta_string(item.object, "namespace")));
    json computed;
    const json* source = &item.cells;
    if (!item.cells.is_array()) {
      computed = client_cells(kind, item.object, std::chrono::system_clock::now());
      source = &computed;
    }
    for (std::size_t i = 0; i < kind.columns.size(); ++i) {
      if (!shown(kind.columns[i])) continue;
      std::string text = i < source->size() ? cell_text((*source)[i]) : std::string();
      if (i == 0 && m_options.with_kind) text = kind.prefix() + "/" + text;
      cells.push_back(std::move(text));
    }
    const json& labels = meta(item.object, "labels");
    for (const auto& key : m_options.label_columns) {
      std::string value;
      if (labels.is_object())
        if (auto it = labels.find(key); it != labels.end() && it->is_string()) value = it->get<std::string>();
      cells.push_back(escape_terminal(value));
    }
    if (m_options.show_labels) cells.push_back(escape_terminal(format_labels(labels)));
    return cells;
  }

  PrintOptions m_options;
  std::string m_last_group;
  std::string m_last_kind;
  bool m_printed_any = false;
};

// ---- object printers (json, yaml, name, jsonpath) -------------------------------------------

enum class ObjectFormat { Json, Yaml, Name, JsonPath, JsonPathJson, GoTemplate };

// Go's %#v of a value encoding/json decoded into an interface{} (what kubectl's JSONPath
// printer shows of the object it failed on): map[string]interface {}{"k":v, ...} with the keys
// sorted, []interface {}{...}, interface {}(nil), quoted strings, numbers as float64.
void put_go_syntax(const json& value, std::string& out) {
  switch (value.type()) {
    case json::value_t::object: {
      out += "map[string]interface {}{";
      bool first = true;
      for (const auto& [key, member] : value.items()) {
        if (!first) out += ", ";
        first = false;
        out += util::go_quote(key);
        out += ':';
        put_go_syntax(member, out);
      }
      out += '}';
      return;
    }
    case json::value_t::array:
      out += "[]interface {}{";
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (i) out += ", ";
        put_go_syntax(value[i], out);
      }
      out += '}';
      return;
    case json::value_t::string: out += util::go_quote(value.get_ref<const std::string&>()); return;
    case json::value_t::boolean: out += value.get<bool>() ? "true" : "false"; return;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: out += api::go_float_text(value.get<double>()); return;
    default: out += "interface {}(nil)"; return;
  }
}

// Go's %v (and %+v) of such a value, as kubectl's Go template printer shows it: map[k:v ...]
// with the keys sorted, [a b], <nil>, strings bare.
void put_go_value(const json& value, std::string& out) {
  switch (value.type()) {
    case json::value_t::object: {
      out += "map[";
      bool first = true;
      for (const auto& [key, member] : value.items()) {
        if (!first) out += ' ';
        first = false;
        out += key;
        out += ':';
        put_go_value(member, out);
      }
      out += ']';
      return;
    }
    case json::value_t::array:
      out += '[';
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (i) out += ' ';
        put_go_value(value[i], out);
      }
      out += ']';
      return;
    case json::value_t::string: out += value.get_ref<const std::string&>(); return;
    case json::value_t::null: out += "<nil>"; return;
    default: put_go_syntax(value, out); return;  // booleans and numbers print alike
  }
}

// kubectl's JSONPath failure: the error, the template and the object it was run on.
Error jsonpath_failure(const std::string& template_text, const std::string& why, const json& object) {
  std::string message = "error executing jsonpath " + util::go_quote(template_text) + ": Error executing template: " +
                        why + ". Printing more information for debugging the template:\n\ttemplate was:\n\t\t" +
                        template_text + "\n\tobject given to jsonpath engine was:\n\t\t";
  put_go_syntax(object, message);
  message += "\n\n";
  return Error{std::move(message)};
}

class ObjectPrinter final : public Printer {
 public:
  ObjectPrinter(PrintOptions options, ObjectFormat format, api::JsonPath path = {})
      : m_options(std::move(options)), m_format(format), m_path(std::move(path)) {}
  ObjectPrinter(PrintOptions options, GoTemplate go_template)
      : m_options(std::move(options)), m_format(ObjectFormat::GoTemplate), m_template(std::move(go_template)) {}

  Result<void> print_list(const KindInfo& kind, const std::vector<Item>& items, bool single_object,
                          std::ostream& out) override {
    if (m_format == ObjectFormat::Name) {
      for (const auto& item : items) out << name_line(kind, item) << '\n';
      return {};
    }
    for (const auto& item : items) m_collected.push_back(shown(kind, item.object));
    m_single = single_object && m_lists == 0 && items.size() == 1;
    ++m_lists;
    (void)out;
    return {};
  }

  bool needs_objects() const override { return m_format != ObjectFormat::Name; }

  Result<void> finish(std::ostream& out) override {
    if (m_format == ObjectFormat::Name) return {};
    json document;
    if (m_single && m_collected.size() == 1) {
      document = m_collected.front();
    } else {
      document = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", m_collected},
                  {"metadata", {{"resourceVersion", ""}}}};
    }
    return emit_document(document, out, false);
  }

  Result<void> print_event(const KindInfo& kind, const Item& item, std::ostream& out) override {
    if (m_format == ObjectFormat::Name) {
      out << name_line(kind, item) << '\n';
      return {};
    }
    const bool complete = !item.object.is_object() ||
                          (item.object.contains("kind") && item.object.contains("apiVersion"));
    const bool managed = item.object.is_object() && item.object.contains("metadata") &&
                         item.object["metadata"].is_object() && item.object["metadata"].contains("managedFields");
    std::optional<json> typed;
    if (!complete || (managed && !m_options.show_managed_fields)) typed = shown(kind, item.object);
    const json& object = typed ? *typed : item.object;
    if (!m_options.watch_events) return emit_document(object, out, true);
    if (m_format == ObjectFormat::Json) {
      // {"type":...,"object":...} in that order, as kubectl and the API's WatchEvent write it.
      out << R"({"type":)" << to_kubectl_json_compact(json(item.type)) << R"(,"object":)"
          << to_kubectl_json_compact(object) << "}\n";
      return {};
    }
    return emit_document(json{{"type", item.type}, {"object", object}}, out, true);
  }

 private:
  // kubectl's -o json|yaml leave managedFields out unless --show-managed-fields (a JSONPath
  // template still sees them).
  json shown(const KindInfo& kind, json object) const {
    const bool hides = m_format == ObjectFormat::Json || m_format == ObjectFormat::Yaml;
    if (hides && !m_options.show_managed_fields && object.is_object())
      if (auto meta = object.find("metadata"); meta != object.end() && meta->is_object()) meta->erase("managedFields");
    return with_type_meta(kind, std::move(object));
  }

  static json with_type_meta(const KindInfo& kind, json object) {
    if (object.is_object()) {
      if (!object.contains("kind") && !kind.kind.empty()) object["kind"] = kind.kind;
      if (!object.contains("apiVersion") && !kind.api_version.empty()) object["apiVersion"] = kind.api_version;
    }
    return object;
  }

  std::string name_line(const KindInfo& kind, const Item& item) const {
    std::string line = kind.prefix() + "/" + escape_terminal(meta_string(item.object, "name"));
    return line;
  }

  Result<void> emit_document(const json& document, std::ostream& out, bool streaming) {
    switch (m_format) {
      case ObjectFormat::Json:
        if (streaming) out << to_kubectl_json_compact(document) << '\n';
        else out << to_kubectl_json(document) << '\n';
        return {};
      case ObjectFormat::Yaml:
        if (streaming && m_documents++ > 0) out << "---\n";
        out << codec::json_to_yaml(document);
        return {};
      case ObjectFormat::JsonPath: {
        auto text = m_path.render(document, m_options.allow_missing_keys);
        if (!text) return std::unexpected(jsonpath_failure(m_options.template_text, text.error().message, document));
        out << *text;
        if (streaming && !text->empty() && text->back() != '\n') out << '\n';
        return {};
      }
      case ObjectFormat::JsonPathJson: {  // each action's values as an indented JSON array
        auto lists = m_path.find(document, m_options.allow_missing_keys);
        if (!lists) return std::unexpected(jsonpath_failure(m_options.template_text, lists.error().message, document));
        for (const auto& values : *lists) out << to_kubectl_json(json(values)) << '\n';
        return {};
      }
      case ObjectFormat::GoTemplate: {
        std::string text;
        auto executed = execute(*m_template, document, text, m_options.allow_missing_keys);
        out << text;
        if (!executed) {
          // kubectl shows what the template ran on, on the printer's own output.
          std::string shown;
          put_go_value(document, shown);
          out << "Error executing template: " << executed.error().message
              << ". Printing more information for debugging the template:\n\ttemplate was:\n\t\t"
              << m_options.template_text << "\n\traw data was:\n\t\t"
              << (m_options.typed ? to_kubectl_typed_json(document, -1) : to_kubectl_json_compact(document))
              << "\n\tobject given to template engine was:\n\t\t" << shown << "\n\n";
          return fail("error executing template " + json(m_options.template_text).dump() + ": " +
                      executed.error().message);
        }
        if (streaming && !text.empty() && text.back() != '\n') out << '\n';
        return {};
      }
      case ObjectFormat::Name:
        return {};
    }
    return {};
  }

  // Compact JSON, escaped as Go's encoding/json does.
  static std::string to_kubectl_json_compact(const json& value) {
    return codec::go_json_escape(value.dump(-1, ' ', false, json::error_handler_t::replace));
  }

  PrintOptions m_options;
  ObjectFormat m_format;
  api::JsonPath m_path;
  std::optional<GoTemplate> m_template;
  std::vector<json> m_collected;
  bool m_single = false;
  int m_lists = 0;
  int m_documents = 0;
};

// ---- custom columns ---------------------------------------------------------------------

class CustomColumnsPrinter final : public Printer {
 public:
  struct Column {
    std::string header;
    api::JsonPath path;
  };
  CustomColumnsPrinter(PrintOptions options, std::vector<Column> columns)
      : m_options(std::move(options)), m_columns(std::move(columns)) {}

  // A listing's rows wait for finish(): the rows of every kind share one table, as in kubectl.
  Result<void> print_list(const KindInfo&, const std::vector<Item>& items, bool, std::ostream&) override {
    if (!m_header_done && !m_options.no_headers) m_rows.push_back(header());
    m_header_done = true;
    for (const auto& item : items) {
      auto cells = row(item);
      if (!cells) return std::unexpected(cells.error());
      m_rows.push_back(std::move(*cells));
    }
    return {};
  }

  Result<void> finish(std::ostream& out) override {
    if (!m_rows.empty()) out << tabulate(m_rows);
    m_rows.clear();
    return {};
  }

  Result<void> print_event(const KindInfo& kind, const Item& item, std::ostream& out) override {
    if (auto listed = print_list(kind, {item}, false, out); !listed) return listed;
    return finish(out);
  }

 private:
  std::vector<std::string> header() const {
    std::vector<std::string> cells;
    for (const auto& column : m_columns) cells.push_back(column.header);
    return cells;
  }
  // kubectl's custom-columns cell: every value found, each as Go's %v prints it, joined by
  // commas; "<none>" when the path finds nothing.
  Result<std::vector<std::string>> row(const Item& item) const {
    std::vector<std::string> cells;
    for (const auto& column : m_columns) {
      auto groups = column.path.find(item.object);
      if (!groups) return std::unexpected(groups.error());
      std::string text;
      bool first = true;
      for (const auto& group : *groups)
        for (const auto& value : group) {
          text += (first ? "" : ",") + escape_terminal(api::go_value_text(value));
          first = false;
        }
      cells.push_back(groups->empty() || groups->front().empty() ? "<none>" + text : text);
    }
    return cells;
  }

  PrintOptions m_options;
  std::vector<Column> m_columns;
  bool m_header_done = false;
  std::vector<std::vector<std::string>> m_rows;
};

}  // namespace

std::string meta_string(const json& object, std::string_view key) {
  const json& value = meta(object, key);
  return value.is_string() ? value.get<std::string>() : std::string();
}

std::string KindInfo::prefix() const {
  const std::string lower = util::to_lower(kind);
  return group.empty() ? lower : lower + "." + group;
}

std::string tabulate(const std::vector<std::vector<std::string>>& rows, std::size_t min_width, std::size_t padding) {
  std::string text;
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i > 0) text += '\t';
      text += row[i];
    }
    text += '\n';
  }
  return align_columns(text, min_width, padding);
}

std::string escape_terminal(std::string_view text) {
  std::string out;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == 0x1b) out += "^[";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      out += '^';
      out.push_back(static_cast<char>(c == 0x7f ? '?' : c + 64));
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

std::string cell_text(const json& cell) {
  if (cell.is_null()) return {};
  if (cell.is_string()) {
    std::string text = cell.get<std::string>();
    const auto cut = text.find_first_of("\f\n\r");
    if (cut != std::string::npos) return escape_terminal(text.substr(0, cut)) + "...";
    return escape_terminal(text);
  }
  if (cell.is_number_float()) {
    const double value = cell.get<double>();
    if (value == static_cast<double>(static_cast<long long>(value))) return std::to_string(static_cast<long long>(value));
  }
  return escape_terminal(cell.dump());
}

std::string to_kubectl_json(const json& value) {
  return codec::go_json_escape(value.dump(4, ' ', false, json::error_handler_t::replace));
}

namespace {

// `value` with its keys in the order of the fields of `message` (the order of the Go struct,
// which its .proto keeps): kind and apiVersion first, as TypeMeta comes first; maps and keys
// the message lacks sorted, after the fields.
nlohmann::ordered_json in_struct_order(const json& value, const google::protobuf::Descriptor* message) {
  if (value.is_array()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& item : value) out.push_back(in_struct_order(item, message));
    return out;
  }
  if (!value.is_object()) return nlohmann::ordered_json(value);
  std::vector<std::pair<int, std::string>> order;
  for (const auto& [key, field_value] : value.items()) {
    const auto* field = message ? codec::json_field(*message, key) : nullptr;
    const int rank = key == "kind" && field == nullptr         ? -2
                     : key == "apiVersion" && field == nullptr ? -1
                     : field != nullptr                        ? field->index()
                                                               : 1 << 20;
    order.emplace_back(rank, key);
  }
  std::ranges::sort(order);
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [rank, key] : order) {
    const auto* field = message ? codec::json_field(*message, key) : nullptr;
    const google::protobuf::Descriptor* child = field != nullptr ? field->message_type() : nullptr;
    if (field != nullptr && field->is_map()) child = field->message_type()->map_value()->message_type();
    out[key] = in_struct_order(value[key], field != nullptr && field->is_map() ? nullptr : child);
    if (field != nullptr && field->is_map() && child != nullptr && value[key].is_object())
      for (const auto& [entry, entry_value] : value[key].items()) out[key][entry] = in_struct_order(entry_value, child);
  }
  return out;
}

}  // namespace

namespace {

// The message of a built-in kind's Go type, or nullptr.
const google::protobuf::Descriptor* builtin_message_of(const json& object) {
  if (object.is_object() && object.contains("apiVersion") && object.contains("kind") &&
      object["apiVersion"].is_string() && object["kind"].is_string())
    if (auto name = codec::builtin_message_for(object["apiVersion"].get<std::string>(), object["kind"].get<std::string>()))
      return proto::find_message(*name);
  return nullptr;
}

}  // namespace

json go_typed(json object) {
  if (const auto* message = builtin_message_of(object)) codec::fill_go_values(object, *message);
  return object;
}

std::string to_kubectl_typed_json(const json& object, int indent) {
  const google::protobuf::Descriptor* message = builtin_message_of(object);
  if (message == nullptr) return codec::go_json_escape(object.dump(indent, ' ', false, json::error_handler_t::replace));
  return codec::go_json_escape(
      in_struct_order(object, message).dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

json client_cells(const KindInfo& kind, const json& object, std::chrono::system_clock::time_point now) {
  if (kind.info != nullptr) return api::table_cells(*kind.info, object, now);
  api::ResourceInfo generic;
  generic.kind = kind.kind;
  generic.group = kind.group;
  generic.columns = kind.columns;
  // A built-in kind printed with its own columns gets its row's printer.
  const auto* row = kinds::builtin_table().find_kind(kind.api_version, kind.kind);
  if (row && row->columns.size() == kind.columns.size()) generic.printer = row->printer;
  return api::table_cells(generic, object, now);
}

namespace {

// The text of a -o ...-file=PATH template, or kubectl's error.
Result<std::string> read_template_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("error reading --template " + path + ", open " + path + ": no such file or directory");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// -o go-template=T, go-template-file=F, template=T, templatefile=F, or go-template / template
// with --template T (kubectl's spellings).
Result<std::unique_ptr<Printer>> template_printer(PrintOptions options) {
  const std::string& output = options.output;
  const auto equals = output.find('=');
  const std::string format = output.substr(0, equals);
  if (equals != std::string::npos) options.template_text = output.substr(equals + 1);
  if (format == "go-template-file" || format == "templatefile") {
    auto read = read_template_file(options.template_text);
    if (!read) return std::unexpected(read.error());
    options.template_text = std::move(*read);
  }
  if (options.template_text.empty()) return fail("template format specified but no template given");
  auto parsed = parse_go_template(options.template_text);
  if (!parsed) return fail("error parsing template " + options.template_text + ", " + parsed.error().message);
  return std::make_unique<ObjectPrinter>(std::move(options), std::move(*parsed));
}

bool is_go_template_format(const std::string& format) {
  return format == "go-template" || format == "go-template-file" || format == "template" || format == "templatefile";
}

bool is_jsonpath_format(const std::string& format) {
  return format == "jsonpath" || format == "jsonpath-as-json" || format == "jsonpath-file";
}

}  // namespace

bool is_template_output(const std::string& output) {
  const std::string format = output.substr(0, output.find('='));
  return is_go_template_format(format) || is_jsonpath_format(format);
}

Result<std::unique_ptr<Printer>> make_printer(const PrintOptions& options) {
  const std::string& output = options.output;
  // --template alone means -o go-template, as in kubectl.
  if (output.empty() && !options.template_text.empty()) {
    PrintOptions templated = options;
    templated.output = "go-template";
    return template_printer(std::move(templated));
  }
  const std::string format = output.substr(0, output.find('='));
  if (is_go_template_format(format)) return template_printer(options);
  if (output.empty() || output == "wide") return std::make_unique<TablePrinter>(options);
  if (output == "json") return std::make_unique<ObjectPrinter>(options, ObjectFormat::Json);
  if (output == "yaml") return std::make_unique<ObjectPrinter>(options, ObjectFormat::Yaml);
  if (output == "name") return std::make_unique<ObjectPrinter>(options, ObjectFormat::Name);
  if (is_jsonpath_format(format)) {
    // The expression after '=', else the one of --template.
    std::string text = output.find('=') != std::string::npos ? output.substr(format.size() + 1) : options.template_text;
    if (text.empty()) return fail("template format specified but no template given");
    if (format == "jsonpath-file") {
      auto read = read_template_file(text);
      if (!read) return std::unexpected(read.error());
      text = std::move(*read);
    }
    auto path = api::JsonPath::parse(text);
    if (!path) return fail("error parsing jsonpath " + text + ", " + path.error().message);
    PrintOptions with_text = options;
    with_text.template_text = std::move(text);  // named by a failure
    return std::make_unique<ObjectPrinter>(
        std::move(with_text), format == "jsonpath-as-json" ? ObjectFormat::JsonPathJson : ObjectFormat::JsonPath,
        std::move(*path));
  }
  if (output.starts_with("custom-columns=")) {
    std::vector<CustomColumnsPrinter::Column> columns;
    std::string_view spec = std::string_view(output).substr(15);
    while (!spec.empty()) {
      const auto comma = spec.find(',');
      std::string_view part = spec.substr(0, comma);
      spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
      const auto colon = part.find(':');
      if (colon == std::string_view::npos)
        return fail("custom-columns format: expected <header>:<json-path-expr>, got '" + std::string(part) + "'");
      auto path = api::JsonPath::parse_relaxed(part.substr(colon + 1));
      if (!path) return fail("custom-columns: " + path.error().message);
      columns.push_back({std::string(part.substr(0, colon)), std::move(*path)});
    }
    if (columns.empty()) return fail("custom-columns format specified but no custom columns given");
    return std::make_unique<CustomColumnsPrinter>(options, std::move(columns));
  }
  return fail("unable to match a printer suitable for the output format \"" + output +
              "\", allowed formats are: " + std::string(k_output_formats));
}

}  // namespace kw::cli
