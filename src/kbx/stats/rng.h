// Rng: a small deterministic random generator for resampling (xoshiro256**, seeded by splitmix64).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "kbx/common/hash.h"

namespace kbx::stats {

/// One step of splitmix64: advances `state` and returns the next output. Expands one 64-bit seed
/// into well-mixed words (xoshiro's authors' recommended seeding).
constexpr std::uint64_t splitmix64(std::uint64_t& state) {
  state += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// xoshiro256** (Blackman and Vigna, 2018). The same seed gives the same stream on every platform,
/// compiler and build type: reports that resample are reproducible run to run. Not thread-safe;
/// not for anything that needs unpredictability.
class Rng {
 public:
  explicit constexpr Rng(std::uint64_t seed) {
    for (std::uint64_t& word : s_) {
      word = splitmix64(seed);
    }
  }

  /// A generator in the given state (not all zero), for known-answer tests.
  explicit constexpr Rng(const std::array<std::uint64_t, 4>& state) : s_(state) {}

  /// The next 64 random bits.
  constexpr std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform in [0, 1), on a grid of 2^-53 (every double there is equally likely).
  constexpr double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  std::array<std::uint64_t, 4> s_{};
};

/// A seed derived from `key` (a task key, "Math/softmax.py") that is the same in every run, build
/// and release: FNV-1a of the bytes.
inline std::uint64_t seed_for(std::string_view key) { return fnv1a64(key); }

}  // namespace kbx::stats
