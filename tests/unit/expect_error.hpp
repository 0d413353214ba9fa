// Test helpers: the Error a call throws, and the text of one that must fail with an
// invalid-argument Error, so a test can check that the text names the value that caused it.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "reconsume/error.hpp"

namespace reconsume::testing {

template <typename Call>
std::string invalidArgumentText(Call call) {
  try {
    call();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "the call did not throw";
  return "(no error)";
}

// The Error that `call` throws, or a test failure (and an invalid-argument Error saying so) when
// it throws none.
template <typename Call>
Error thrownBy(Call&& call) {
  try {
    call();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no Error was thrown";
  return Error(errc::invalid_argument, "nothing thrown");
}

// Whether `text` contains `part`, with the text shown on failure.
inline ::testing::AssertionResult mentions(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not mention '" << part << "'";
}

}  // namespace reconsume::testing
