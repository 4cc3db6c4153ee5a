// The one copy of nlohmann::json's class, parser, lexer and serializer (json.hpp says why).
#include "core/util/json.hpp"

template class nlohmann::basic_json<>;
template class nlohmann::detail::serializer<nlohmann::json>;
template class nlohmann::detail::lexer<nlohmann::json, kw::json_instances::StringInput>;
template class nlohmann::detail::parser<nlohmann::json, kw::json_instances::StringInput>;
template class nlohmann::detail::lexer<nlohmann::json, kw::json_instances::PointerInput>;
template class nlohmann::detail::parser<nlohmann::json, kw::json_instances::PointerInput>;
