#include "retry/default_random_source.hpp"

#include "common/random.hpp"

namespace reconsume::detail::retry {

RandomSource defaultRandomSource() {
  return &randomUniform;
}

}  // namespace reconsume::detail::retry
