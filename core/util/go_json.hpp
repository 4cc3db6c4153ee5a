#pragma once
// What Go's encoding/json says of malformed input. Kubernetes decodes a few annotations with
// json.Unmarshal and puts the error text in its field errors, so kw words them alike.
#include <string>
#include <string_view>

namespace kw::util {

// The SyntaxError text json.Unmarshal gives for `text` ("invalid character 'x' looking for
// beginning of value", "unexpected end of JSON input", ...), or "" when it is well-formed JSON.
// Iterative: any nesting is safe; past Go's 10,000 levels it is "exceeded max depth".
std::string go_json_syntax_error(std::string_view text);

}  // namespace kw::util
