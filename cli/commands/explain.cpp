// kw explain TYPE[.FIELD...]: a resource's schema from the server's OpenAPI v3 document, in
// kubectl explain's plaintext form (kind and version, the description, then the fields with
// their types, or with --recursive the whole tree of field names).
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "cli/client/discovery.hpp"
#include "cli/client/openapi_schemas.hpp"
#include "cli/commands/common.hpp"
#include "cli/commands/verbs.hpp"
#include "core/api/json_access.hpp"

namespace kw::cli {

namespace {

using nlohmann::json;

struct ExplainOptions {
  ConnectionFlags connection;
  std::string target;  // TYPE or TYPE.FIELD.FIELD...
  std::string api_version;
  bool recursive = false;
  std::string output = "plaintext";
};

using api::at;
using api::str;

// kubectl's word wrapping (go-wordwrap): words move to the next line once a line would pass
// `limit` characters; a word longer than the limit stays whole; existing newlines are kept.
std::string wrap(std::string_view text, std::size_t limit) {
  std::string out, word, space;
  std::size_t current = 0, word_length = 0, space_length = 0;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t length = 1;
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0xC0) length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    const std::string_view ch = text.substr(i, length);
    i += length;
    if (ch == "\n") {
      out += space + word + "\n";
      space.clear(), word.clear();
      space_length = word_length = current = 0;
    } else if (ch == " " || ch == "\t" || ch == "\r" || ch == "\v" || ch == "\f") {
      if (space.empty() || !word.empty()) {
        current += space_length + word_length;
        out += space + word;
        space.clear(), word.clear();
        space_length = word_length = 0;
      }
      space += ch;
      ++space_length;
    } else {
      word += ch;
      ++word_length;
      if (current + space_length + word_length > limit && word_length < limit) {
        out += '\n';
        current = 0;
        space.clear();
        space_length = 0;
      }
    }
  }
  if (word.empty()) {
    if (current + space_length <= limit) out += space;
  } else {
    out += space + word;
  }
  return out;
}

// Every line of `text` (and the empty one after a final newline) indented by `spaces`.
std::string indent(std::string_view text, std::size_t spaces) {
  const std::string pad(spaces, ' ');
  std::string out = pad;
  for (const char c : text) {
    out += c;
    if (c == '\n') out += pad;
  }
  return out;
}

// The enum values of a field: "enum: a, b, ...." on the field's line, or under "ENUM:" one per
// line for the field explained.
std::string enum_text(const json& schema, bool long_view, int limit, std::size_t indent_amount) {
  const json& values = at(schema, {"enum"});
  if (!values.is_array() || values.empty()) return {};
  std::string out = long_view ? "ENUM:" : "\n" + std::string(indent_amount, ' ') + "enum: ";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (limit >= 0 && i >= static_cast<std::size_t>(limit)) {
      out += ", ....";
      break;
    }
    if (i > 0 && !long_view) out += ", ";
    else if (long_view) out += "\n    ";
    const json& value = values[i];
    out += value.is_string() ? (value.get<std::string>().empty() ? "\"\"" : value.get<std::string>()) : value.dump();
  }
  return out;
}

class Explainer {
 public:
  Explainer(const Schemas& schemas, bool recursive) : m_schemas(schemas), m_recursive(recursive) {}

  // The fields of `schema`, each as "name\t<type>" (and its description unless recursive).
  std::string field_list(const json& schema, std::size_t level, std::set<std::string> history) const {
    const std::string ref = str(at(schema, {"$ref"}));
    if (!ref.empty() && history.contains(ref)) return {};
    history.insert(ref);
    const json& own = m_schemas.resolved(schema);
    std::string out;
    if (const json& properties = at(own, {"properties"}); properties.is_object())
      for (const auto& [name, field] : properties.items()) {
        out += field_detail(own, name, level);
        if (m_recursive) out += field_list(field, level + 1, history);
      }
    for (const json& part : at(own, {"allOf"})) out += field_list(part, level, history);
    if (own.contains("items")) out += field_list(own["items"], level, history);
    if (is_map(own)) out += field_list(own["additionalProperties"], level, history);
    return out;
  }

  // Follows `path` from `schema`; at its end, the description and the fields. Empty when the
  // path leads nowhere.
  std::string output(const json& schema, std::span<const std::string> path, std::set<std::string> history) const {
    const std::string ref = str(at(schema, {"$ref"}));
    const json& own = m_schemas.resolved(schema);
    if (path.empty()) {
      std::string description = m_schemas.description(own);
      if (description.empty()) description = "<empty>";
      std::string out = "DESCRIPTION:\n" + indent(wrap(description, 76), 4) + "\n";
      out += external_docs(own, 0);
      if (std::string fields = field_list(own, 1, {}); !fields.empty()) out += "FIELDS:\n" + fields;
      return out;
    }
    if (!ref.empty() && history.contains(ref)) return {};
    history.insert(ref);
    if (const json& field = at(own, {"properties", path.front()}); !field.is_null()) {
      std::string out;
      if (path.size() == 1)
        out = "FIELD: " + path.front() + " <" + m_schemas.type_guess(field) + ">\n" + enum_text(field, true, -1, 0) +
              "\n\n";
      return out + output(field, path.subspan(1), {});
    }
    if (own.contains("items")) return output(own["items"], path, history);
    if (is_map(own)) return output(own["additionalProperties"], path, history);
    for (const json& part : at(own, {"allOf"}))
      if (std::string out = output(part, path, history); !out.empty()) return out;
    return {};
  }

