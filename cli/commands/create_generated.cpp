// kw create namespace | configmap | secret (generic, tls, docker-registry) | deployment | job:
// objects built from flags as kubectl's generators build them, then created (or, with
// --dry-run=client, only printed).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>

#include "cli/client/discovery.hpp"
#include "cli/commands/common.hpp"
#include "server/registry/kinds/kind_spec.hpp"
#include "cli/commands/create_sources.hpp"
#include "cli/commands/targets.hpp"
#include "cli/commands/verbs.hpp"
#include "core/util/base64.hpp"

namespace kw::cli {

namespace {

using nlohmann::json;

// An object built from flags, and how kubectl words a failed create of it.
struct Generated {
  json object;
  // kubectl wraps the server's message for some kinds: "failed to create configmap: ".
  std::string failure_prefix;
};

json bare_object(const std::string& api_version, const std::string& kind, const std::string& name) {
  return {{"apiVersion", api_version}, {"kind", kind}, {"metadata", {{"name", name}, {"creationTimestamp", nullptr}}}};
}

// kubectl's wording of a failed create: the server's line, or its message behind the prefix.
VerbError create_failure(const net::client::Response& response, const std::string& prefix) {
  if (prefix.empty()) return VerbError{response.head.status, server_error_text(response), k_exit_server};
  return VerbError{response.head.status, "error: " + prefix + error_message(response), k_exit_server};
}

int create_generated(const ConnectionFlags& connection, const WriteOutput& write, const WriteQuery& query,
                     Generated generated) {
  json& object = generated.object;
  if (write.client_dry_run()) {
    // Nothing is sent: as with kubectl, neither a server nor a kubeconfig is needed (the
    // generated kinds are built in; -n names the namespace, as it does below).
    const auto* info = kinds::builtin_table().find_kind(object["apiVersion"].get<std::string>(),
                                                        object["kind"].get<std::string>());
    if (info == nullptr) return report_usage("no built-in resource holds " + object["kind"].get<std::string>());
    if (info->namespaced && connection.overrides.namespace_name)
      object["metadata"]["namespace"] = *connection.overrides.namespace_name;
    const std::string kind_name = kind_prefix(*info) + "/" + object["metadata"]["name"].get<std::string>();
    return write.print_typed(object, kind_name, kind_name + " created") ? k_exit_ok : k_exit_usage;
  }
  auto api = ApiClient::create(connection);
  if (!api) return report_usage(api.error().message);
  Resolver resolver(**api);
  auto info = resolver.resolve_kind(object["apiVersion"].get<std::string>(), object["kind"].get<std::string>());
  if (!info) return report(info.error());
  const auto& config = (*api)->config();
  // As kubectl does, the object names its namespace only when -n named one.
  if (info->namespaced && config.namespace_from_flag) object["metadata"]["namespace"] = config.namespace_name;
  const std::string name = object["metadata"]["name"].get<std::string>();
  const std::string kind_name = kind_prefix(*info) + "/" + name;
  const std::string path =
      query.apply_to(write.with_dry_run(object_path(*info, info->namespaced ? config.namespace_name : "", "")));
  auto response = (*api)->send("POST", path, std::string(k_json), std::string(k_json), object.dump());
  if (!response) return report(VerbError{0, "error: " + response.error().message, k_exit_unreachable});
  if (response->head.status < 200 || response->head.status >= 300)
    return report(create_failure(*response, generated.failure_prefix));
  auto created = json::parse(response->body, nullptr, false);
  if (created.is_discarded()) created = object;
  return write.print_typed(created, kind_name, kind_name + " created") ? k_exit_ok : k_exit_usage;
}

// A generator's failure as the verb reports it: a plain error is a usage error ("error: ...").
VerbResult<Generated> as_verb_result(Result<Generated> generated) {
  if (!generated) return std::unexpected(usage_error(std::move(generated.error().message)));
  return std::move(*generated);
}
VerbResult<Generated> as_verb_result(VerbResult<Generated> generated) { return generated; }

// One create subcommand: NAME, the connection and output flags, and its generator (which
// returns Result<Generated>, or VerbResult<Generated> when it reads from the server).
template <class Options, class Generate>
CLI::App* generator_command(CLI::App& create, const char* name, const char* description,
                            std::shared_ptr<Options> options, int* exit_code, Generate generate) {
  CLI::App* command = create.add_subcommand(name, description);
  add_connection_flags(*command, options->connection);
  add_write_output_flags(*command, options->write);
  auto validate = std::make_shared<ValidateFlag>();
  add_validate_flag(*command, *validate);
  command->add_option("name", options->name, "The name of the object")->required();
  command->footer(std::string(k_client_exit_codes));
  command->callback([options, validate, exit_code, generate] {
    auto validation = validate->field_validation();
    if (!validation) {
      *exit_code = report_usage(validation.error().message);
      return;
    }
    auto generated = as_verb_result(generate(*options));
    if (!generated) {
      *exit_code = report(generated.error());
      return;
    }
    *exit_code = create_generated(options->connection, options->write,
                                  WriteQuery{"kubectl-create", std::move(*validation)}, std::move(*generated));
  });
  return command;
}

// ---- namespace ----------------------------------------------------------------------------

struct NamespaceOptions {
  ConnectionFlags connection;
  WriteOutput write;
  std::string name;
};

Result<Generated> generate_namespace(const NamespaceOptions& o) {
  json object = bare_object("v1", "Namespace", o.name);
  object["spec"] = json::object();
  object["status"] = json::object();
  return Generated{std::move(object), ""};
}

// ---- configmap and secret generic ---------------------------------------------------------

struct DataOptions {
  ConnectionFlags connection;
  WriteOutput write;
  std::string name;
  DataSources sources;
  std::string type;  // secrets only
};

void add_source_flags(CLI::App& command, DataSources& sources) {
  command.add_option("--from-literal", sources.literals, "A key=value pair to store (repeatable)");
  command.add_option("--from-file", sources.files,
                     "[KEY=]PATH: a file stored under its base name (or KEY), or every regular file of a directory "
                     "(repeatable)");
  command.add_option("--from-env-file", sources.env_files, "A file of KEY=VALUE lines to store (repeatable)");
}

Result<Generated> generate_configmap(const DataOptions& o) {
  auto data = collect_data(o.sources, "ConfigMap", o.name);
  if (!data) return std::unexpected(data.error());
  json object = bare_object("v1", "ConfigMap", o.name);
  json text = json::object(), binary = json::object();
  for (const auto& [key, value] : *data) {
    if (is_utf8(value)) text[key] = value;
    else binary[key] = util::base64_encode(value);
  }
  if (!text.empty()) object["data"] = std::move(text);
  if (!binary.empty()) object["binaryData"] = std::move(binary);
  return Generated{std::move(object), "failed to create configmap: "};
}

json secret_object(const std::string& name, const std::string& type, const std::vector<DataEntry>& data) {
  json object = bare_object("v1", "Secret", name);
  if (!data.empty()) {
    json encoded = json::object();
    for (const auto& [key, value] : data) encoded[key] = util::base64_encode(value);
    object["data"] = std::move(encoded);
  }
  if (!type.empty()) object["type"] = type;
  return object;
}

Result<Generated> generate_secret(const DataOptions& o) {
  auto data = collect_data(o.sources, "Secret", o.name);
  if (!data) return std::unexpected(data.error());
  return Generated{secret_object(o.name, o.type, *data), "failed to create secret "};
}

// ---- secret tls and docker-registry -------------------------------------------------------

struct TlsOptions {
  ConnectionFlags connection;
  WriteOutput write;
  std::string name, cert, key;
};

Result<Generated> generate_tls(const TlsOptions& o) {
  if (o.cert.empty() || o.key.empty()) return fail("key and cert must be specified");
  std::vector<DataEntry> data;
  for (const auto& [key, path] : {std::pair{"tls.crt", o.cert}, std::pair{"tls.key", o.key}}) {
    auto content = read_whole_file(path);
    if (!content) return fail("Cannot read file " + path + ", open " + path + ": " + content.error().message);
    data.push_back({key, std::move(*content)});
  }
  // Go's tls.X509KeyPair refuses input with no PEM block before anything else.
  if (data[0].second.find("-----BEGIN") == std::string::npos)
    return fail("tls: failed to find any PEM data in certificate input");
  if (data[1].second.find("-----BEGIN") == std::string::npos)
    return fail("tls: failed to find any PEM data in key input");
  return Generated{secret_object(o.name, "kubernetes.io/tls", data), "failed to create secret "};
}

struct RegistryOptions {
  ConnectionFlags connection;
  WriteOutput write;
  std::string name;
  std::string server = "https://index.docker.io/v1/";
  std::string username, password, email;
};

Result<Generated> generate_registry(const RegistryOptions& o) {
  if (o.username.empty() || o.password.empty())
    return fail("either --from-file or the combination of --docker-username, --docker-password and --docker-server "
                "is required");
  json entry = {{"username", o.username},
                {"password", o.password},
                {"auth", util::base64_encode(o.username + ":" + o.password)}};
  if (!o.email.empty()) entry["email"] = o.email;
  // The order Go writes the fields in: username, password, email, auth.
  std::string config = "{\"auths\":{" + json(o.server).dump() + ":{\"username\":" + json(o.username).dump() +
                       ",\"password\":" + json(o.password).dump();
  if (!o.email.empty()) config += ",\"email\":" + json(o.email).dump();
  config += ",\"auth\":" + entry["auth"].dump() + "}}}";
  return Generated{secret_object(o.name, "kubernetes.io/dockerconfigjson", {{".dockerconfigjson", config}}),
                   "failed to create secret "};
}

// ---- deployment and job -------------------------------------------------------------------

struct DeploymentOptions {
  ConnectionFlags connection;
  WriteOutput write;
  std::string name;
  std::vector<std::string> images;
  int replicas = 1;
  int port = -1;
  std::vector<std::string> command;
};

// kubectl names a deployment's container after its image: the last path part without tag or
// digest; a name with '_' or '.' gets them turned into '-' and a random suffix.
std::string container_name_of(const std::string& image) {
  std::string name = image.substr(image.rfind('/') + 1);
  name = name.substr(0, name.find(':'));
  name = name.substr(0, name.find('@'));
  if (name.find_first_of("_.") == std::string::npos) return name;
  std::ranges::replace(name, '_', '-');
  std::ranges::replace(name, '.', '-');
  static constexpr std::string_view k_alphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::random_device seed;
  std::uniform_int_distribution<std::size_t> pick(0, k_alphabet.size() - 1);
  name += '-';
  for (int i = 0; i < 5; ++i) name += k_alphabet[pick(seed)];
  return name;
}

Result<Generated> generate_deployment(const DeploymentOptions& o) {
  if (o.images.empty()) return fail("required flag(s) \"image\" not set");
  if (o.images.size() > 1 && !o.command.empty()) return fail("cannot specify multiple --image options and command");
  json containers = json::array();
  for (const auto& image : o.images) {
    json container = {{"name", container_name_of(image)}, {"image", image}, {"resources", json::object()}};
    if (!o.command.empty()) container["command"] = o.command;
    containers.push_back(std::move(container));
  }
  if (o.port >= 0) containers[0]["ports"] = json::array({{{"containerPort", o.port}}});
  const json labels = {{"app", o.name}};
  json object = bare_object("apps/v1", "Deployment", o.name);
  object["metadata"]["labels"] = labels;
  object["spec"] = {{"replicas", o.replicas},
                    {"selector", {{"matchLabels", labels}}},
                    {"strategy", json::object()},
                    {"template",
                     {{"metadata", {{"creationTimestamp", nullptr}, {"labels", labels}}},
                      {"spec", {{"containers", std::move(containers)}}}}}};
  object["status"] = json::object();
  return Generated{std::move(object), "failed to create deployment: "};
}

struct JobOptions {
  ConnectionFlags connection;
  WriteOutput write;
  std::string name;
  std::string image;
  std::string from;  // cronjob/NAME
  std::vector<std::string> command;
};

// A Job made from a CronJob's job template, as kubectl makes one to run it now: its labels,
// its annotations plus cronjob.kubernetes.io/instantiate=manual, owned by the CronJob.
VerbResult<Generated> job_from_cronjob(const JobOptions& o) {
  auto api = ApiClient::create(o.connection);
  if (!api) return std::unexpected(usage_error(api.error().message));
  Resolver resolver(**api);
  TargetArgs from;
  from.args = {o.from};
  auto named = objects_of(**api, resolver, from);
  if (!named) return std::unexpected(named.error());
  if (named->size() != 1) return std::unexpected(usage_error("from must be an existing cronjob"));
  const NamedObject& source = named->front();
  auto cronjob = read_object(**api, source);
  if (!cronjob) return std::unexpected(cronjob.error());
  if (source.info.kind != "CronJob")
    return std::unexpected(usage_error("unknown object type *" + source.info.version + "." + source.info.kind));
  const json& job_template = cronjob->value("spec", json::object()).value("jobTemplate", json::object());
  const json template_meta = job_template.value("metadata", json::object());
  json annotations = {{"cronjob.kubernetes.io/instantiate", "manual"}};
  const json template_annotations = template_meta.value("annotations", json::object());
  for (const auto& [key, value] : template_annotations.items()) annotations[key] = value;
  json object = bare_object("batch/v1", "Job", o.name);
  object["metadata"]["annotations"] = std::move(annotations);
  if (auto labels = template_meta.find("labels"); labels != template_meta.end()) object["metadata"]["labels"] = *labels;
  const json& source_meta = (*cronjob)["metadata"];
  object["metadata"]["ownerReferences"] = json::array({{{"apiVersion", "batch/v1"},
                                                        {"kind", "CronJob"},
                                                        {"name", source_meta.value("name", "")},
                                                        {"uid", source_meta.value("uid", "")},
                                                        {"controller", true}}});
  object["spec"] = job_template.value("spec", json::object());
  object["status"] = json::object();
  return Generated{std::move(object), "failed to create job: "};
}

VerbResult<Generated> generate_job(const JobOptions& o) {
  if (o.image.empty() == o.from.empty()) return std::unexpected(usage_error("either --image or --from must be specified"));
  if (!o.from.empty()) {
    if (!o.command.empty()) return std::unexpected(usage_error("cannot specify --from and command"));
    return job_from_cronjob(o);
  }
  json container = {{"name", o.name}, {"image", o.image}, {"resources", json::object()}};
  if (!o.command.empty()) container["command"] = o.command;
  json object = bare_object("batch/v1", "Job", o.name);
  object["spec"] = {{"template",
                     {{"metadata", {{"creationTimestamp", nullptr}}},
                      {"spec", {{"containers", json::array({std::move(container)})}, {"restartPolicy", "Never"}}}}}};
  object["status"] = json::object();
  return Generated{std::move(object), "failed to create job: "};
}

}  // namespace

void add_create_generated_commands(CLI::App& create, int* exit_code) {
  generator_command(create, "namespace", "Create a namespace (kubectl create namespace)",
                    std::make_shared<NamespaceOptions>(), exit_code, &generate_namespace)
      ->alias("ns");

  auto configmap = std::make_shared<DataOptions>();
  CLI::App* cm = generator_command(create, "configmap", "Create a ConfigMap from literals, files or env files",
                                   configmap, exit_code, &generate_configmap);
  cm->alias("cm");
  add_source_flags(*cm, configmap->sources);

  CLI::App* secret = create.add_subcommand("secret", "Create a Secret: generic, tls or docker-registry");
  secret->require_subcommand(1);
  auto generic = std::make_shared<DataOptions>();
  CLI::App* gen = generator_command(*secret, "generic", "Create a Secret from literals, files or env files", generic,
                                    exit_code, &generate_secret);
  add_source_flags(*gen, generic->sources);
  gen->add_option("--type", generic->type, "The Secret's type (default Opaque, set by the server)");

  auto tls = std::make_shared<TlsOptions>();
  CLI::App* tls_command = generator_command(*secret, "tls", "Create a kubernetes.io/tls Secret from a PEM key pair",
                                            tls, exit_code, &generate_tls);
  tls_command->add_option("--cert", tls->cert, "The PEM certificate (chain) file");
  tls_command->add_option("--key", tls->key, "The PEM private key file");

  auto registry = std::make_shared<RegistryOptions>();
  CLI::App* reg = generator_command(*secret, "docker-registry", "Create a kubernetes.io/dockerconfigjson Secret",
                                    registry, exit_code, &generate_registry);
  reg->add_option("--docker-server", registry->server, "The registry's address")
      ->default_str("https://index.docker.io/v1/");
  reg->add_option("--docker-username", registry->username, "The user name for the registry");
  reg->add_option("--docker-password", registry->password, "The password for the registry");
  reg->add_option("--docker-email", registry->email, "The e-mail address for the registry");

  auto deployment = std::make_shared<DeploymentOptions>();
  CLI::App* deploy = generator_command(create, "deployment", "Create a Deployment running the given images",
                                       deployment, exit_code, &generate_deployment);
  deploy->alias("deploy");
  deploy->add_option("--image", deployment->images, "An image to run, one container each (repeatable)");
  deploy->add_option("-r,--replicas", deployment->replicas, "How many pods to run")->default_str("1");
  deploy->add_option("--port", deployment->port, "The port the first container exposes")->default_str("-1");
  deploy->add_option("command", deployment->command, "The command the container runs, after --");

  auto job = std::make_shared<JobOptions>();
  CLI::App* job_command = generator_command(create, "job",
                                            "Create a Job running an image (NAME --image=I [-- COMMAND...]) or from a "
                                            "CronJob (NAME --from=cronjob/C)",
                                            job, exit_code, &generate_job);
  job_command->add_option("--image", job->image, "The image to run");
  job_command->add_option("--from", job->from, "The CronJob to make the Job from: cronjob/NAME");
  job_command->add_option("command", job->command, "The command to run, after --");
}

}  // namespace kw::cli
