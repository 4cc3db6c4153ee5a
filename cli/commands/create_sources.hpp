#pragma once
// The data of `kw create configmap` and `kw create secret generic`: --from-literal,
// --from-file and --from-env-file read into key/value pairs, with kubectl's key rules and
// error wording.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/util/error.hpp"

namespace kw::cli {

struct DataSources {
  std::vector<std::string> literals;   // KEY=VALUE
  std::vector<std::string> files;      // [KEY=]PATH (a directory: each regular file in it)
  std::vector<std::string> env_files;  // KEY=VALUE lines, '#' comments and blank lines skipped
};

using DataEntry = std::pair<std::string, std::string>;

// The pairs in flag order (literals, then files, then env files); a key given twice, a key
// that is not [-._a-zA-Z0-9]+, or an unreadable file is an error naming `kind` "name".
Result<std::vector<DataEntry>> collect_data(const DataSources& sources, std::string_view kind,
                                            std::string_view name);

// KEY=VALUE split at the first '=' ("invalid literal source ..." without one).
Result<DataEntry> parse_literal(std::string_view literal);
// The pairs of an env file's text ("KEY=VALUE" lines; the value taken as is).
Result<std::vector<DataEntry>> parse_env_file(std::string_view text, std::string_view path);

bool is_utf8(std::string_view bytes);
// The bytes of a file; the error is the reason alone ("no such file or directory").
Result<std::string> read_whole_file(const std::string& path);

}  // namespace kw::cli
