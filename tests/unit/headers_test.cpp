// The public headers compile on their own and together, and the async forms accept the three
// kinds of completion token DESIGN.md promises (checked at compile time).
#include <gtest/gtest.h>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <future>
#include <type_traits>

#include "reconsume/reconsume.hpp"

namespace reconsume {
namespace {

TEST(PublicHeaders, AsyncFormsAcceptCallbacksFuturesAndAwaitables) {
  using Receive = decltype(std::declval<Consumer&>().asyncReceive(boost::asio::use_future));
  static_assert(std::is_same_v<Receive, std::future<Message>>);
  using Ack = decltype(std::declval<Consumer&>().asyncAcknowledge(std::declval<Message>(),
                                                                  boost::asio::use_awaitable));
  static_assert(std::is_same_v<Ack, boost::asio::awaitable<void>>);
  using Later = decltype(std::declval<Consumer&>().asyncReconsumeLater(std::declval<Message>(), 3,
                                                                       [](std::error_code) {}));
  static_assert(std::is_void_v<Later>);
  using Send =
      decltype(std::declval<Producer&>().asyncSend(OutgoingMessage{}, boost::asio::use_future));
  static_assert(std::is_same_v<Send, std::future<MessageId>>);
  SUCCEED();
}

}  // namespace
}  // namespace reconsume
