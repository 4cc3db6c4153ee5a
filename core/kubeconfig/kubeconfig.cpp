#include "core/kubeconfig/kubeconfig.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/codec/yaml.hpp"
#include "core/util/base64.hpp"

namespace kw::kubeconfig {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string str(const json& object, std::string_view key) {
  if (!object.is_object()) return {};
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string absolute(const std::string& path, const std::string& base_dir) {
  if (path.empty() || path.front() == '/' || base_dir.empty()) return path;
  return (fs::path(base_dir) / path).lexically_normal().string();
}

void resolve_paths(json& object, const std::vector<std::string>& keys, const std::string& base_dir) {
  for (const auto& key : keys) {
    auto it = object.find(key);
    if (it != object.end() && it->is_string()) *it = absolute(it->get<std::string>(), base_dir);
  }
}

// name -> body of a kubeconfig list ("clusters": [{name, cluster}...]); first entry wins.
Result<json> named_list(const json& document, std::string_view list, std::string_view body_key,
                        const std::string& file_name) {
  json out = json::object();
  auto it = document.find(list);
  if (it == document.end() || it->is_null()) return out;
  if (!it->is_array()) return fail(file_name + ": '" + std::string(list) + "' must be a list");
  for (const auto& entry : *it) {
    const std::string name = str(entry, "name");
    if (name.empty()) return fail(file_name + ": an entry of '" + std::string(list) + "' has no name");
    if (out.contains(name)) continue;
    auto body = entry.find(body_key);
    out[name] = body != entry.end() && body->is_object() ? *body : json::object();
  }
  return out;
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot read '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Result<std::string> decode_field(const json& object, std::string_view key, std::string_view what) {
  const std::string data = str(object, key);
  if (data.empty()) return std::string();
  auto decoded = base64_decode(data);
  if (!decoded) return fail(std::string(what) + ": " + decoded.error().message);
  return decoded;
}

std::vector<std::string> split_path_list(std::string_view list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    auto end = list.find(':', start);
    if (end == std::string_view::npos) end = list.size();
    if (end > start) out.emplace_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

Result<ExecConfig> parse_exec(const json& exec, const std::string& where) {
  ExecConfig out;
  out.api_version = str(exec, "apiVersion");
  out.command = str(exec, "command");
  out.install_hint = str(exec, "installHint");
  if (out.command.empty()) return fail(where + ": exec plugin has no command");
  if (out.api_version != "client.authentication.k8s.io/v1" && out.api_version != "client.authentication.k8s.io/v1beta1")
    return fail(where + ": exec plugin apiVersion '" + out.api_version +
                "' is not supported (use client.authentication.k8s.io/v1 or v1beta1)");
  if (auto args = exec.find("args"); args != exec.end() && args->is_array())
    for (const auto& arg : *args)
      if (arg.is_string()) out.args.push_back(arg.get<std::string>());
  if (auto env = exec.find("env"); env != exec.end() && env->is_array())
    for (const auto& entry : *env) out.env.emplace_back(str(entry, "name"), str(entry, "value"));
  if (auto info = exec.find("provideClusterInfo"); info != exec.end() && info->is_boolean())
    out.provide_cluster_info = info->get<bool>();
  // client-go: v1 must say how the plugin may use the terminal; v1beta1 defaults to IfAvailable.
  if (std::string mode = str(exec, "interactiveMode"); !mode.empty()) out.interactive_mode = mode;
  else if (out.api_version == "client.authentication.k8s.io/v1")
    return fail(where + ": interactiveMode must be specified for client.authentication.k8s.io/v1 to use exec "
                        "authentication plugin (Never, IfAvailable or Always)");
  if (out.interactive_mode != "Never" && out.interactive_mode != "IfAvailable" && out.interactive_mode != "Always")
    return fail(where + ": invalid interactiveMode '" + out.interactive_mode + "' (Never, IfAvailable or Always)");
  return out;
}

}  // namespace

Environment Environment::from_process() {
  Environment env;
  if (const char* value = std::getenv("KUBECONFIG"); value != nullptr) env.kubeconfig = value;
  if (const char* home = std::getenv("HOME"); home != nullptr) env.home = home;
  return env;
}

Result<Merged> parse(std::string_view yaml, const std::string& base_dir, const std::string& file_name) {
  auto documents = codec::yaml_to_json(yaml);
  if (!documents) return fail(file_name + ": not valid YAML: " + documents.error().message);
  Merged out;
  out.files.push_back(file_name);
  if (documents->empty() || (*documents)[0].is_null()) return out;
  const json& document = (*documents)[0];
  if (!document.is_object()) return fail(file_name + ": a kubeconfig must be a YAML mapping");
  auto clusters = named_list(document, "clusters", "cluster", file_name);
  auto users = named_list(document, "users", "user", file_name);
  auto contexts = named_list(document, "contexts", "context", file_name);
  if (!clusters) return std::unexpected(clusters.error());
  if (!users) return std::unexpected(users.error());
  if (!contexts) return std::unexpected(contexts.error());
  for (auto& [name, cluster] : clusters->items()) resolve_paths(cluster, {"certificate-authority"}, base_dir);
  for (auto& [name, user] : users->items()) {
    resolve_paths(user, {"client-certificate", "client-key", "tokenFile"}, base_dir);
    if (auto exec = user.find("exec"); exec != user.end() && exec->is_object()) {
      std::string command = str(*exec, "command");
      if (command.find('/') != std::string::npos) (*exec)["command"] = absolute(command, base_dir);
    }
  }
  for (const auto& [name, user] : users->items()) out.user_files[name] = file_name;
  out.clusters = std::move(*clusters);
  out.users = std::move(*users);
  out.contexts = std::move(*contexts);
  out.current_context = str(document, "current-context");
  return out;
}

void merge(Merged& into, const Merged& next) {
  for (const auto& [name, value] : next.clusters.items())
    if (!into.clusters.contains(name)) into.clusters[name] = value;
  for (const auto& [name, value] : next.users.items())
    if (!into.users.contains(name)) {
      into.users[name] = value;
      if (const auto file = next.user_files.find(name); file != next.user_files.end()) into.user_files[name] = file->second;
    }
  for (const auto& [name, value] : next.contexts.items())
    if (!into.contexts.contains(name)) into.contexts[name] = value;
  if (into.current_context.empty()) into.current_context = next.current_context;
  into.files.insert(into.files.end(), next.files.begin(), next.files.end());
}

Result<Merged> load_files(const Overrides& overrides, const Environment& env) {
  std::vector<std::string> files;
  bool must_exist = false;
  if (overrides.kubeconfig && !overrides.kubeconfig->empty()) {
    files.push_back(*overrides.kubeconfig);
    must_exist = true;
  } else if (env.kubeconfig && !env.kubeconfig->empty()) {
    files = split_path_list(*env.kubeconfig);
  } else if (!env.home.empty()) {
    files.push_back(env.home + "/.kube/config");
  }
  Merged merged;
  for (const auto& file : files) {
    std::error_code ec;
    if (!fs::exists(file, ec)) {
      if (must_exist) return fail("kubeconfig '" + file + "' does not exist");
      continue;
    }
    auto text = read_file(file);
    if (!text) return std::unexpected(text.error());
    auto parsed = parse(*text, fs::absolute(file, ec).parent_path().string(), file);
    if (!parsed) return std::unexpected(parsed.error());
    merge(merged, *parsed);
  }
  return merged;
}

Result<RestConfig> resolve(const Merged& merged, const Overrides& overrides) {
  RestConfig out;
  out.files = merged.files;
  const std::string context_name = overrides.context.value_or(merged.current_context);
  json context = json::object();
  if (!context_name.empty()) {
    if (!merged.contexts.contains(context_name)) {
      if (overrides.context) return fail("context '" + context_name + "' not found in kubeconfig");
      if (!overrides.server)
        return fail("current-context '" + context_name + "' is not defined in kubeconfig; pick one with --context");
    } else {
      context = merged.contexts.at(context_name);
    }
  }
  out.context_name = context_name;
  const std::string cluster_name = overrides.cluster.value_or(str(context, "cluster"));
  const std::string user_name = overrides.user.value_or(str(context, "user"));
  json cluster = json::object();
  json user = json::object();
  if (!cluster_name.empty()) {
    if (merged.clusters.contains(cluster_name)) cluster = merged.clusters.at(cluster_name);
    else if (!overrides.server) return fail("cluster '" + cluster_name + "' not found in kubeconfig");
  }
  if (!user_name.empty()) {
    if (merged.users.contains(user_name)) user = merged.users.at(user_name);
    else if (overrides.user) return fail("user '" + user_name + "' not found in kubeconfig");
  }

  out.server = overrides.server.value_or(str(cluster, "server"));
  if (out.server.empty()) {
    if (merged.files.empty())
      return fail("no configuration: set --server, point KUBECONFIG at a kubeconfig, or create ~/.kube/config");
    return fail("no server found for cluster '" + cluster_name + "' in " + merged.files.front() +
                "; set --server or --context");
  }
  out.tls_server_name = overrides.tls_server_name.value_or(str(cluster, "tls-server-name"));
  out.proxy_url = str(cluster, "proxy-url");
  if (auto it = cluster.find("insecure-skip-tls-verify"); it != cluster.end() && it->is_boolean())
    out.insecure_skip_tls_verify = it->get<bool>();
  if (overrides.insecure_skip_tls_verify) out.insecure_skip_tls_verify = *overrides.insecure_skip_tls_verify;
  if (overrides.certificate_authority) {
    out.ca_file = *overrides.certificate_authority;
  } else {
    auto ca = decode_field(cluster, "certificate-authority-data", "certificate-authority-data of cluster '" + cluster_name + "'");
    if (!ca) return std::unexpected(ca.error());
    out.ca_data = *ca;
    if (out.ca_data.empty()) out.ca_file = str(cluster, "certificate-authority");
  }
  if (out.insecure_skip_tls_verify) {
    out.ca_file.clear();
    out.ca_data.clear();
  }

  if (overrides.client_certificate) {
    out.cert_file = *overrides.client_certificate;
  } else {
    auto cert = decode_field(user, "client-certificate-data", "client-certificate-data of user '" + user_name + "'");
    if (!cert) return std::unexpected(cert.error());
    out.cert_data = *cert;
    if (out.cert_data.empty()) out.cert_file = str(user, "client-certificate");
  }
  if (overrides.client_key) {
    out.key_file = *overrides.client_key;
  } else {
    auto key = decode_field(user, "client-key-data", "client-key-data of user '" + user_name + "'");
    if (!key) return std::unexpected(key.error());
    out.key_data = *key;
    if (out.key_data.empty()) out.key_file = str(user, "client-key");
  }
  out.token = overrides.token.value_or(str(user, "token"));
  if (out.token.empty()) out.token_file = str(user, "tokenFile");
  out.username = str(user, "username");
  out.password = str(user, "password");
  out.impersonate_user = overrides.impersonate_user.value_or(str(user, "as"));
  out.impersonate_uid = overrides.impersonate_uid.value_or(str(user, "as-uid"));
  out.impersonate_groups = overrides.impersonate_groups;
  if (const auto groups = user.find("as-groups"); out.impersonate_groups.empty() && groups != user.end() && groups->is_array())
    for (const auto& group : *groups)
      if (group.is_string()) out.impersonate_groups.push_back(group.get<std::string>());
  if (auto exec = user.find("exec"); exec != user.end() && exec->is_object() && !overrides.token) {
    auto parsed = parse_exec(*exec, "user '" + user_name + "'");
    if (!parsed) return std::unexpected(parsed.error());
    out.exec = std::move(*parsed);
  }
  if (auto provider = user.find("auth-provider"); provider != user.end() && provider->is_object() && !overrides.token) {
    AuthProvider auth{.name = str(*provider, "name"), .config = {}, .user_name = user_name, .file = {}};
    if (const auto config = provider->find("config"); config != provider->end() && config->is_object())
      for (const auto& [key, value] : config->items())
        if (value.is_string()) auth.config[key] = value.get<std::string>();
    if (const auto file = merged.user_files.find(user_name); file != merged.user_files.end()) auth.file = file->second;
    out.auth_provider = std::move(auth);
  }
  if (overrides.namespace_name && !overrides.namespace_name->empty()) {
    out.namespace_name = *overrides.namespace_name;
    out.namespace_from_flag = true;
  } else if (std::string ns = str(context, "namespace"); !ns.empty()) {
    out.namespace_name = ns;
  }
  return out;
}

Result<RestConfig> load(const Overrides& overrides, const Environment& env) {
  auto merged = load_files(overrides, env);
  if (!merged) return std::unexpected(merged.error());
  return resolve(*merged, overrides);
}

Result<void> update_file(const std::string& file, const std::function<void(json&)>& change) {
  json document = {{"apiVersion", "v1"}, {"kind", "Config"}, {"clusters", json::array()},
                   {"contexts", json::array()}, {"users", json::array()}, {"preferences", json::object()}};
  std::error_code ec;
  if (fs::exists(file, ec)) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    auto documents = codec::yaml_to_json(text.str());
    if (!documents) return fail(file + ": not valid YAML: " + documents.error().message);
    if (!documents->empty() && (*documents)[0].is_object()) document = (*documents)[0];
  } else if (!fs::path(file).parent_path().empty()) {
    fs::create_directories(fs::path(file).parent_path(), ec);
  }
  change(document);
  const std::string temporary = file + ".kw-tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << codec::json_to_yaml(document);
    if (!out) return fail("cannot write " + temporary);
  }
  fs::permissions(temporary, fs::perms::owner_read | fs::perms::owner_write, ec);
  fs::rename(temporary, file, ec);
  if (ec) return fail("cannot replace " + file + ": " + ec.message());
  return {};
}

Result<std::string> base64_decode(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
  };
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=' || c == '\n' || c == '\r' || c == ' ' || c == '\t') continue;
    const int v = value(c);
    if (v < 0) return fail("not valid base64");
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  return out;
}

std::string base64_encode(std::string_view bytes) { return util::base64_encode(bytes); }

}  // namespace kw::kubeconfig
