// The client's kubeconfig handling (core/kubeconfig/kubeconfig.hpp) on arbitrary text: parsing,
// merging and resolving the context as flags would pick it, and the ExecCredential a plugin
// prints. Nothing may crash or touch the file system; errors say what is wrong; merging a
// kubeconfig into itself changes nothing.
//
// Input: byte 0 picks the overrides (bits) and the exec apiVersion; then the kubeconfig YAML,
// and optionally a 0 byte and an exec plugin's output.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/kubeconfig/kubeconfig.hpp"

namespace {

namespace kubeconfig = kw::kubeconfig;

void check(bool ok) {
  if (!ok) std::abort();
}

template <class T>
void check_error(const kw::Result<T>& result) {
  if (!result) check(!result.error().message.empty());
}

kubeconfig::Overrides overrides_of(std::uint8_t bits, const kubeconfig::Merged& merged) {
  kubeconfig::Overrides out;
  if (bits & 1) out.server = "https://127.0.0.1:6443";
  if ((bits & 2) && !merged.contexts.empty()) out.context = merged.contexts.begin().key();
  if (bits & 4) out.user = merged.users.empty() ? std::string("nobody") : merged.users.begin().key();
  if (bits & 8) out.token = "t0ken";
  if (bits & 16) out.namespace_name = "kube-system";
  if (bits & 32) out.insecure_skip_tls_verify = true;
  return out;
}

void fuzz_exec_output(std::string_view output, std::uint8_t bits) {
  kubeconfig::ExecConfig exec;
  exec.api_version = (bits & 64) ? "client.authentication.k8s.io/v1" : "client.authentication.k8s.io/v1beta1";
  exec.command = "plugin";
  check_error(kubeconfig::parse_exec_output(output, exec));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto split = input.find('\0');
  if (split != std::string_view::npos) fuzz_exec_output(input.substr(split + 1), data[0]);

  auto merged = kubeconfig::parse(input.substr(0, split), "/home/user/.kube", "/home/user/.kube/config");
  if (!merged) {
    check_error(merged);
    return 0;
  }
  kubeconfig::Merged twice = *merged;
  kubeconfig::merge(twice, *merged);
  check(twice.clusters == merged->clusters && twice.users == merged->users && twice.contexts == merged->contexts &&
        twice.current_context == merged->current_context);

  auto resolved = kubeconfig::resolve(*merged, overrides_of(data[0], *merged));
  check_error(resolved);
  if (resolved && resolved->exec) {
    check_error(kubeconfig::exec_interactive(*resolved->exec, false));
    check_error(kubeconfig::exec_interactive(*resolved->exec, true));
  }
  return 0;
}
