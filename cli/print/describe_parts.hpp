#pragma once
// The pieces kubectl describe builds its text from, shared by the pod template (rollout
// history) and the kind describers: an indenting writer, Go's text/tabwriter as kubectl sets
// it up for describe, and the sections several kinds print alike (labels, annotations,
// containers, volumes, tolerations, events). The text keeps kubectl's tabs until
// align_columns() lays it out.
#include <chrono>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/print/tabwriter.hpp"

namespace kw::cli::describe {

using TimePoint = std::chrono::system_clock::time_point;

// kubectl's PrefixWriter: two spaces per level before the text.
class Writer {
 public:
  void write(int level, const std::string& text) {
    m_out << std::string(static_cast<std::size_t>(level + m_nested) * 2, ' ') << text;
  }
  std::string take() { return m_out.str(); }
  // Every write until the Nested ends is `levels` deeper (kubectl's nested prefix writer).
  class Nested {
   public:
    Nested(Writer& w, int levels) : m_writer(w), m_levels(levels) { m_writer.m_nested += levels; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;
    ~Nested() { m_writer.m_nested -= m_levels; }

   private:
    Writer& m_writer;
    int m_levels;
  };

 private:
  std::ostringstream m_out;
  int m_nested = 0;
};

// A JSON scalar as Go's %v prints the decoded value ("" for null, numbers and booleans as
// written); strings as they are.
std::string value_text(const nlohmann::json& value);
// "Mon, 02 Jan 2006 15:04:05 -0700" in the local zone (Go's time.RFC1123Z), as kubectl
// prints timestamps in a description; "" when `value` holds no time.
std::string rfc1123z(const nlohmann::json& value);
// A string list as Go's %v prints a []string: "[a b]".
std::string go_list(const nlohmann::json& list);

// "Title:\tk=v" and a line for each further key, sorted; <none> when there is none.
void write_labels(Writer& w, const std::string& title, const nlohmann::json& labels);
// Annotations (but kubectl's last-applied-configuration), long or multi-line values on lines of
// their own.
void write_annotations(Writer& w, const std::string& title, const nlohmann::json& annotations);
// "Name:" and, unless `with_namespace` is false (a cluster-scoped kind's describer), "Namespace:".
void write_name(Writer& w, const nlohmann::json& object, bool with_namespace = true);
// The object's Labels and Annotations.
void write_metadata(Writer& w, const nlohmann::json& object);
// "Title:\tkey=value:Effect" and the others, sorted by key.
void write_tolerations(Writer& w, const std::string& title, const nlohmann::json& tolerations);

// A container list as kubectl describes it under `label`: `space` is "" for a pod (its
// containers' statuses then shown from `statuses`, and fieldRef variables with their values
// read from `pod`) and "  " inside a pod template (`pod` null).
void write_containers(Writer& w, const std::string& label, const nlohmann::json& containers,
                      const nlohmann::json& statuses, const std::string& space, const nlohmann::json* pod);
// A claim's storage lines as kubectl's printPersistentVolumeClaim writes them: with its Name,
// Namespace, Status and Finalizers for a whole PersistentVolumeClaim (`whole`), without them
// for an ephemeral volume's claim template.
void write_claim(Writer& w, const nlohmann::json& claim, bool whole, TimePoint now);
// A ResourceRequirements' Limits and Requests at `level`, each resource one level deeper.
void write_resources(Writer& w, const nlohmann::json& resources, int level);
void write_volumes(Writer& w, const nlohmann::json& volumes, const std::string& space);
// A CSI volume's attributes, sorted, long ones cut at 140 characters.
void write_volume_attributes(Writer& w, const nlohmann::json& attributes);

// The Events section: "Events:\t<none>" or kubectl's Type/Reason/Age/From/Message table, the
// events in the order of their lastTimestamp.
void write_events(Writer& w, std::vector<nlohmann::json> events, TimePoint now);

}  // namespace kw::cli::describe
