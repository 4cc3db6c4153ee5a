#include "bench/fanout_probe.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace kw::bench {

std::optional<ProcessSample> sample_process(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return std::nullopt;
  // Fields after the command name (which may hold spaces) start after the last ')'.
  const auto close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(close + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int index = 3; fields >> field; ++index) {
    if (index == 14) utime = std::stod(field);
    if (index == 15) {
      stime = std::stod(field);
      break;
    }
  }
  ProcessSample out;
  out.cpu_seconds = (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  while (std::getline(status, line))
    if (line.starts_with("VmRSS:")) out.rss_kib = std::stod(line.substr(6));
  return out;
}

std::string configmap_json(const std::string& namespace_, const std::string& name, std::size_t payload_bytes) {
  const nlohmann::json object = {{"apiVersion", "v1"},
                                 {"kind", "ConfigMap"},
                                 {"metadata", {{"name", name}, {"namespace", namespace_}}},
                                 {"data", {{"payload", std::string(payload_bytes, 'x')}}}};
  return object.dump();
}

}  // namespace kw::bench
