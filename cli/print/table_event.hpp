#pragma once
// Table watch events read thin, for kw get -w's table output: of each row only the cells
// and the metadata the printer and the seen-set use are kept (name, namespace, uid,
// resourceVersion, generateName, creation and deletion timestamps, labels); the rest of the
// object is skipped without being parsed into a document. Most of an event's bytes are
// metadata nobody prints (managedFields, annotations), so this is several times cheaper
// than a full parse.
#include <optional>
#include <string_view>

#include "cli/client/list.hpp"

namespace kw::cli {

// An ADDED, MODIFIED or DELETED event with its rows as items (RawEvent::rows; `object` is
// left null): what the full decoder and collect_items() would give, minus the skipped
// fields. nullopt when the frame is not such an event (an ERROR Status, a BOOKMARK, a Table
// with column definitions, anything unexpected or malformed): decode that one in full.
std::optional<RawEvent> decode_thin_table_event(std::string_view frame);

// A row's object (decoded in full, as a LIST's rows are) cut down to what the thin decoder
// keeps of it.
void thin_row_object(nlohmann::json& object);

}  // namespace kw::cli
