// Tests of Rng: known answers for splitmix64 and xoshiro256**, determinism, and the seed of a key.
#include "kbx/stats/rng.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace kbx::stats {
namespace {

std::vector<std::uint64_t> first_outputs(Rng rng, int count) {
  std::vector<std::uint64_t> out;
  for (int i = 0; i < count; ++i) {
    out.push_back(rng.next());
  }
  return out;
}

TEST(Rng, Splitmix64MatchesItsReferenceOutputsFromZero) {
  std::uint64_t state = 0;
  EXPECT_EQ(splitmix64(state), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(splitmix64(state), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(splitmix64(state), 0x06C45D188009454FULL);
}

TEST(Rng, Xoshiro256StarStarMatchesItsReferenceOutputs) {
  EXPECT_EQ(first_outputs(Rng(std::array<std::uint64_t, 4>{1, 2, 3, 4}), 4),
            (std::vector<std::uint64_t>{11520, 0, 1509978240, 1215971899390074240ULL}));
}

TEST(Rng, TheSameSeedGivesTheSameStreamAndAnotherSeedAnother) {
  EXPECT_EQ(first_outputs(Rng(42), 100), first_outputs(Rng(42), 100));
  EXPECT_NE(first_outputs(Rng(42), 4), first_outputs(Rng(43), 4));
}

TEST(Rng, ASeedIsExpandedBySplitmix64) {
  std::uint64_t state = 7;
  std::array<std::uint64_t, 4> words{};
  for (auto& w : words) {
    w = splitmix64(state);
  }
  EXPECT_EQ(first_outputs(Rng(7), 8), first_outputs(Rng(words), 8));
}

TEST(Rng, UniformStaysInTheHalfOpenUnitIntervalAndAveragesOneHalf) {
  Rng rng(1);
  double sum = 0;
  constexpr int count = 100'000;
  for (int i = 0; i < count; ++i) {
    double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / count, 0.5, 5 * 0.2887 / std::sqrt(count));  // 5 standard errors
}

TEST(Rng, ATaskKeysSeedIsPinnedSoReportsStayReproducibleAcrossReleases) {
  EXPECT_EQ(seed_for("Math/softmax.py"), 15447111757353393091ULL);  // FNV-1a 64
  EXPECT_NE(seed_for("Math/softmax.py"), seed_for("Math/softmax2.py"));
}

}  // namespace
}  // namespace kbx::stats
