// WebSocket against the python3-websocket client.
#include <doctest/doctest.h>

#include <fstream>

#include "server_test_support.hpp"

namespace kw::net::test {

namespace {

constexpr const char* k_client_script = R"(import sys, websocket
ws = websocket.create_connection(sys.argv[1], timeout=10, subprotocols=sys.argv[2:] or None)
print("subprotocol", ws.subprotocol)
while True:
    opcode, data = ws.recv_data(control_frame=True)
    if opcode == websocket.ABNF.OPCODE_CLOSE:
        print("close", int.from_bytes(data[:2], "big"))
        break
    kind = "text" if opcode == websocket.ABNF.OPCODE_TEXT else "binary"
    print(kind, data.decode())
ws.close()
)";

CommandResult run_client(const TempDir& dir, const std::string& url, const std::string& protocols = "") {
  const std::string script = dir.file("client.py");
  std::ofstream(script) << k_client_script;
  return run_command("timeout 20 /usr/bin/python3 " + script + " '" + url + "' " + protocols + " 2>&1");
}

}  // namespace

TEST_CASE("websocket: text messages then a clean close") {
  auto server = start_test_server();
  TempDir dir;
  const auto result = run_client(dir, "ws://" + server->base() + "/ws?n=3", "kw.test");
  CHECK(result.exit_code == 0);
  CHECK(result.output ==
        "subprotocol kw.test\ntext message 0\ntext message 1\ntext message 2\nclose 1000\n");
}

TEST_CASE("websocket: binary message mode") {
  auto server = start_test_server();
  TempDir dir;
  const auto result = run_client(dir, "ws://" + server->base() + "/ws?n=2&binary=1");
  CHECK(result.exit_code == 0);
  CHECK(result.output == "subprotocol None\nbinary message 0\nbinary message 1\nclose 1000\n");
}

TEST_CASE("websocket: a refused upgrade is a plain HTTP response") {
  auto server = start_test_server();
  const auto result = run_command("timeout 20 curl -sS -w ' %{http_code}' -H 'Connection: Upgrade' -H 'Upgrade: websocket' "
                                  "-H 'Sec-WebSocket-Version: 13' -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' "
                                  "http://" + server->base() + "/ws-deny");
  CHECK(result.exit_code == 0);
  CHECK(result.output == "denied 403");
}

TEST_CASE("websocket: a client message over 64 KiB ends the connection") {
  auto server = start_test_server();
  TempDir dir;
  const std::string script = dir.file("big.py");
  std::ofstream(script) << R"(import sys, websocket
ws = websocket.create_connection(sys.argv[1], timeout=3)
print("got", ws.recv().strip())
ws.send("x" * 1024)
# The server closes (1009) once the message passes its limit, maybe while it is still being sent.
try:
    ws.send("y" * (1 << 20))
    while True:
        opcode, data = ws.recv_data(control_frame=True)
        if opcode == websocket.ABNF.OPCODE_CLOSE:
            print("ended", int.from_bytes(data[:2], "big"))
            break
except websocket.WebSocketTimeoutException:
    print("still open")
except (OSError, websocket.WebSocketConnectionClosedException):
    print("ended", 1009)
)";
  const auto result = run_command("timeout 20 /usr/bin/python3 " + script + " 'ws://" + server->base() + "/hold' 2>&1");
  CHECK(result.output == "got first\nended 1009\n");
}

}  // namespace kw::net::test