 private:
  std::string field_detail(const json& schema, const std::string& name, std::size_t level) const {
    const std::size_t indent_amount = level * 2;
    const json& field = schema["properties"][name];
    std::string out = indent(name, indent_amount) + "\t<" + m_schemas.type_guess(field) + ">";
    for (const json& required : at(schema, {"required"}))
      if (required == name) {
        out += " -required-";
        break;
      }
    out += enum_text(field, false, 4, indent_amount) + "\n";
    if (m_recursive) return out;
    std::string description = str(at(field, {"description"}));
    if (description.empty()) description = "<no description>";
    out += indent(wrap(description, 78 - indent_amount), indent_amount + 2) + "\n";
    out += external_docs(field, indent_amount + 2);
    return out + "\n";
  }

  static std::string external_docs(const json& schema, std::size_t column) {
    const json& docs = at(schema, {"externalDocs"});
    if (!docs.is_object()) return {};
    std::string out = indent("EXTERNAL DOCS:", column) + "\n";
    if (const std::string text = str(at(docs, {"description"})); !text.empty())
      out += indent(wrap(text, 76 - column), column + 4) + "\n";
    if (const std::string url = str(at(docs, {"url"})); !url.empty()) out += indent("URL: " + url, column + 4) + "\n";
    return column == 0 ? "\n" + out : out;
  }

  const Schemas& m_schemas;
  bool m_recursive;
};

int run_explain(const ExplainOptions& options) {
  if (options.target.empty())
    return report_usage("You must specify the type of resource to explain. Use \"kubectl api-resources\" for a "
                        "complete list of supported resources.");
  if (options.output != "plaintext")
    return report_usage("--output " + options.output + " is not available: kw explain writes plaintext");
  std::vector<std::string> path;
  for (std::size_t start = 0;;) {
    const auto dot = options.target.find('.', start);
    path.push_back(options.target.substr(start, dot == std::string::npos ? dot : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  const std::string type = path.front();
  path.erase(path.begin());
  auto api = ApiClient::create(options.connection);
  if (!api) return report_usage(api.error().message);
  Resolver resolver(**api);
  auto infos = resolver.resolve_types(type);
  if (!infos) {
    // kubectl explain prints an unknown type's error without its "error: " prefix.
    VerbError error = infos.error();
    if (error.http_status == 0 && error.message.starts_with("error: the server doesn't have a resource type"))
      error.message.erase(0, std::string_view("error: ").size());
    return report(error);
  }
  api::ResourceInfo info = infos->front();
  if (!options.api_version.empty()) {
    const auto slash = options.api_version.find('/');
    info.group = slash == std::string::npos ? "" : options.api_version.substr(0, slash);
    info.version = slash == std::string::npos ? options.api_version : options.api_version.substr(slash + 1);
  }
  auto document = openapi_v3_document(**api, info.group, info.version);
  if (!document) return report(document.error());
  if (document->is_null())
    return report_usage("couldn't find resource for \"" + info.group_version() + ", Resource=" + info.plural + "\"");
  const Schemas schemas(*document);
  const json* schema = schemas.of_kind(info.group, info.version, info.kind);
  if (schema == nullptr)
    return report_usage("GVK " + info.group_version() + ", Kind=" + info.kind + " not found in OpenAPI schema");
  // The heading is out before a missing field is found, as kubectl's template writes it.
  std::string heading;
  if (!info.group.empty()) heading += "GROUP:      " + info.group + "\n";
  heading += "KIND:       " + info.kind + "\nVERSION:    " + info.version + "\n\n";
  const std::string body = Explainer(schemas, options.recursive).output(*schema, path, {});
  std::cout << heading << (body.empty() ? "" : body + "\n") << std::flush;
  if (body.empty()) return report_usage("field \"" + path.back() + "\" does not exist");
  return k_exit_ok;
}

}  // namespace

void add_explain_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<ExplainOptions>();
  CLI::App* command = app.add_subcommand("explain", "Describe a resource's fields from the server's OpenAPI schema (kubectl explain)");
  command->footer(
      "TYPE.FIELD.FIELD... names a field: its type, description and fields. With --recursive, the field names "
      "of the whole tree without descriptions. " +
      std::string(k_client_exit_codes));
  command->add_option("type", options->target, "TYPE or TYPE.FIELD.FIELD... (pods, pods.spec.containers)");
  command->add_flag("--recursive", options->recursive, "List every field underneath, without descriptions");
  command->add_option("--api-version", options->api_version, "The group/version of the resource to explain (apps/v1)");
  command->add_option("--output", options->output, "The format of the schema: plaintext")
      ->check(CLI::IsMember({"plaintext"}));
  add_connection_flags(*command, options->connection);
  command->callback([options, exit_code] { *exit_code = run_explain(*options); });
}

}  // namespace kw::cli
