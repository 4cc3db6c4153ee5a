#pragma once
// Beast's string_view (Boost's, in Boost 1.74) as a std::string_view, for the HTTP code on both
// the client and the server side.
#include <string_view>

#include <boost/utility/string_view.hpp>

namespace kw::net {

inline std::string_view view(boost::string_view text) { return {text.data(), text.size()}; }

}  // namespace kw::net
