// Exec credential plugins: the command runs with the configured env plus KUBERNETES_EXEC_INFO,
// its stdout is an ExecCredential whose status holds a token or a client certificate.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/kubeconfig/kubeconfig.hpp"

namespace kw::kubeconfig {

namespace {

using nlohmann::json;

std::string exec_info(const ExecConfig& exec, const RestConfig& cluster, bool interactive) {
  json info = {{"apiVersion", exec.api_version}, {"kind", "ExecCredential"}, {"spec", {{"interactive", interactive}}}};
  if (exec.provide_cluster_info) {
    json c = {{"server", cluster.server}};
    if (!cluster.tls_server_name.empty()) c["tls-server-name"] = cluster.tls_server_name;
    if (cluster.insecure_skip_tls_verify) c["insecure-skip-tls-verify"] = true;
    if (!cluster.ca_data.empty()) c["certificate-authority-data"] = base64_encode(cluster.ca_data);
    info["spec"]["cluster"] = c;
  }
  return info.dump();
}

// A string member of the plugin's output: "" when absent or null, an error when it has another
// type (client-go fails to decode such output).
Result<std::string> string_member(const json& object, std::string_view key, const ExecConfig& exec) {
  if (!object.is_object()) return std::string();
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::string();
  if (!it->is_string())
    return fail("exec plugin '" + exec.command + "' printed an ExecCredential that cannot be decoded: " +
                it->type_name() + " where " + std::string(key) + " should be a string");
  return it->get<std::string>();
}

}  // namespace

Result<ExecCredential> parse_exec_output(std::string_view output, const ExecConfig& exec) {
  json document = json::parse(output, nullptr, false);
  if (document.is_discarded() || !document.is_object())
    return fail("exec plugin '" + exec.command + "' did not print an ExecCredential JSON object");
  const auto status_it = document.find("status");
  const json status = status_it == document.end() ? json::object() : *status_it;
  if (!status.is_object() && !status.is_null())
    return fail("exec plugin '" + exec.command + "' printed an ExecCredential whose status is not an object");
  auto kind = string_member(document, "kind", exec);
  auto api_version = string_member(document, "apiVersion", exec);
  auto token = string_member(status, "token", exec);
  auto certificate = string_member(status, "clientCertificateData", exec);
  auto key = string_member(status, "clientKeyData", exec);
  for (const auto* member : {&kind, &api_version, &token, &certificate, &key})
    if (!*member) return std::unexpected(member->error());
  if (*kind != "ExecCredential")
    return fail("exec plugin '" + exec.command + "' printed kind '" + *kind + "', want ExecCredential");
  if (*api_version != exec.api_version)
    return fail("exec plugin '" + exec.command + "' printed apiVersion '" + *api_version + "', want " + exec.api_version);
  ExecCredential out{.token = *token, .client_certificate_data = *certificate, .client_key_data = *key};
  if (out.token.empty() && (out.client_certificate_data.empty() || out.client_key_data.empty()))
    return fail("exec plugin '" + exec.command +
                "' returned neither status.token nor status.clientCertificateData and clientKeyData");
  return out;
}

Result<bool> exec_interactive(const ExecConfig& exec, bool stdin_is_terminal) {
  if (exec.interactive_mode == "Never") return false;
  if (exec.interactive_mode == "Always" && !stdin_is_terminal)
    return fail("exec plugin '" + exec.command + "' cannot support interactive mode: standard input is not a terminal");
  return stdin_is_terminal;
}

Result<ExecCredential> run_exec_plugin(const ExecConfig& exec, const RestConfig& cluster) {
  auto interactive = exec_interactive(exec, ::isatty(STDIN_FILENO) == 1);
  if (!interactive) return std::unexpected(interactive.error());
  int out_pipe[2];
  if (::pipe(out_pipe) != 0) return fail(std::string("cannot create a pipe: ") + std::strerror(errno));
  const std::string info = exec_info(exec, cluster, *interactive);
  std::vector<std::string> argv_storage{exec.command};
  argv_storage.insert(argv_storage.end(), exec.args.begin(), exec.args.end());
  std::vector<char*> argv;
  for (auto& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return fail(std::string("cannot start exec plugin: ") + std::strerror(errno));
  if (pid == 0) {
    // A plugin that may not prompt gets no terminal to read.
    if (!*interactive)
      if (const int null_fd = ::open("/dev/null", O_RDONLY); null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    for (const auto& [name, value] : exec.env) ::setenv(name.c_str(), value.c_str(), 1);
    ::setenv("KUBERNETES_EXEC_INFO", info.c_str(), 1);
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "cannot run exec plugin '%s': %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  std::string output;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(out_pipe[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    output.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(out_pipe[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string message = "exec plugin '" + exec.command + "' failed";
    if (WIFEXITED(status)) message += " with exit status " + std::to_string(WEXITSTATUS(status));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && !exec.install_hint.empty())
      message += "; " + exec.install_hint;
    return fail(message);
  }
  return parse_exec_output(output, exec);
}

}  // namespace kw::kubeconfig
