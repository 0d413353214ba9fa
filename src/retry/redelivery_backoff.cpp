// MultiplierRedeliveryBackoff (Pulsar PIP-106 / PIP-130; SPEC.md §1).
#include "reconsume/redelivery_backoff.hpp"

#include <charconv>
#include <cmath>

#include "common/duration.hpp"
#include "reconsume/error.hpp"

namespace reconsume {

MultiplierRedeliveryBackoff::MultiplierRedeliveryBackoff()
    : MultiplierRedeliveryBackoff(Options{}) {}

MultiplierRedeliveryBackoff::MultiplierRedeliveryBackoff(Options options) : options_(options) {
  using detail::formatDuration;
  if (options.min.count() <= 0) {
    throw Error(errc::invalid_argument, "redelivery backoff min " + formatDuration(options.min) +
                                            " must be greater than zero");
  }
  if (auto why = detail::tooLong(options.max); !why.empty()) {
    throw Error(errc::invalid_argument, "redelivery backoff max " + why);
  }
  if (options.max < options.min) {
    throw Error(errc::invalid_argument, "redelivery backoff max " + formatDuration(options.max) +
                                            " is less than min " + formatDuration(options.min));
  }
  if (!(options.multiplier > 1.0) || !std::isfinite(options.multiplier)) {
    char number[32];
    auto [end, ec] = std::to_chars(number, number + sizeof number, options.multiplier);
    throw Error(errc::invalid_argument, "redelivery backoff multiplier " +
                                            std::string(number, end) +
                                            " must be a finite number greater than 1");
  }
}

std::chrono::milliseconds MultiplierRedeliveryBackoff::next(int redeliveryCount) const {
  if (redeliveryCount <= 0) return options_.min;
  // In double: a large count gives +inf or a huge value, which the cap turns into max.
  double scaled = static_cast<double>(options_.min.count()) *
                  std::pow(options_.multiplier, static_cast<double>(redeliveryCount));
  if (!(scaled < static_cast<double>(options_.max.count()))) return options_.max;
  // Whole milliseconds, dropping the fraction as the Java client does.
  return std::chrono::milliseconds(static_cast<std::int64_t>(scaled));
}

}  // namespace reconsume
