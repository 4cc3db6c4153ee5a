// kw label / kw annotate (key=value, key-, --overwrite) and kw patch (strategic, merge, json).
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "cli/commands/verbs.hpp"
#include "cli/commands/common.hpp"
#include "cli/client/discovery.hpp"
#include "cli/commands/targets.hpp"
#include "core/codec/yaml.hpp"

namespace kw::cli {

namespace {

using nlohmann::json;

struct MetadataOptions {
  ConnectionFlags connection;
  TargetArgs targets;
  bool overwrite = false;
  std::string resource_version;  // the update succeeds only at this version (one object)
  WriteOutput write;
};

struct Change {
  std::string key;
  std::optional<std::string> value;  // nullopt: remove
};


// Splits the arguments into resource words and key=value / key- changes.
Result<std::vector<Change>> take_changes(std::vector<std::string>& args, std::string_view what) {
  std::vector<Change> changes;
  std::vector<std::string> resources;
  for (const auto& arg : args) {
    if (const auto equals = arg.find('='); equals != std::string::npos) {
      if (equals == 0) return fail("invalid " + std::string(what) + " spec: " + arg);
      changes.push_back(Change{arg.substr(0, equals), arg.substr(equals + 1)});
    } else if (arg.size() > 1 && arg.back() == '-') {
      changes.push_back(Change{arg.substr(0, arg.size() - 1), std::nullopt});
    } else {
      resources.push_back(arg);
    }
  }
  if (changes.empty()) return fail("at least one " + std::string(what) + " update is required");
  for (std::size_t i = 0; i < changes.size(); ++i)
    for (std::size_t j = i + 1; j < changes.size(); ++j)
      if (changes[i].key == changes[j].key)
        return fail("can not both modify and remove the same " + std::string(what) + " \"" + changes[i].key + "\"");
  args = std::move(resources);
  return changes;
}

// The new map and the merge patch that gets there; an error when --overwrite is needed.
Result<json> metadata_patch(const json& current, const std::vector<Change>& changes, bool overwrite, bool labels,
                            json& updated) {
  updated = current.is_object() ? current : json::object();
  json patch = json::object();
  for (const auto& change : changes) {
    if (!change.value) {
      if (updated.contains(change.key)) {
        updated.erase(change.key);
        patch[change.key] = nullptr;
      } else if (labels) {
        std::cerr << "label \"" << change.key << "\" not found.\n";
      }
      continue;
    }
    if (auto found = updated.find(change.key); found != updated.end() && *found != *change.value && !overwrite) {
      const std::string value = found->is_string() ? found->get<std::string>() : found->dump();
      if (labels) return fail("'" + change.key + "' already has a value (" + value + "), and --overwrite is false");
      return fail("--overwrite is false but found the following declared annotation(s): '" + change.key +
                  "' already has a value (" + value + ")");
    }
    if (!updated.contains(change.key) || updated[change.key] != *change.value) {
      updated[change.key] = *change.value;
      patch[change.key] = *change.value;
    }
  }
  return patch;
}

int run_metadata(MetadataOptions& options, const std::string& field) {
  const bool labels = field == "labels";
  const std::string what = labels ? "label" : "annotation";
  auto changes = take_changes(options.targets.args, what);
  if (!changes) return report_usage(changes.error().message);
  if (!options.targets.selector.empty() && options.targets.all) return report_usage("cannot set --all and --selector at the same time");
  auto api = ApiClient::create(options.connection);
  if (!api) return report_usage(api.error().message);
  Resolver resolver(**api);
  auto objects = objects_of(**api, resolver, options.targets);
  if (!objects) return report(objects.error());
  if (!options.resource_version.empty() && objects->size() > 1)
    return report_usage("--resource-version may only be used with a single resource");
  int code = k_exit_ok;
  for (const auto& object : *objects) {
    const std::string path = object_path(object.info, object.namespace_name, object.name);
    auto live = read_object(**api, object);
    if (!live) {
      code = report(live.error());
      continue;
    }
    const json metadata = live->value("metadata", json::object());
    const json current = metadata.value(field, json::object());
    json updated;
    auto patch = metadata_patch(current, *changes, options.overwrite, labels, updated);
    if (!patch) {
      code = report_usage(patch.error().message);
      continue;
    }
    std::string message = labels ? "labeled" : "annotated";
    json result = *live;
    if (patch->empty()) {
      if (labels) message = "not labeled";
    } else {
      json body = {{"metadata", {{field, *patch}}}};
      if (!options.resource_version.empty()) body["metadata"]["resourceVersion"] = options.resource_version;
      if (options.write.client_dry_run()) {
        result.merge_patch(body);
      } else {
        auto sent = call_json(**api, "PATCH", options.write.with_dry_run(path), "application/merge-patch+json",
                              body.dump());
        if (!sent) {
          code = report(sent.error());
          continue;
        }
        result = std::move(*sent);
      }
      if (labels && !options.overwrite && updated.dump().size() < current.dump().size()) message = "unlabeled";
    }
    const std::string kind_name = kind_prefix(object.info) + "/" + object.name;
    if (!options.write.print(result, kind_name, kind_name + " " + message)) code = k_exit_usage;
  }
  std::cout.flush();
  return code;
}

void add_metadata_command(CLI::App& app, int* exit_code, const std::string& name, const std::string& field,
                          const std::string& description) {
  auto options = std::make_shared<MetadataOptions>();
  CLI::App* command = app.add_subcommand(name, description);
  command->footer(std::string(k_client_exit_codes));
  const std::string what = name == "label" ? "label" : "annotation";
  command->add_option("args", options->targets.args,
                      "TYPE NAME... or TYPE/NAME... (or -f), then KEY=VALUE to set and KEY- to remove a " + what)
      ->required();
  add_target_file_flags(*command, options->targets, "change");
  command->add_flag("--overwrite", options->overwrite, "Allow replacing the value of an existing " + what);
  command->add_option("--resource-version", options->resource_version,
                      "Only change the object if this is its current resourceVersion (one object only)");
  command->add_option("-l,--selector", options->targets.selector, "Change every object matching this label selector");
  command->add_flag("--all", options->targets.all, "Change every object of the type in the namespace");
  command->add_flag("-A,--all-namespaces", options->targets.all_namespaces, "With -l or --all: look in every namespace");
  add_write_output_flags(*command, options->write);
  add_connection_flags(*command, options->connection);
  command->callback([options, exit_code, field] { *exit_code = run_metadata(*options, field); });
}

struct PatchOptions {
  ConnectionFlags connection;
  std::vector<std::string> args;
  std::string patch;
  std::string patch_file;
  std::string type = "strategic";
  std::string subresource;  // status or scale
  WriteOutput write;
};

Result<std::string> patch_body(const PatchOptions& options) {
  std::string text = options.patch;
  if (!options.patch_file.empty()) {
    std::ifstream in(options.patch_file);
    if (!in) return fail("the patch file \"" + options.patch_file + "\" cannot be read");
    std::ostringstream content;
    content << in.rdbuf();
    text = content.str();
  }
  if (text.empty()) return fail("must specify -p to patch");
  auto parsed = json::parse(text, nullptr, false);
  if (parsed.is_discarded()) {
    auto documents = codec::yaml_to_json(text);
    if (!documents || documents->size() != 1) return fail("unable to parse \"" + text + "\": not valid JSON or YAML");
    parsed = (*documents)[0];
  }
  if (options.type == "json" && !parsed.is_array()) return fail("a json patch must be a list of operations");
  if (options.type != "json" && !parsed.is_object()) return fail("a " + options.type + " patch must be an object");
  return parsed.dump();
}

// --dry-run=client: a merge or JSON patch applied to the live object here.
VerbResult<json> patched_locally(const json& live, const std::string& type, const std::string& body) {
  json result = live;
  const json patch = json::parse(body);
  if (type == "merge") {
    result.merge_patch(patch);
    return result;
  }
  try {
    return live.patch(patch);
  } catch (const json::exception& e) {
    return std::unexpected(usage_error(std::string("the JSON patch cannot be applied: ") + e.what()));
  }
}

int run_patch(PatchOptions& options) {
  auto body = patch_body(options);
  if (!body) return report_usage(body.error().message);
  auto parsed = parse_resource_args(options.args);
  if (!parsed) return report_usage(parsed.error().message);
  if (parsed->empty() || parsed->front().names.empty())
    return report_usage("you must specify the object to patch as TYPE NAME or TYPE/NAME");
  if (options.write.client_dry_run() && options.type == "strategic")
    return report_usage("a strategic merge patch is applied by the server: use --dry-run=server, or --type merge|json");
  auto api = ApiClient::create(options.connection);
  if (!api) return report_usage(api.error().message);
  Resolver resolver(**api);
  const std::string content_type = options.type == "json"    ? "application/json-patch+json"
                                   : options.type == "merge" ? "application/merge-patch+json"
                                                             : "application/strategic-merge-patch+json";
  int code = k_exit_ok;
  for (const auto& group : *parsed) {
    auto info = resolver.resolve(group.type);
    if (!info) return report(info.error());
    const std::string namespace_name = info->namespaced ? (*api)->config().namespace_name : std::string();
    for (const auto& name : group.names) {
      std::string path = object_path(*info, namespace_name, name);
      if (!options.subresource.empty()) path += "/" + options.subresource;
      auto before = call_json(**api, "GET", path, {}, {});
      if (!before) {
        code = report(before.error());
        continue;
      }
      auto after = options.write.client_dry_run() ? patched_locally(*before, options.type, *body)
                                                  : call_json(**api, "PATCH", options.write.with_dry_run(path),
                                                              content_type, *body);
      if (!after) {
        code = report(after.error());
        continue;
      }
      // A subresource's answer is named by its own kind (scale.autoscaling/NAME).
      api::ResourceInfo answered = *info;
      if (!options.subresource.empty() && after->contains("kind")) {
        answered.kind = after->value("kind", info->kind);
        answered.group = api::split_api_version(after->value("apiVersion", "")).group;
      }
      const std::string kind_name = kind_prefix(answered) + "/" + name;
      if (!options.write.print(*after, kind_name,
                               kind_name + (*after == *before ? " patched (no change)" : " patched"), false))
        code = k_exit_usage;
    }
  }
  std::cout.flush();
  return code;
}

}  // namespace

void add_label_command(CLI::App& app, int* exit_code) {
  add_metadata_command(app, exit_code, "label", "labels", "Update the labels of objects (kubectl label)");
}

void add_annotate_command(CLI::App& app, int* exit_code) {
  add_metadata_command(app, exit_code, "annotate", "annotations", "Update the annotations of objects (kubectl annotate)");
}

void add_patch_command(CLI::App& app, int* exit_code) {
  auto options = std::make_shared<PatchOptions>();
  CLI::App* command = app.add_subcommand("patch", "Update fields of an object with a patch (kubectl patch)");
  command->footer(std::string(k_client_exit_codes));
  command->add_option("args", options->args, "TYPE NAME or TYPE/NAME")->required();
  command->add_option("-p,--patch", options->patch, "The patch, JSON or YAML");
  command->add_option("--patch-file", options->patch_file, "A file holding the patch");
  command->add_option("--type", options->type, "The kind of patch: strategic, merge (RFC 7386) or json (RFC 6902)")
      ->check(CLI::IsMember({"strategic", "merge", "json"}))
      ->capture_default_str();
  command->add_option("--subresource", options->subresource,
                      "Patch this subresource of the object (status, scale, or any the server serves)");
  add_write_output_flags(*command, options->write);
  add_connection_flags(*command, options->connection);
  command->callback([options, exit_code] { *exit_code = run_patch(*options); });
}

}  // namespace kw::cli
