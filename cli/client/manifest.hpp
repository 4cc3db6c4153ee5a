#pragma once
// Manifests for create/apply/delete -f: files, directories (their .yaml/.yml/.json files in
// name order, subdirectories with -R) and "-" for stdin; each file a YAML stream of
// documents or JSON (one object or several in a row); "List" objects are opened into
// their items. Every object must carry apiVersion, kind and metadata.name (or generateName
// when allowed).
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/error.hpp"

namespace kw::cli {

struct Manifest {
  nlohmann::json object;
  std::string source;    // the file name ("STDIN" for -)
  bool in_list = false;  // an item of a List document (which the server's fieldValidation does not check)
};

// The objects of one file's text, in order (Lists opened).
Result<std::vector<nlohmann::json>> parse_manifests(std::string_view text, const std::string& source);

// Every object named by -f arguments. Objects are checked for apiVersion and kind; names are
// required unless allow_generate_name and metadata.generateName is set.
Result<std::vector<Manifest>> load_manifests(const std::vector<std::string>& paths, bool recursive,
                                             std::istream& standard_input, bool allow_generate_name = false);

}  // namespace kw::cli
