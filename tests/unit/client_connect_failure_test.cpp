// A backend that cannot be connected: Client::connect reports the error and leaves nothing
// behind (the half-built client is torn down without a backend to close).
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "reconsume/client.hpp"

namespace reconsume {
namespace {

TEST(ClientConnectFailure, ABadBackendOptionIsAnErrorNotACrash) {
  auto text = testing::invalidArgumentText(
      [] { Client::connect("embedded://connect-failure?maxMessageSize=lots"); });
  EXPECT_TRUE(testing::mentions(text, "lots"));
  // The name is free again: a correct connect works.
  auto client = Client::connect("embedded://connect-failure");
  client.close();
}

}  // namespace
}  // namespace reconsume
