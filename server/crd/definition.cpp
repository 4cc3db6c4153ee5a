#include "server/crd/definition.hpp"

#include <algorithm>
#include <cctype>

#include "core/util/text.hpp"
#include "server/crd/schema.hpp"

namespace kw::crd {
namespace {

using json = nlohmann::json;

const char* const k_name_description =
    "Name must be unique within a namespace. Is required when creating resources, although some resources may "
    "allow a client to request the generation of an appropriate name automatically. Name is primarily intended "
    "for creation idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const char* const k_age_description =
    "CreationTimestamp is a timestamp representing the server time when this object was created.";

using util::to_lower;

std::string text_at(const json& object, const char* key) {
  auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

std::vector<std::string> strings_at(const json& object, const char* key) {
  std::vector<std::string> out;
  auto found = object.find(key);
  if (found == object.end() || !found->is_array()) return out;
  for (const auto& item : *found)
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

bool dns_label(const std::string& v) {
  if (v.empty() || v.size() > 63) return false;
  auto ok = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; };
  return std::all_of(v.begin(), v.end(), ok) && v.front() != '-' && v.back() != '-';
}

bool dns_subdomain(const std::string& v) {
  if (v.empty() || v.size() > 253) return false;
  std::size_t start = 0;
  for (;;) {
    const auto dot = v.find('.', start);
    if (!dns_label(v.substr(start, dot == std::string::npos ? std::string::npos : dot - start))) return false;
    if (dot == std::string::npos) return true;
    start = dot + 1;
  }
}

void add(json& causes, const std::string& reason, const std::string& field, const std::string& message) {
  causes.push_back({{"reason", reason}, {"message", message}, {"field", field}});
}

void required(json& causes, const std::string& field, const std::string& why = "") {
  add(causes, "FieldValueRequired", field, why.empty() ? "Required value" : "Required value: " + why);
}

void invalid(json& causes, const std::string& field, const json& value, const std::string& why) {
  add(causes, "FieldValueInvalid", field, "Invalid value: " + value.dump() + ": " + why);
}

void validate_names(json& causes, const json& names) {
  const std::string plural = text_at(names, "plural");
  if (plural.empty()) required(causes, "spec.names.plural");
  else if (!dns_label(plural))
    invalid(causes, "spec.names.plural", plural,
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'");
  const std::string singular = text_at(names, "singular");
  if (!singular.empty() && !dns_label(singular))
    invalid(causes, "spec.names.singular", singular,
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'");
  if (text_at(names, "kind").empty()) required(causes, "spec.names.kind");
  for (const auto& short_name : strings_at(names, "shortNames"))
    if (!dns_label(short_name))
      invalid(causes, "spec.names.shortNames", short_name,
              "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'");
}

// A simple JSON path under .spec or .status: dot-separated field names, no arrays.
bool scale_path(const std::string& path, std::initializer_list<std::string_view> roots) {
  bool rooted = false;
  for (std::string_view root : roots) rooted = rooted || (path.starts_with(root) && path.size() > root.size() && path[root.size()] == '.');
  if (!rooted || path.ends_with('.')) return false;
  for (std::size_t i = 1; i < path.size(); ++i)
    if (path[i] == '[' || path[i] == ']' || (path[i] == '.' && path[i - 1] == '.')) return false;
  return true;
}

void validate_scale(json& causes, const json& scale, const std::string& field) {
  if (!scale.is_object()) return invalid(causes, field, scale, "must be an object");
  const std::string spec = text_at(scale, "specReplicasPath");
  const std::string status = text_at(scale, "statusReplicasPath");
  if (spec.empty()) required(causes, field + ".specReplicasPath");
  else if (!scale_path(spec, {".spec"}))
    invalid(causes, field + ".specReplicasPath", spec, "should be a json path under .spec");
  if (status.empty()) required(causes, field + ".statusReplicasPath");
  else if (!scale_path(status, {".status"}))
    invalid(causes, field + ".statusReplicasPath", status, "should be a json path under .status");
  const std::string selector = text_at(scale, "labelSelectorPath");
  if (!selector.empty() && !scale_path(selector, {".spec", ".status"}))
    invalid(causes, field + ".labelSelectorPath", selector, "should be a json path under either .spec or .status");
}

void validate_version(json& causes, const json& version, const std::string& field) {
  const std::string name = text_at(version, "name");
  if (name.empty()) required(causes, field + ".name");
  else if (!dns_label(name))
    invalid(causes, field + ".name", name, "a DNS-1035 label must consist of lower case alphanumeric characters or '-'");
  const json schema = version.value("schema", json::object()).value("openAPIV3Schema", json());
  if (schema.is_null()) {
    required(causes, field + ".schema.openAPIV3Schema", "schemas are required");
    return;
  }
  if (!schema.is_object() || text_at(schema, "type") != "object")
    required(causes, field + ".schema.openAPIV3Schema.type", "must be object at the root");
  const auto problems = check_schema(schema, field + ".schema.openAPIV3Schema");
  for (const auto& problem : problems) {
    const auto colon = problem.find(": ");
    add(causes, "FieldValueInvalid", problem.substr(0, colon), problem.substr(colon + 2));
  }
  // As in kube, the rules are compiled only against a schema without problems.
  if (problems.empty()) check_rules(schema, field + ".schema.openAPIV3Schema", causes);
  if (auto scale = version.value("subresources", json::object()).value("scale", json()); !scale.is_null())
    validate_scale(causes, scale, field + ".subresources.scale");
  if (auto columns = version.find("additionalPrinterColumns"); columns != version.end() && columns->is_array())
    for (std::size_t i = 0; i < columns->size(); ++i) {
      const auto& column = (*columns)[i];
      const std::string at = field + ".additionalPrinterColumns[" + std::to_string(i) + "]";
      if (text_at(column, "name").empty()) required(causes, at + ".name");
      if (text_at(column, "jsonPath").empty()) required(causes, at + ".jsonPath");
      const std::string type = text_at(column, "type");
      static const char* const k_types[] = {"integer", "number", "string", "boolean", "date"};
      if (std::find(std::begin(k_types), std::end(k_types), type) == std::end(k_types))
        add(causes, "FieldValueNotSupported", at + ".type",
            "Unsupported value: " + json(type).dump() +
                ": supported values: \"boolean\", \"date\", \"integer\", \"number\", \"string\"");
    }
}

std::vector<api::ColumnDefinition> columns_of(const json& version) {
  std::vector<api::ColumnDefinition> out;
  out.push_back({"Name", "string", "name", k_name_description, 0, ""});
  auto columns = version.find("additionalPrinterColumns");
  if (columns == version.end() || !columns->is_array() || columns->empty()) {
    out.push_back(
        api::ColumnDefinition{"Age", "date", "", k_age_description, 0, ".metadata.creationTimestamp"}.with_parsed_path());
    return out;
  }
  for (const auto& column : *columns)
    out.push_back(api::ColumnDefinition{text_at(column, "name"), text_at(column, "type"), text_at(column, "format"),
                                        text_at(column, "description"), column.value("priority", 0),
                                        text_at(column, "jsonPath")}
                      .with_parsed_path());
  return out;
}

}  // namespace

const Version* Definition::find_version(const std::string& version) const {
  for (const auto& v : versions)
    if (v.name == version) return &v;
  return nullptr;
}

const Version& Definition::storage_version() const {
  for (const auto& v : versions)
    if (v.storage) return v;
  return versions.front();
}

std::vector<api::ResourceInfo> Definition::resource_infos() const {
  std::vector<api::ResourceInfo> out;
  for (const auto& v : versions) {
    if (!v.served) continue;
    api::ResourceInfo info;
    info.group = group;
    info.version = v.name;
    info.kind = kind;
    info.list_kind = list_kind;
    info.plural = plural;
    info.singular = singular;
    info.short_names = short_names;
    info.categories = categories;
    info.namespaced = namespaced;
    info.verbs = {"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"};
    if (v.status_subresource) info.subresources.push_back("status");
    if (v.scale.is_object()) {
      info.subresources.push_back("scale");
      info.scale = api::ScalePaths{.spec_replicas = v.scale.value("specReplicasPath", std::string()),
                                   .status_replicas = v.scale.value("statusReplicasPath", std::string()),
                                   .label_selector = v.scale.value("labelSelectorPath", std::string()),
                                   .selector_from_spec = false};
    }
    info.columns = v.columns;
    info.custom = true;
    info.storage_version = storage_version().name;
    out.push_back(std::move(info));
  }
  return out;
}

json validate_definition(const json& crd) {
  json causes = json::array();
  const json spec = crd.value("spec", json::object());
  if (!spec.is_object()) {
    required(causes, "spec");
    return causes;
  }
  const std::string group = text_at(spec, "group");
  if (group.empty()) required(causes, "spec.group");
  else if (!dns_subdomain(group) || group.find('.') == std::string::npos)
    invalid(causes, "spec.group", group, "should be a domain with at least one dot");
  const json names = spec.value("names", json::object());
  validate_names(causes, names.is_object() ? names : json::object());
  const std::string scope = text_at(spec, "scope");
  if (scope != "Namespaced" && scope != "Cluster")
    add(causes, scope.empty() ? "FieldValueRequired" : "FieldValueNotSupported", "spec.scope",
        scope.empty() ? "Required value"
                      : "Unsupported value: " + json(scope).dump() + ": supported values: \"Cluster\", \"Namespaced\"");
  const json versions = spec.value("versions", json::array());
  if (!versions.is_array() || versions.empty()) {
    required(causes, "spec.versions", "must have at least one version");
  } else {
    int storage = 0;
    for (std::size_t i = 0; i < versions.size(); ++i) {
      validate_version(causes, versions[i], "spec.versions[" + std::to_string(i) + "]");
      if (versions[i].value("storage", false)) ++storage;
    }
    if (storage != 1)
      invalid(causes, "spec.versions", versions.size(), "must have exactly one version marked as storage version");
  }
  const std::string name = crd.value("metadata", json::object()).value("name", "");
  const std::string expected = text_at(names.is_object() ? names : json::object(), "plural") + "." + group;
  if (name != expected) invalid(causes, "metadata.name", name, "must be spec.names.plural+\".\"+spec.group");
  return causes;
}

std::shared_ptr<const Definition> parse_definition(const json& crd) {
  auto def = std::make_shared<Definition>();
  const json& spec = crd.at("spec");
  const json& names = spec.at("names");
  def->name = crd.at("metadata").value("name", "");
  def->group = text_at(spec, "group");
  def->kind = text_at(names, "kind");
  def->list_kind = text_at(names, "listKind").empty() ? def->kind + "List" : text_at(names, "listKind");
  def->plural = text_at(names, "plural");
  def->singular = text_at(names, "singular").empty() ? to_lower(def->kind) : text_at(names, "singular");
  def->short_names = strings_at(names, "shortNames");
  def->categories = strings_at(names, "categories");
  def->namespaced = text_at(spec, "scope") != "Cluster";
  for (const auto& v : spec.at("versions")) {
    Version version;
    version.name = text_at(v, "name");
    version.served = v.value("served", true);
    version.storage = v.value("storage", false);
    version.schema = v.value("schema", json::object()).value("openAPIV3Schema", json());
    const json subresources = v.value("subresources", json::object());
    version.status_subresource = subresources.is_object() && subresources.contains("status");
    version.scale = subresources.is_object() ? subresources.value("scale", json()) : json();
    version.columns = columns_of(v);
    version.rules = ValidationRules::compile(version.schema);
    def->versions.push_back(std::move(version));
  }
  const json conversion = spec.value("conversion", json::object());
  if (conversion.is_object() && conversion.value("strategy", "None") == "Webhook")
    def->conversion_webhook = conversion.value("webhook", json::object());
  return def;
}

json with_established_status(json crd, const std::string& now_rfc3339) {
  const json& spec = crd["spec"];
  json names = spec.value("names", json::object());
  if (!names.contains("singular")) names["singular"] = to_lower(names.value("kind", ""));
  if (!names.contains("listKind")) names["listKind"] = names.value("kind", "") + "List";
  json status = crd.value("status", json::object());
  if (!status.is_object()) status = json::object();
  auto condition = [&](const std::string& type, const std::string& reason, const std::string& message) {
    json existing;
    if (status.contains("conditions") && status["conditions"].is_array())
      for (const auto& c : status["conditions"])
        if (c.value("type", "") == type) existing = c;
    const bool unchanged = existing.is_object() && existing.value("status", "") == "True";
    return json{{"type", type},
                {"status", "True"},
                {"lastTransitionTime", unchanged ? existing.value("lastTransitionTime", now_rfc3339) : now_rfc3339},
                {"reason", reason},
                {"message", message}};
  };
  status["conditions"] = json::array({condition("NamesAccepted", "NoConflicts", "no conflicts found"),
                                      condition("Established", "InitialNamesAccepted", "the initial names have been accepted")});
  status["acceptedNames"] = names;
  json stored = status.value("storedVersions", json::array());
  if (!stored.is_array()) stored = json::array();
  for (const auto& v : spec.value("versions", json::array()))
    if (v.value("storage", false) && std::find(stored.begin(), stored.end(), v.value("name", "")) == stored.end())
      stored.push_back(v.value("name", ""));
  status["storedVersions"] = stored;
  crd["status"] = std::move(status);
  return crd;
}

}  // namespace kw::crd
