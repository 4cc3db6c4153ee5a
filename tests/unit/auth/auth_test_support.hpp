#pragma once
// Shared by the auth tests: temporary folders, bounded child processes, small file helpers.
#include <filesystem>
#include <string>

namespace kw::auth::test {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout (callers add 2>&1 when they want stderr too)
};

// Runs `command` through the shell; callers prefix `timeout 20`.
CommandResult run_command(const std::string& command);

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return m_path; }
  std::string file(const std::string& name) const { return (m_path / name).string(); }

 private:
  std::filesystem::path m_path;
};

void write_text(const std::string& path, const std::string& text);
std::string read_text(const std::string& path);
unsigned file_mode(const std::string& path);  // permission bits, e.g. 0600

}  // namespace kw::auth::test
