#pragma once
// Random (version 4) UUIDs in their text form, as object uids and audit IDs are written.
#include <string>

namespace kw::util {

// "xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx" in lower-case hex, V one of 8, 9, a, b. Thread-safe.
std::string new_uuid();

}  // namespace kw::util
