#include "core/proto/comments.hpp"

#include <google/protobuf/descriptor.pb.h>

#include <map>
#include <sstream>

namespace kw::proto {

// The descriptor set with source info, embedded by the build (cmake/embed_bytes.cmake).
extern const unsigned char k_comment_descriptors[];
extern const std::size_t k_comment_descriptors_size;

namespace {

namespace pb = google::protobuf;

// Field numbers of descriptor.proto on the paths of SourceCodeInfo locations.
constexpr int k_file_message_type = 4;    // FileDescriptorProto.message_type
constexpr int k_message_field = 2;        // DescriptorProto.field
constexpr int k_message_nested_type = 3;  // DescriptorProto.nested_type

// "// One line\n// and the next" arrives as " One line\n and the next\n": one line of text.
std::string one_line(const std::string& comment) {
  std::istringstream lines(comment);
  std::string out;
  for (std::string line; std::getline(lines, line);) {
    const auto begin = line.find_first_not_of(" \t");
    if (begin == std::string::npos) continue;
    const auto end = line.find_last_not_of(" \t\r");
    if (!out.empty()) out += ' ';
    out.append(line, begin, end - begin + 1);
  }
  return out;
}

// The full name a location path points at within `file`, or "" for anything but a message
// or a field (nested messages included).
std::string name_at(const pb::FileDescriptorProto& file, const pb::RepeatedField<int>& path) {
  if (path.size() < 2 || path[0] != k_file_message_type || path[1] >= file.message_type_size()) return {};
  const pb::DescriptorProto* message = &file.message_type(path[1]);
  std::string name = file.package() + "." + message->name();
  int at = 2;
  for (; at + 1 < path.size() && path[at] == k_message_nested_type; at += 2) {
    if (path[at + 1] >= message->nested_type_size()) return {};
    message = &message->nested_type(path[at + 1]);
    name += "." + message->name();
  }
  if (at == path.size()) return name;
  if (at + 2 == path.size() && path[at] == k_message_field && path[at + 1] < message->field_size())
    return name + "." + message->field(path[at + 1]).name();
  return {};
}

using CommentIndex = std::map<std::string, std::string, std::less<>>;

const CommentIndex& index() {
  static const CommentIndex built = [] {
    CommentIndex out;
    pb::FileDescriptorSet set;
    if (!set.ParseFromArray(k_comment_descriptors, static_cast<int>(k_comment_descriptors_size))) return out;
    for (const auto& file : set.file())
      for (const auto& location : file.source_code_info().location()) {
        if (location.leading_comments().empty()) continue;
        std::string name = name_at(file, location.path());
        if (!name.empty()) out.emplace(std::move(name), one_line(location.leading_comments()));
      }
    return out;
  }();
  return built;
}

}  // namespace

std::string_view comment_of(std::string_view full_name) {
  const auto& comments = index();
  const auto found = comments.find(full_name);
  return found == comments.end() ? std::string_view{} : std::string_view(found->second);
}

std::vector<std::pair<std::string_view, std::string_view>> all_comments() {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  for (const auto& [name, text] : index()) out.emplace_back(name, text);
  return out;
}

}  // namespace kw::proto
