// The REST paths of a resource, as kube-apiserver publishes them: operations,
// operation ids, x-kubernetes-action / x-kubernetes-group-version-kind, query
// parameters, request bodies and responses.
#include <cctype>
#include <utility>
#include <vector>

#include "server/http/openapi_build.hpp"

namespace kw::http::openapi {
namespace {

using nlohmann::json;

struct Param {
  std::string_view name;
  std::string_view type;  // "string", "boolean", "integer"
  std::string_view description;
};

constexpr Param k_pretty{"pretty", "string", "If 'true', then the output is pretty printed."};
constexpr Param k_dry_run{"dryRun", "string",
                          "When present, indicates that modifications should not be persisted. The only valid value "
                          "is All: all dry run stages are processed."};
constexpr Param k_field_manager{"fieldManager", "string",
                                "A name associated with the actor or entity that is making these changes."};
constexpr Param k_field_validation{
    "fieldValidation", "string",
    "How the server treats fields of the body it does not know: Ignore drops them silently, Warn drops them and "
    "answers with a warning for each, Strict fails the request naming them."};
constexpr Param k_force{"force", "boolean", "Force is going to \"force\" Apply requests (server-side apply)."};
constexpr Param k_grace_period{"gracePeriodSeconds", "integer",
                               "The duration in seconds before the object should be deleted."};
constexpr Param k_orphan{"orphanDependents", "boolean",
                         "Deprecated: use propagationPolicy. Whether the dependent objects should be orphaned."};
constexpr Param k_propagation{"propagationPolicy", "string",
                              "Whether and how garbage collection will be performed: Orphan, Background or "
                              "Foreground."};

const std::vector<Param>& list_params() {
  static const std::vector<Param> params = {
      {"allowWatchBookmarks", "boolean", "Requests watch events with type BOOKMARK."},
      {"continue", "string", "The continue token of the previous page of a paginated list."},
      {"fieldSelector", "string", "A selector to restrict the list of returned objects by their fields."},
      {"labelSelector", "string", "A selector to restrict the list of returned objects by their labels."},
      {"limit", "integer", "The maximum number of responses to return for a list call."},
      {"resourceVersion", "string", "Constrains which resource versions the request may be served from."},
      {"resourceVersionMatch", "string", "How resourceVersion is applied to list calls (Exact, NotOlderThan)."},
      {"sendInitialEvents", "boolean", "With watch=true, starts the watch stream with synthetic ADDED events."},
      {"timeoutSeconds", "integer", "Timeout for the list/watch call."},
      {"watch", "boolean", "Watch for changes to the described resources and return them as a stream."},
  };
  return params;
}

std::string capitalized(std::string_view word) {
  std::string out(word);
  if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

// "" -> "Core", "apps" -> "Apps", "stable.example.com" -> "StableExampleCom".
std::string group_camel(std::string_view group) {
  if (group.empty()) return "Core";
  std::string out;
  bool upper = true;
  for (char c : group) {
    if (c == '.' || c == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

struct Operation {
  std::string method;            // "get", "post", ...
  std::string verb;              // operation id prefix: "list", "create", "read", ...
  std::string action;            // x-kubernetes-action
  std::string suffix;            // operation id suffix: "", "Status", "List", "ForAllNamespaces", ...
  bool collection_word = false;  // "deleteCoreV1CollectionNamespacedPod"
  std::vector<Param> params;
  std::string body;  // request body definition; empty when none
  bool patch = false;
  std::vector<std::pair<std::string, std::string>> responses;  // code, definition
  bool streams = false;                                        // may answer with a watch stream
};

class PathWriter {
 public:
  PathWriter(const api::ResourceInfo& resource, Dialect dialect, json& paths)
      : m_resource(resource), m_dialect(dialect), m_paths(paths) {
    m_prefix = resource.group.empty() ? "/api/" + resource.version : "/apis/" + resource.group + "/" + resource.version;
    m_gv_camel = group_camel(resource.group) + capitalized(resource.version);
    std::string tag_group = group_camel(resource.group);
    tag_group[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(tag_group[0])));
    m_tag = tag_group + "_" + resource.version;
  }

  void write_all() {
    const auto& r = m_resource;
    const bool ns = r.namespaced;
    const std::string scope = ns ? "/namespaces/{namespace}/" : "/";
    const std::string collection = m_prefix + scope + r.plural;
    const std::string item = collection + "/{name}";
    std::vector<Operation> collection_ops;
    if (supports("list")) collection_ops.push_back(list_operation(""));
    if (supports("create")) collection_ops.push_back(create_operation());
    if (supports("deletecollection")) collection_ops.push_back(delete_collection_operation());
    add_path(collection, ns, false, collection_ops);

    std::vector<Operation> item_ops;
    if (supports("get")) item_ops.push_back(read_operation(""));
    if (supports("update")) item_ops.push_back(replace_operation(""));
    if (supports("patch")) item_ops.push_back(patch_operation(""));
    if (supports("delete")) item_ops.push_back(delete_operation());
    add_path(item, ns, true, item_ops);

    for (const std::string& sub : r.subresources) {
      std::vector<Operation> ops;
      if (sub == "status")
        ops = {read_operation("Status"), replace_operation("Status"), patch_operation("Status")};
      else if (sub == "finalize")
        ops = {replace_operation("Finalize")};
      else
        continue;  // scale needs autoscaling/v1 Scale, which kw_proto does not carry
      add_path(item + "/" + sub, ns, true, ops);
    }

    if (supports("watch")) {
      const std::string watch_collection = m_prefix + "/watch" + scope + r.plural;
      add_path(watch_collection, ns, false, {watch_operation("watchlist", "List")});
      add_path(watch_collection + "/{name}", ns, true, {watch_operation("watch", "")});
    }
    if (ns && supports("list")) {
      add_path(m_prefix + "/" + r.plural, false, false, {list_operation("ForAllNamespaces")});
      if (supports("watch"))
        add_path(m_prefix + "/watch/" + r.plural, false, false, {watch_operation("watchlist", "ListForAllNamespaces")});
    }
  }

 private:
  bool supports(std::string_view verb) const {
    for (const auto& v : m_resource.verbs) {
      if (v == verb) return true;
    }
    return false;
  }

  std::string kind_def() const { return kind_definition(m_resource); }
  std::string list_def() const { return list_definition(m_resource); }
  static std::string status_def() { return "io.k8s.apimachinery.pkg.apis.meta.v1.Status"; }

  Operation list_operation(const std::string& suffix) const {
    return {"get", "list", "list", suffix, false, list_params(), "", false, {{"200", list_def()}}, true};
  }
  Operation create_operation() const {
    return {"post",     "create", "post",
            "",         false,    {k_dry_run, k_field_manager, k_field_validation},
            kind_def(), false,    {{"200", kind_def()}, {"201", kind_def()}, {"202", kind_def()}},
            false};
  }
  Operation delete_collection_operation() const {
    std::vector<Param> params = {k_dry_run, k_grace_period, k_orphan, k_propagation};
    params.insert(params.end(), list_params().begin(), list_params().end());
    return {"delete",
            "delete",
            "deletecollection",
            "",
            true,
            std::move(params),
            "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
            false,
            {{"200", status_def()}},
            false};
  }
  Operation read_operation(const std::string& suffix) const {
    return {"get", "read", "get", suffix, false, {}, "", false, {{"200", kind_def()}}, false};
  }
  Operation replace_operation(const std::string& suffix) const {
    return {"put",      "replace", "put",
            suffix,     false,     {k_dry_run, k_field_manager, k_field_validation},
            kind_def(), false,     {{"200", kind_def()}, {"201", kind_def()}},
            false};
  }
  Operation patch_operation(const std::string& suffix) const {
    return {"patch",
            "patch",
            "patch",
            suffix,
            false,
            {k_dry_run, k_field_manager, k_field_validation, k_force},
            "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
            true,
            {{"200", kind_def()}, {"201", kind_def()}},
            false};
  }
  Operation delete_operation() const {
    return {"delete",
            "delete",
            "delete",
            "",
            false,
            {k_dry_run, k_grace_period, k_orphan, k_propagation},
            "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
            false,
            {{"200", kind_def()}, {"202", kind_def()}},
            false};
  }
  Operation watch_operation(const std::string& action, const std::string& suffix) const {
    return {"get",  "watch", action,
            suffix, false,   list_params(),
            "",     false,   {{"200", "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"}},
            true};
  }

  std::string operation_id(const Operation& op, bool namespaced) const {
    return op.verb + m_gv_camel + (op.collection_word ? "Collection" : "") + (namespaced ? "Namespaced" : "") +
           m_resource.kind + op.suffix;
  }

  json parameter(const Param& param, std::string_view in, bool required) const {
    json out = {{"name", param.name}, {"in", in}, {"description", param.description}};
    if (required) out["required"] = true;
    if (m_dialect == Dialect::swagger_v2) {
      out["type"] = param.type;
      out["uniqueItems"] = true;
    } else {
      out["schema"] = {{"type", param.type}, {"uniqueItems", true}};
    }
    return out;
  }

  std::vector<std::string> patch_types() const {
    std::vector<std::string> types = {"application/json-patch+json", "application/merge-patch+json"};
    // Strategic merge patch needs the merge keys of a built-in type.
    if (!m_resource.proto_message.empty()) types.push_back("application/strategic-merge-patch+json");
    return types;
  }

  static std::vector<std::string> response_types(bool streams) {
    std::vector<std::string> types = {"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"};
    if (streams) {
      types.push_back("application/json;stream=watch");
      types.push_back("application/vnd.kubernetes.protobuf;stream=watch");
    }
    return types;
  }

  json operation_json(const Operation& op, bool namespaced) const {
    json out = {{"operationId", operation_id(op, namespaced)},
                {"tags", {m_tag}},
                {"x-kubernetes-action", op.action},
                {"x-kubernetes-group-version-kind",
                 {{"group", m_resource.group}, {"kind", m_resource.kind}, {"version", m_resource.version}}}};
    json parameters = json::array();
    for (const Param& p : op.params) parameters.push_back(parameter(p, "query", false));
    const bool v2 = m_dialect == Dialect::swagger_v2;
    if (!op.body.empty()) {
      const std::vector<std::string> consumes = op.patch ? patch_types() : std::vector<std::string>{"*/*"};
      if (v2) {
        parameters.insert(parameters.begin(), json{{"name", "body"},
                                                   {"in", "body"},
                                                   {"required", op.method != "delete"},
                                                   {"schema", reference(op.body, m_dialect)}});
        out["consumes"] = consumes;
      } else {
        json content = json::object();
        for (const auto& type : consumes) content[type] = {{"schema", reference(op.body, m_dialect)}};
        out["requestBody"] = {{"content", content}, {"required", op.method != "delete"}};
      }
    }
    if (!parameters.empty()) out["parameters"] = std::move(parameters);
    json responses = json::object();
    const auto types = response_types(op.streams);
    for (const auto& [code, definition] : op.responses) {
      json response = {{"description", code == "201" ? "Created" : code == "202" ? "Accepted" : "OK"}};
      if (v2) {
        response["schema"] = reference(definition, m_dialect);
      } else {
        json content = json::object();
        for (const auto& type : types) content[type] = {{"schema", reference(definition, m_dialect)}};
        response["content"] = std::move(content);
      }
      responses[code] = std::move(response);
    }
    responses["401"] = {{"description", "Unauthorized"}};
    out["responses"] = std::move(responses);
    if (v2) {
      out["produces"] = types;
      out["schemes"] = {"https"};
    }
    return out;
  }

  void add_path(const std::string& path, bool namespaced, bool named, const std::vector<Operation>& ops) {
    if (ops.empty()) return;
    json item = json::object();
    for (const Operation& op : ops) item[op.method] = operation_json(op, namespaced);
    json parameters = json::array();
    if (named) parameters.push_back(parameter({"name", "string", "name of the object"}, "path", true));
    if (namespaced)
      parameters.push_back(parameter(
          {"namespace", "string", "object name and auth scope, such as for teams and projects"}, "path", true));
    parameters.push_back(parameter(k_pretty, "query", false));
    item["parameters"] = std::move(parameters);
    m_paths[path] = std::move(item);
  }

  const api::ResourceInfo& m_resource;
  Dialect m_dialect;
  json& m_paths;
  std::string m_prefix;
  std::string m_gv_camel;
  std::string m_tag;
};

}  // namespace

void add_resource_paths(const api::ResourceInfo& resource, Dialect dialect, json& paths) {
  PathWriter(resource, dialect, paths).write_all();
}

}  // namespace kw::http::openapi
