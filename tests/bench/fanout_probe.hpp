#pragma once
// What the fan-out benchmark reads about the server process from /proc: CPU time used
// (utime + stime from /proc/<pid>/stat) and resident memory (VmRSS from /proc/<pid>/status).
#include <optional>
#include <string>

namespace kw::bench {

struct ProcessSample {
  double cpu_seconds = 0;  // user + system
  double rss_kib = 0;
};

// The sample of process `pid`, or nullopt when it cannot be read (no such process).
std::optional<ProcessSample> sample_process(int pid);

// A ConfigMap of about `payload_bytes` of data named `name` (the event marker goes in it).
std::string configmap_json(const std::string& namespace_, const std::string& name, std::size_t payload_bytes);

}  // namespace kw::bench
