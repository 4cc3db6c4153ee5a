#pragma once
// The objects a verb's arguments name, as kubectl's label, annotate and scale take them:
// TYPE NAME..., TYPE/NAME..., or TYPE (or a category) with -l SELECTOR / --all (listed from
// the server), or the objects of manifests given with -f.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/client/discovery.hpp"
#include "cli/commands/common.hpp"

namespace kw::cli {

struct NamedObject {
  api::ResourceInfo info;
  std::string namespace_name;
  std::string name;
};

struct TargetArgs {
  std::vector<std::string> args;
  std::string selector;
  bool all = false;
  bool all_namespaces = false;  // with a selector or --all: every namespace
  std::vector<std::string> filenames;  // -f: the objects these manifests describe
  bool recursive = false;              // -R
};

// What a rollout verb works on: a client and the objects it names.
struct RolloutObjects {
  std::unique_ptr<ApiClient> api;
  std::vector<NamedObject> objects;
};
// The objects kubectl's rollout verbs take: TYPE NAME..., TYPE/NAME..., TYPE with -l, a TYPE
// alone (every object of it), or -f's manifests; kubectl's usage error when none is named.
VerbResult<RolloutObjects> rollout_objects(const ConnectionFlags& connection, TargetArgs targets);
// The rollout verbs' TYPE NAME arguments, -l, -f and -R.
void add_rollout_target_flags(CLI::App& command, TargetArgs& targets);

// -f and -R for a verb that takes TargetArgs.
void add_target_file_flags(CLI::App& command, TargetArgs& targets, const std::string& what);

// The named objects (not fetched), or those a selector or --all lists. With a selector or
// --all, a TYPE may be a category ("all"), as in kubectl: each of its resources is listed.
VerbResult<std::vector<NamedObject>> objects_of(ApiClient& api, Resolver& resolver, const TargetArgs& targets);

// The objects of `info` in `namespace_name` ("" = every namespace) that `selector` ("" =
// every one) matches, listed from the server.
VerbResult<std::vector<NamedObject>> listed_objects(ApiClient& api, const api::ResourceInfo& info,
                                                   const std::string& namespace_name, const std::string& selector);

// kubectl's reading of a NotFound for an object of `info` in `namespace_name`: when that namespace
// (other than default) does not exist either, its own NotFound ("namespaces \"x\" not found").
std::optional<VerbError> missing_namespace(ApiClient& api, const api::ResourceInfo& info,
                                           const std::string& namespace_name);

// The object read from the server (its `subresource` when not ""), as kubectl's Info.Get
// reads it: a NotFound in a namespace (other than default) that does not exist reports the
// namespace instead ("namespaces \"x\" not found").
VerbResult<nlohmann::json> read_object(ApiClient& api, const NamedObject& object, const std::string& subresource = {});

}  // namespace kw::cli
