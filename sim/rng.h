// Random streams. Every stream is derived from (scenario seed, stream key) by hashing,
// not by drawing from a parent generator, so adding a drive or a job leaves every other
// component's stream unchanged. The generator is xoshiro256** (small, fast, well
// studied); distributions are written here so results do not depend on the standard
// library's unspecified <random> distribution algorithms.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

namespace nvmesim::sim {

constexpr uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A stable key for a component: its kind and indexes, e.g. stream_key("device", 2).
constexpr uint64_t stream_key(std::string_view kind, uint64_t a = 0, uint64_t b = 0) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the kind
  for (char c : kind) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  uint64_t x = h ^ (a * 0x9E3779B97F4A7C15ull);
  x = splitmix64(x) ^ b;
  return splitmix64(x);
}

class Rng {
 public:
  Rng(uint64_t seed, uint64_t key) {
    uint64_t x = seed ^ (key * 0xD1B54A32D192ED03ull);
    for (auto& w : s_) w = splitmix64(x);
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1), 53 bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in (0, 1], safe for log().
  double uniform_pos() { return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53; }
  uint64_t below(uint64_t n) { return static_cast<uint64_t>(uniform() * static_cast<double>(n)); }
  double exponential(double mean) { return -mean * std::log(uniform_pos()); }
  // Standard normal by Box-Muller; keeps the second value for the next call.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u1 = uniform_pos(), u2 = uniform();
    double r = std::sqrt(-2.0 * std::log(u1));
    spare_ = r * std::sin(2.0 * M_PI * u2);
    has_spare_ = true;
    return r * std::cos(2.0 * M_PI * u2);
  }

 private:
  static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace nvmesim::sim
