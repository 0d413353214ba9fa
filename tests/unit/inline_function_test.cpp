// InlineFunction (common/inline_function.hpp): std::function's behaviour, with small callables of
// any kind kept inside the wrapper.
#include "common/inline_function.hpp"

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>

namespace reconsume::detail {
namespace {

// Counts its live copies, so that a test sees every copy destroyed exactly once.
struct Counted {
  explicit Counted(int* live) : live(live) { ++*live; }
  Counted(const Counted& other) : live(other.live) { ++*live; }
  Counted(Counted&& other) noexcept : live(other.live) { ++*live; }
  ~Counted() { --*live; }
  int* live;
};

TEST(InlineFunction, CallsWhatItHoldsSmallOrLarge) {
  auto shared = std::make_shared<int>(2);
  InlineFunction<int(int)> small = [shared](int x) { return x * *shared; };  // inline
  std::array<char, 200> big{};
  big[0] = 3;
  InlineFunction<int(int)> large = [big](int x) { return x * big[0]; };  // on the heap
  EXPECT_EQ(small(5), 10);
  EXPECT_EQ(large(5), 15);
  EXPECT_EQ(shared.use_count(), 2);
}

TEST(InlineFunction, CopiesMovesAndDestroysEachTargetOnce) {
  int live = 0;
  for (bool inlined : {true, false}) {
    {
      std::array<char, 100> padding{};
      Counted counted(&live);
      InlineFunction<int()> f;
      if (inlined) {
        f = [counted] { return 1; };
      } else {
        f = [counted, padding] { return static_cast<int>(padding.size()); };
      }
      InlineFunction<int()> copy = f;
      InlineFunction<int()> moved = std::move(f);
      EXPECT_FALSE(f);  // NOLINT: a moved-from wrapper is empty
      EXPECT_TRUE(copy);
      EXPECT_EQ(copy(), moved());
      copy = moved;  // copy-assigned over a target
      moved = nullptr;
      EXPECT_TRUE(moved == nullptr);
      EXPECT_EQ(live, 2) << inlined;  // `counted` and the one in `copy`
    }
    EXPECT_EQ(live, 0) << inlined;
  }
}

TEST(InlineFunction, EmptyTargetsMakeEmptyWrappersAndCallingOneThrows) {
  int (*none)(int) = nullptr;
  InlineFunction<int(int)> fromNull = none;
  InlineFunction<int(int)> fromEmpty = std::function<int(int)>();
  InlineFunction<int(int)> fromFunction = std::function<int(int)>([](int x) { return -x; });
  EXPECT_FALSE(fromNull);
  EXPECT_FALSE(fromEmpty);
  EXPECT_EQ(fromFunction(4), -4);
  EXPECT_THROW(fromNull(1), std::bad_function_call);
}

TEST(InlineFunction, ForwardsReferencesAndMovesValues) {
  std::string seen;
  InlineFunction<void(const std::string&, std::string)> f =
      [&seen](const std::string& a, std::string b) { seen = a + std::move(b); };
  const std::string first = "first ";
  f(first, std::string(100, 'x'));
  EXPECT_EQ(seen, "first " + std::string(100, 'x'));
}

}  // namespace
}  // namespace reconsume::detail
