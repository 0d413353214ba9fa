// Under AddressSanitizer, a leak names the test that made it. LeakSanitizer checks once, at exit,
// and its report names allocation stacks but no test; this listener also checks after every test
// (a recoverable check: it reports and returns) and says which test the first leak followed. A
// leak stays a leak, so later checks would find it again: after the first one it stops checking,
// and the check at exit still fails the run. Leaks made by a thread a test left running are found
// after the test during which that thread let go of them.
//
// Linked into every test program that scripts/test.sh runs under the sanitizers; without them it
// registers nothing.
#include <gtest/gtest.h>

#if defined(__SANITIZE_ADDRESS__)
#define RECONSUME_PER_TEST_LEAK_CHECK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RECONSUME_PER_TEST_LEAK_CHECK 1
#endif
#endif

#ifdef RECONSUME_PER_TEST_LEAK_CHECK
#include <sanitizer/lsan_interface.h>

#include <cstdio>

namespace {

class LeakCheckAfterEachTest : public ::testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const ::testing::TestInfo& test) override {
    if (leakFound_) return;
    // Returns 0 at once when leak detection is off (ASAN_OPTIONS=detect_leaks=0).
    if (__lsan_do_recoverable_leak_check() == 0) return;
    leakFound_ = true;
    std::fprintf(stderr,
                 "\nleak_check_per_test: the leak reported above was found after %s.%s; "
                 "the check at exit fails the run\n",
                 test.test_suite_name(), test.name());
    std::fflush(stderr);
  }

 private:
  bool leakFound_ = false;
};

const bool kRegistered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new LeakCheckAfterEachTest);
  return true;
}();

}  // namespace
#endif
