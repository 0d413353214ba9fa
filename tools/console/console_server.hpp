// The HTTP side of `reconsume dlq serve`: serves the console's page (console_assets.hpp) and its
// JSON API (console_api.hpp) on one thread, one request at a time.
//
// Safe by default:
// - it listens on a loopback address unless given a token; with a token every request must carry
//   it (a cookie set by opening /?token=<token> once, or "Authorization: Bearer <token>"),
//   compared in constant time;
// - the Host header must name the address served (a page of another site that resolves its own
//   name to 127.0.0.1, DNS rebinding, is refused);
// - a state-changing request (POST) must be JSON, carry "X-Reconsume-Console: 1" and, when the
//   browser sends an Origin, come from this origin: a page of another site can neither send the
//   header without a CORS preflight (which is never granted) nor read the answers;
// - pages carry a Content-Security-Policy of 'self' only, no framing, no caching of answers.
//
// Thread safety: run() on one thread; stop() from any thread (a signal handler's strand).
#pragma once

#include <boost/asio/io_context.hpp>
#include <functional>
#include <memory>
#include <string>

#include "console/console_api.hpp"

namespace reconsume::tools {

struct ConsoleServerOptions {
  std::string listen = "127.0.0.1:8088";  // host:port; port 0 for any free one
  std::string token;                      // "" : none (then only a loopback address is allowed)
};

// Throws what ConsoleServer would for `listen` (invalid_argument), without listening: a command
// checks it before it connects to anything.
void checkConsoleListen(const std::string& listen, bool haveToken);

class ConsoleServer {
 public:
  // Throws Error(invalid_argument) naming --listen for an address that does not parse, or a
  // non-loopback one without a token; Error(unavailable) when it cannot listen (in use).
  ConsoleServer(boost::asio::io_context& io, ConsoleServerOptions options,
                std::function<ConsoleResponse(const ConsoleRequest&)> api);
  ~ConsoleServer();
  // http://host:port/ as listened on.
  std::string url() const;
  // Serves until stop().
  void run();
  void stop();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace reconsume::tools
