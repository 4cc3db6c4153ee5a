#pragma once
// Files holding secrets: written whole (a temporary file renamed into place, so a reader never
// sees half a key) with the permission bits chosen by the caller, and read back whole.
#include <sys/types.h>
#include <string>

#include "core/util/error.hpp"

namespace kw::auth {

// Writes `content` to `path` with permission bits `mode` (e.g. 0600), replacing any old file.
Result<void> write_file_atomic(const std::string& path, const std::string& content, mode_t mode);

// The whole file, or an error naming the path.
Result<std::string> read_file(const std::string& path);

// Creates `dir` (and its parents) if needed and sets its permission bits to `mode`.
Result<void> ensure_private_dir(const std::string& dir, mode_t mode);

// Standard base64 (with padding) of `bytes`, as kubeconfig *-data fields carry it.
std::string base64_encode(const std::string& bytes);

}  // namespace kw::auth
