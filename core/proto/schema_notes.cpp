#include "core/proto/schema_notes.hpp"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/unknown_field_set.h>

#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "core/proto/registry.hpp"

namespace kw::proto {

// The descriptor set with source info, embedded by the build (cmake/embed_bytes.cmake).
extern const unsigned char k_notes_descriptors[];
extern const std::size_t k_notes_descriptors_size;

namespace {

namespace pb = google::protobuf;

// Field numbers of descriptor.proto on the paths of SourceCodeInfo locations.
constexpr int k_file_message_type = 4;    // FileDescriptorProto.message_type
constexpr int k_message_field = 2;        // DescriptorProto.field
constexpr int k_message_nested_type = 3;  // DescriptorProto.nested_type
// The kw.api extensions of FieldOptions and MessageOptions (kw/annotations.proto).
constexpr int k_merge_key = 51001;
constexpr int k_patch_strategy = 51002;
constexpr int k_required = 51003;
constexpr int k_list_type = 51004;
constexpr int k_list_map_keys = 51005;
constexpr int k_map_type = 51006;
constexpr int k_default = 51007;
constexpr int k_go_value = 51008;
constexpr int k_go_zero = 51009;
constexpr int k_struct_type = 51001;  // on MessageOptions

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

// Options as wire fields by number. kw.api's extensions may or may not be known to the
// descriptor messages (that depends on what registered them), so they are read from the
// options' wire form, which holds them either way.
void read_wire_fields(const pb::Message& options, pb::UnknownFieldSet& fields) {
  if (!fields.ParseFromString(options.SerializeAsString())) fields.Clear();
}

// The kw.api options of a field; null when it has none.
std::unique_ptr<FieldNotes> notes_of(const pb::FieldOptions& field_options) {
  pb::UnknownFieldSet options;
  read_wire_fields(field_options, options);
  auto notes = std::make_unique<FieldNotes>();
  bool any = false;
  for (int i = 0; i < options.field_count(); ++i) {
    const pb::UnknownField& option = options.field(i);
    if (option.type() == pb::UnknownField::TYPE_LENGTH_DELIMITED) {
      const std::string& text = option.length_delimited();
      switch (option.number()) {
        case k_merge_key: notes->merge_key = text; break;
        case k_patch_strategy: notes->patch_strategy = text; break;
        case k_list_type: notes->list_type = text; break;
        case k_list_map_keys: notes->list_map_keys.push_back(text); break;
        case k_map_type: notes->map_type = text; break;
        case k_default: notes->default_json = text; break;
        case k_go_zero: notes->go_zero = text == "keep" ? GoZero::keep : GoZero::omit; break;
        default: continue;
      }
    } else if (option.type() == pb::UnknownField::TYPE_VARINT && option.number() == k_required) {
      notes->required = option.varint() != 0;
    } else if (option.type() == pb::UnknownField::TYPE_VARINT && option.number() == k_go_value) {
      notes->go_value = option.varint() != 0;
    } else {
      continue;
    }
    any = true;
  }
  return any ? std::move(notes) : nullptr;
}

std::string struct_type_in(const pb::MessageOptions& message_options) {
  pb::UnknownFieldSet options;
  read_wire_fields(message_options, options);
  for (int i = 0; i < options.field_count(); ++i)
    if (options.field(i).number() == k_struct_type && options.field(i).type() == pb::UnknownField::TYPE_LENGTH_DELIMITED)
      return options.field(i).length_delimited();
  return {};
}

// The options are read from the compiled-in descriptors, which the codec has loaded anyway,
// one field or message at a time, and kept: a patch or an apply never pays for reading the
// comments.
struct OptionCache {
  std::mutex mutex;
  std::unordered_map<const pb::FieldDescriptor*, std::unique_ptr<FieldNotes>> fields;
  std::unordered_map<const pb::Descriptor*, std::string> struct_types;
};

OptionCache& option_cache() {
  static OptionCache cache;
  return cache;
}

// The comments of every message and field, from the descriptor set with source info.
using Comments = std::map<std::string, std::string, std::less<>>;

const Comments& comments() {
  static const Comments built = [] {
    Comments out;
    pb::FileDescriptorSet set;
    if (!set.ParseFromArray(k_notes_descriptors, static_cast<int>(k_notes_descriptors_size))) return out;
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
  const auto& all = comments();
  const auto found = all.find(full_name);
  return found == all.end() ? std::string_view{} : std::string_view(found->second);
}

std::vector<std::pair<std::string_view, std::string_view>> all_comments() {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  for (const auto& [name, text] : comments()) out.emplace_back(name, text);
  return out;
}

const FieldNotes* field_notes(std::string_view full_name) {
  const auto dot = full_name.rfind('.');
  if (dot == std::string_view::npos) return nullptr;
  const pb::Descriptor* message = find_message(full_name.substr(0, dot));
  const pb::FieldDescriptor* field = message ? message->FindFieldByName(std::string(full_name.substr(dot + 1))) : nullptr;
  if (field == nullptr) return nullptr;
  return field_notes(*field);
}

const FieldNotes* field_notes(const pb::FieldDescriptor& field) {
  // A per-thread copy of the answers in front of the shared cache: walks ask for every field.
  thread_local std::unordered_map<const pb::FieldDescriptor*, const FieldNotes*> known;
  if (const auto found = known.find(&field); found != known.end()) return found->second;
  auto& cache = option_cache();
  std::lock_guard lock(cache.mutex);
  auto [at, added] = cache.fields.try_emplace(&field);
  if (added) at->second = notes_of(field.options());
  known.emplace(&field, at->second.get());
  return at->second.get();
}

std::string_view struct_type_of(std::string_view full_name) {
  const pb::Descriptor* message = find_message(full_name);
  if (message == nullptr) return {};
  return struct_type_of(*message);
}

std::string_view struct_type_of(const pb::Descriptor& message) {
  thread_local std::unordered_map<const pb::Descriptor*, std::string_view> known;
  if (const auto found = known.find(&message); found != known.end()) return found->second;
  auto& cache = option_cache();
  std::lock_guard lock(cache.mutex);
  auto [at, added] = cache.struct_types.try_emplace(&message);
  if (added) at->second = struct_type_in(message.options());
  known.emplace(&message, at->second);
  return at->second;
}

}  // namespace kw::proto
