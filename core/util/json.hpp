#pragma once
// nlohmann::json, compiled once. The class and its parser, lexer and serializer are instantiated
// in json_instances.cpp; every other file sees them declared `extern template` and only calls
// them. Otherwise each file that dumps or parses a document compiles its own copy of them, which
// costs seconds per file in the sanitizer build. The precompiled header of the builds that use one
// (kw_precompile in the top CMakeLists.txt) starts with this header, so files keep including
// <nlohmann/json.hpp> as usual.
#include <string>

#include <nlohmann/json.hpp>

namespace kw::json_instances {
// The input adapters json::parse uses for the texts kw parses: std::string (its iterators) and
// std::string_view / const char* (pointers).
using StringInput = nlohmann::detail::iterator_input_adapter<std::string::const_iterator>;
using PointerInput = nlohmann::detail::iterator_input_adapter<const char*>;
}  // namespace kw::json_instances

// Only where nothing is inlined: an optimizing build instantiates the members it inlines anyway.
#ifndef __OPTIMIZE__
extern template class nlohmann::basic_json<>;
extern template class nlohmann::detail::serializer<nlohmann::json>;
extern template class nlohmann::detail::lexer<nlohmann::json, kw::json_instances::StringInput>;
extern template class nlohmann::detail::parser<nlohmann::json, kw::json_instances::StringInput>;
extern template class nlohmann::detail::lexer<nlohmann::json, kw::json_instances::PointerInput>;
extern template class nlohmann::detail::parser<nlohmann::json, kw::json_instances::PointerInput>;
#endif
