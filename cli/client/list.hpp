#pragma once
// Listing and decoding for kw get / kw watch: paginated LISTs (server Table or plain list,
// JSON, YAML or protobuf bodies), watch event decoding by the response's Content-Type,
// and the exit codes the client commands return.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/client/api.hpp"
#include "cli/print/printers.hpp"
#include "core/codec/frame.hpp"

namespace kw::cli {

// Exit codes of the client commands (documented in --help). Every failure exits 1, as with
// kubectl, whose scripts test for it; the names say why.
inline constexpr int k_exit_ok = 0;
inline constexpr int k_exit_usage = 1;        // bad flags, kubeconfig or resource type
inline constexpr int k_exit_server = 1;       // the server answered with an error
inline constexpr int k_exit_unreachable = 1;  // the server could not be reached

struct ApiError {
  int http_status = 0;  // 0: the request did not get an answer
  std::string message;
  std::string reason;   // the Status reason ("NotFound"), when the server sent one
  int exit_code() const { return http_status == 0 ? k_exit_unreachable : k_exit_server; }
  // The line kubectl prints: "Error from server (NotFound): ..." or "error: ...".
  std::string text() const {
    if (http_status == 0) return "error: " + message;
    return "Error from server" + (reason.empty() ? std::string() : " (" + reason + ")") + ": " + message;
  }
};
template <class T>
using ApiResult = std::expected<T, ApiError>;

struct Query {
  std::string namespace_name;  // "" = all namespaces (or a cluster-scoped kind)
  std::string label_selector;
  std::string field_selector;
  int chunk_size = 500;
  bool want_table = true;
  bool include_object = false;  // includeObject=Object (for --sort-by)
  std::string encoding = "json";  // json | yaml | protobuf
  std::string subresource;        // GET of a named object's subresource ("status", "scale")
};

struct Listing {
  std::vector<Item> items;
  std::string resource_version;
};

std::string accept_for(const Query& query, bool watch);
std::string query_string(const Query& query, bool watch, const std::string& resource_version,
                         const std::string& continue_token);

// A LIST of the collection (all pages), or a GET of one named object. `keep`, when given,
// cuts each item down as its page arrives (what the caller keeps of them).
ApiResult<Listing> list_objects(ApiClient& api, KindInfo& kind, const Query& query,
                                const std::function<void(Item&)>& keep = {});
ApiResult<Listing> get_object(ApiClient& api, KindInfo& kind, const Query& query, const std::string& name);

// Turns a decoded body (Table, list or single object) into items; updates kind.columns from
// a Table's columnDefinitions.
void collect_items(nlohmann::json&& body, KindInfo& kind, const std::string& type, std::vector<Item>& out);
// Takes a Table's columnDefinitions into kind.columns, when it has any.
void read_columns(const nlohmann::json& table, KindInfo& kind);
// A response body by its Content-Type; protobuf objects in the shape of Go's JSON unless
// `thin` (the caller keeps only names and metadata).
Result<nlohmann::json> decode_body(const std::string& content_type, std::string_view body, bool thin = false);

struct RawEvent {
  std::string type;
  nlohmann::json object;
  // Set instead of `object` by the thin Table reader (cli/table_event.hpp): the rows, as items.
  std::optional<std::vector<Item>> rows;
};

// Watch frames -> events, chosen by the response Content-Type. With message framing (a
// WebSocket), each fed chunk is one whole event.
class EventDecoder {
 public:
  static Result<EventDecoder> create(const std::string& content_type, bool message_framed);
  Result<void> feed(std::string_view bytes, std::vector<RawEvent>& out);
  Result<void> finish(std::vector<RawEvent>& out);
  // Reads Table events thin (cli/table_event.hpp): for a table printer that needs only the
  // cells and the rows' metadata.
  void read_tables_thin(bool thin) { m_thin_tables = thin; }
  // Protobuf objects come in the shape of Go's JSON (codec::decode_object_protobuf_go_shaped)
  // unless the reader keeps only their thin parts, which that shape does not touch.
  void read_objects_thin(bool thin) { m_thin_objects = thin; }

 private:
  enum class Format { Json, Yaml, Protobuf };
  Result<void> drain(std::vector<RawEvent>& out);
  Result<RawEvent> decode_frame(std::string_view frame) const;

  Format m_format = Format::Json;
  bool m_message_framed = false;
  bool m_thin_tables = false;
  bool m_thin_objects = false;
  std::unique_ptr<codec::FrameDecoder> m_frames;
};

}  // namespace kw::cli
