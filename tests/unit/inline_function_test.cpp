// InlineFunction (common/inline_function.hpp): std::function's behaviour, with small callables of
// any kind kept inside the wrapper.
#include "common/inline_function.hpp"

#include <gtest/gtest.h>

#include <array>
#include <memory>
#include <string>
#include <type_traits>

#include "common/callback.hpp"

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

// Counts the moves of the target it is captured in: a target kept inside its wrapper moves with
// it, one on the heap stays where it is.
struct MoveCounter {
  explicit MoveCounter(int* moves) : moves(moves) {}
  MoveCounter(const MoveCounter&) = default;
  MoveCounter(MoveCounter&& other) noexcept : moves(other.moves) { ++*moves; }
  int* moves;
};

// A backend's callback holds the client layer's wrapper around a Callback (the Callback and what
// it counts with) inside itself; a Callback cannot, and a wider callback never converts to a
// narrower one (that would always allocate).
TEST(InlineFunction, ABackendCallbackHoldsAWrappedCallbackInline) {
  static_assert(std::is_constructible_v<BackendCallback<>, Callback<>>);
  static_assert(!std::is_constructible_v<Callback<>, BackendCallback<>>);
  static_assert(!std::is_convertible_v<BackendCallback<int>, Callback<int>>);
  int called = 0;
  Callback<> inner = [&called](const Status& status) { called += status.ok() ? 1 : 100; };
  int moves = 0;
  auto wrapper = [inner, owner = std::make_shared<int>(), count = std::size_t{0},
                  started = std::int64_t{0},
                  counter = MoveCounter(&moves)](const Status& status) { inner(status); };
  static_assert(sizeof(wrapper) > sizeof(Callback<>));

  BackendCallback<> wide = wrapper;
  moves = 0;
  BackendCallback<> wideMoved = std::move(wide);
  EXPECT_EQ(moves, 1);  // inside: moved along

  Callback<> narrow = wrapper;
  moves = 0;
  Callback<> narrowMoved = std::move(narrow);
  EXPECT_EQ(moves, 0);  // on the heap: the pointer moved

  wideMoved(Status());
  narrowMoved(Status());
  EXPECT_EQ(called, 2);
}

}  // namespace
}  // namespace reconsume::detail
