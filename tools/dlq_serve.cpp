// `reconsume dlq serve`: the dead-letter console in a browser (console/), on the queue the options
// name, until Ctrl-C.
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include "console/console_api.hpp"
#include "connection_settings.hpp"
#include "console/console_server.hpp"
#include "dlq_verbs.hpp"
#include "terminal.hpp"

namespace reconsume::tools {
namespace {

std::string consoleToken(const ServeText& serve) {
  return serve.tokenFile.empty() ? serve.token
                                 : readTokenFile(serve.tokenFile, "--console-token-file");
}

}  // namespace

int runServe(const DlqOptions& options, const ServeText& serve, std::ostream& out,
             std::ostream& err) {
  std::string token;
  auto check = [&] {
    token = consoleToken(serve);
    checkConsoleListen(serve.listen, !token.empty());
  };
  return runVerb(options, err, check, [&](DeadLetterQueue& queue, Clock& clock) {
    ConsoleApi api(queue, clock, serve.readOnly);
    boost::asio::io_context io;
    ConsoleServer server(io, {serve.listen, token},
                         [&](const ConsoleRequest& request) { return api.handle(request); });
    boost::asio::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&](const boost::system::error_code& ec, int) {
      if (!ec) server.stop();
    });
    out << bold("reconsume dlq serve:") << " the dead letters of " << queue.topic() << " at "
        << server.url() << (serve.readOnly ? " (read-only)" : "")
        << (token.empty() ? "" : " (open " + server.url() + "?token=<token> once)")
        << "; Ctrl-C stops\n"
        << std::flush;
    server.run();
    return kExitOk;
  });
}

}  // namespace reconsume::tools
