// Test helper: runs a call that must fail with an invalid-argument Error and returns the error's
// text, so a test can check that the text names the value that caused it.
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

// Whether `text` contains `part`, with the text shown on failure.
inline ::testing::AssertionResult mentions(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not mention '" << part << "'";
}

}  // namespace reconsume::testing
