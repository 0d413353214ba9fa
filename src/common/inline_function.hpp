// A copyable function wrapper like std::function whose callable lives inside the wrapper when it
// fits (InlineSize bytes and a non-throwing move), whatever it captures.
//
// Why: libstdc++'s std::function keeps a callable inline only when it is trivially copyable and at
// most two pointers large, so every lambda capturing a std::shared_ptr — the completions of this
// library, which keep their operation alive that way — costs a heap allocation. On the hot paths
// (a send, an acknowledgement, a reconsume: several completions each) those allocations were a
// large share of the client's time. C++23's std::move_only_function is not available in C++20.
//
// Thread safety: a plain value, as std::function.
#pragma once

#include <cstddef>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

namespace reconsume::detail {

template <typename T>
inline constexpr bool kIsStdFunction = false;
template <typename R, typename... A>
inline constexpr bool kIsStdFunction<std::function<R(A...)>> = true;

template <typename Signature, std::size_t InlineSize = 56>
class InlineFunction;
// Whether T is an InlineFunction with a buffer larger than Size.
template <typename T, std::size_t Size>
inline constexpr bool kWiderThan = false;
template <typename S, std::size_t N, std::size_t Size>
inline constexpr bool kWiderThan<InlineFunction<S, N>, Size> = (N > Size);

template <typename R, typename... Args, std::size_t InlineSize>
class InlineFunction<R(Args...), InlineSize> {
 public:
  InlineFunction() noexcept = default;
  InlineFunction(std::nullptr_t) noexcept {}  // NOLINT: as std::function

  // Not from a wider InlineFunction: it never fits a narrower one's buffer, so each such
  // conversion would be a heap allocation nobody sees (callbacks widen towards the backends).
  template <typename F,
            typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, InlineFunction> &&
                                        !kWiderThan<std::decay_t<F>, InlineSize> &&
                                        std::is_invocable_r_v<R, std::decay_t<F>&, Args...>>>
  InlineFunction(F&& f) {  // NOLINT: as std::function
    using Target = std::decay_t<F>;
    if constexpr (std::is_pointer_v<Target> || std::is_member_pointer_v<Target> ||
                  kIsStdFunction<Target>) {
      if (!f) return;  // an empty target makes an empty wrapper, as std::function
    }
    if constexpr (kInline<Target>) {
      ::new (static_cast<void*>(storage_)) Target(std::forward<F>(f));
    } else {
      *reinterpret_cast<Target**>(storage_) = new Target(std::forward<F>(f));
    }
    ops_ = &kOps<Target>;
  }

  InlineFunction(const InlineFunction& other) : ops_(nullptr) {
    if (other.ops_) other.ops_->copy(storage_, other.storage_);
    ops_ = other.ops_;
  }
  InlineFunction(InlineFunction&& other) noexcept : ops_(other.ops_) {
    if (ops_) ops_->move(storage_, other.storage_);
    other.ops_ = nullptr;
  }
  InlineFunction& operator=(const InlineFunction& other) {
    if (this != &other) *this = InlineFunction(other);
    return *this;
  }
  InlineFunction& operator=(InlineFunction&& other) noexcept {
    if (this != &other) {
      reset();
      ops_ = other.ops_;
      if (ops_) ops_->move(storage_, other.storage_);
      other.ops_ = nullptr;
    }
    return *this;
  }
  InlineFunction& operator=(std::nullptr_t) noexcept {
    reset();
    return *this;
  }
  ~InlineFunction() { reset(); }

  R operator()(Args... args) const {
    if (!ops_) throw std::bad_function_call();
    return ops_->invoke(storage_, std::forward<Args>(args)...);
  }
  explicit operator bool() const noexcept { return ops_ != nullptr; }
  friend bool operator==(const InlineFunction& f, std::nullptr_t) noexcept { return !f; }

 private:
  template <typename Target>
  static constexpr bool kInline =
      sizeof(Target) <= InlineSize &&
      alignof(Target) <= alignof(std::max_align_t) && std::is_nothrow_move_constructible_v<Target>;

  struct Ops {
    R (*invoke)(unsigned char* storage, Args&&... args);
    void (*copy)(unsigned char* to, const unsigned char* from);
    void (*move)(unsigned char* to, unsigned char* from) noexcept;  // and ends `from`
    void (*destroy)(unsigned char* storage) noexcept;
  };

  template <typename Target>
  static Target& target(unsigned char* storage) {
    if constexpr (kInline<Target>) {
      return *std::launder(reinterpret_cast<Target*>(storage));
    } else {
      return **reinterpret_cast<Target**>(storage);
    }
  }
  template <typename Target>
  static const Target& target(const unsigned char* storage) {
    return target<Target>(const_cast<unsigned char*>(storage));
  }

  template <typename Target>
  static constexpr Ops kOps{
      [](unsigned char* storage, Args&&... args) -> R {
        return std::invoke(target<Target>(storage), std::forward<Args>(args)...);
      },
      [](unsigned char* to, const unsigned char* from) {
        if constexpr (kInline<Target>) {
          ::new (static_cast<void*>(to)) Target(target<Target>(from));
        } else {
          *reinterpret_cast<Target**>(to) = new Target(target<Target>(from));
        }
      },
      [](unsigned char* to, unsigned char* from) noexcept {
        if constexpr (kInline<Target>) {
          ::new (static_cast<void*>(to)) Target(std::move(target<Target>(from)));
          target<Target>(from).~Target();
        } else {
          *reinterpret_cast<Target**>(to) = *reinterpret_cast<Target**>(from);
        }
      },
      [](unsigned char* storage) noexcept {
        if constexpr (kInline<Target>) {
          target<Target>(storage).~Target();
        } else {
          delete *reinterpret_cast<Target**>(storage);
        }
      },
  };

  void reset() noexcept {
    if (ops_) ops_->destroy(storage_);
    ops_ = nullptr;
  }

  alignas(std::max_align_t) mutable unsigned char storage_[InlineSize];
  const Ops* ops_ = nullptr;
};

}  // namespace reconsume::detail
