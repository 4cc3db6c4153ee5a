#pragma once
// The comments of kw's .proto files: the text written above a message or a field is its help
// text (the OpenAPI description `kubectl explain` prints). Read from the descriptor set with
// source info that the build compiles in, once, on first use; thread-safe.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kw::proto {

// The comment above the message or field `full_name` ("k8s.io.api.core.v1.Pod",
// "k8s.io.api.core.v1.Pod.spec") as one line of text; empty when it has none.
std::string_view comment_of(std::string_view full_name);

// Every commented message and field with its comment, by full name.
std::vector<std::pair<std::string_view, std::string_view>> all_comments();

}  // namespace kw::proto
