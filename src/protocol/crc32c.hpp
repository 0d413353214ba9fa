// CRC32C (Castagnoli), the checksum of Pulsar's payload frames.
//
// Convention: crc32c(0, data, n) is the standard CRC32C of the n bytes (the value Pulsar writes
// after magic 0x0e01), and a checksum can be continued over more data by passing the previous
// result as the seed: crc32c(crc32c(0, a, n), b, m) == crc32c(0, a followed by b, n + m).
//
// crc32c() uses the SSE4.2 crc32 instruction when the CPU has it (checked once, at the first
// call) and a portable slicing-by-8 table otherwise. Both paths are exposed for tests and
// benchmarks.
//
// Thread safety: all functions are pure and may be called from any thread.
#pragma once

#include <cstddef>
#include <cstdint>

namespace reconsume::detail::protocol {

std::uint32_t crc32c(std::uint32_t seed, const void* data, std::size_t size) noexcept;

// The table-driven implementation; works on every CPU.
std::uint32_t crc32cPortable(std::uint32_t seed, const void* data, std::size_t size) noexcept;

// True when the CPU has SSE4.2 (and this build has the hardware path).
bool hasHardwareCrc32c() noexcept;

// The SSE4.2 implementation. Only call it when hasHardwareCrc32c() is true: on a CPU without
// SSE4.2 it stops the process with an illegal instruction.
std::uint32_t crc32cHardware(std::uint32_t seed, const void* data, std::size_t size) noexcept;

}  // namespace reconsume::detail::protocol
