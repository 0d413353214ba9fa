// The warnings of failed asynchronous calls (asyncSend, asyncAcknowledge, asyncReconsumeLater, …),
// whose error codes cannot carry the failure's text: one warning per kind of failure and burst.
// A broker that fails a thousand sends at once (their send timeout, a lost connection, a bookie
// turned read-only) gives the first failure's text and one line counting the others, not a
// thousand warnings a user has to scroll past to find anything else.
//
// A kind is an operation and an error code ("asyncSend", timeout). Failures of one kind from
// different handles (two producers whose sends time out together) are warned about once for each
// of the first few handles, so that each one's text shows (a send's names its topic); the others
// are counted, and the summary says from how many handles they came. A burst begins with a failure
// when none is pending and ends when the client's executor runs the summary that failure posted:
// the failures of one event — a timer's expiry, a connection's loss — complete inside one handler
// on the I/O thread and so fall into one burst. Every failure is either warned about or counted in
// a summary; flush() writes the pending summaries at once (when the client closes).
//
// Thread safety: warn() and flush() from any thread. The Logger (user code) runs outside the lock.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_set>
#include <vector>

#include "common/log.hpp"

namespace reconsume::detail {

// What failed: a handle's state (compared, never read, so it may be gone by then) and what to
// call it in a summary ("producer"); none for the client's own operations (transactions).
struct FailureSource {
  const void* handle = nullptr;
  const char* noun = nullptr;  // singular; a summary adds "s"
};

class FailureLog : public std::enable_shared_from_this<FailureLog> {
 public:
  // How many handles of one kind of failure are warned about in a burst, each with its own text.
  static constexpr std::size_t kWarnedHandles = 3;

  FailureLog(Log log, boost::asio::any_io_executor executor)
      : log_(std::move(log)), executor_(std::move(executor)) {}

  // Warns `text` (the whole line, e.g. "asyncSend: no receipt within …") if it is the first
  // failure of its kind in this burst, or the first from its source while fewer than
  // kWarnedHandles sources were warned about; counts it otherwise.
  void warn(std::string_view operation, std::error_code code, FailureSource source,
            std::string_view text);
  // The summaries of the burst so far: "asyncSend: 999 more failed (timed out) since the warning
  // above", or "… since the warnings above, from 12 producers" when they came from several; the
  // next failure begins a new burst.
  void flush();

 private:
  struct Kind {
    std::string operation;
    std::error_code code;
    const char* noun = nullptr;
    std::unordered_set<const void*> sources;  // every source of the burst, warned about or not
    std::size_t warned = 1;                   // how many sources were warned about
    int more = 0;                             // failures of this kind counted, not warned about
  };

  Log log_;
  boost::asio::any_io_executor executor_;
  std::mutex mutex_;
  std::vector<Kind> burst_;   // guarded by mutex_; a burst holds one kind or a few
  bool flushPosted_ = false;  // guarded by mutex_
};

}  // namespace reconsume::detail
