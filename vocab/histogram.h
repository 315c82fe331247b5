// Log-linear latency histogram in the manner of HdrHistogram: values below 2^kSubBits
// are exact, above that every power-of-two range is cut into 2^(kSubBits-1) equal
// buckets, so a bucket's width is at most 1/128 of its value (<= 0.8% relative error)
// from nanoseconds up to hours. Mean, min, max and standard deviation are kept exactly. Buckets are allocated
// up to the largest value recorded, not for the whole range: a run builds hundreds of
// histograms (per queue, job, drive) and most stay empty or short, and zeroing 58 KB for
// each was most of a short run's start-up.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace nvmesim::sim {

class Histogram {
 public:
  static constexpr int kSubBits = 8;  // 256 sub-buckets per doubling, half used past the first

  Histogram() = default;
  // Inline: one record per reaped I/O.
  void record(int64_t value) { record_n(value, 1); }
  void record_n(int64_t value, uint64_t count) {
    if (count == 0) return;
    if (value < 0) value = 0;
    const std::size_t b = bucket_of(value);
    if (b >= buckets_.size()) [[unlikely]] grow_to(b);
    buckets_[b] += count;
    if (count_ == 0 || value < min_) min_ = value;
    if (count_ == 0 || value > max_) max_ = value;
    count_ += count;
    sum_ += static_cast<__int128>(value) * count;
    sum_sq_ += static_cast<__int128>(value) * value * count;
  }
  void merge(const Histogram& other);
  void clear();

  uint64_t count() const { return count_; }
  int64_t min() const { return count_ ? min_ : 0; }
  int64_t max() const { return count_ ? max_ : 0; }
  double mean() const { return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0; }
  // Sample standard deviation (n - 1 in the denominator, as fio's): exact, from the sums
  // of the values and of their squares; 0 for fewer than two values.
  double stddev() const;
  // Value at quantile q in [0, 1]: the upper edge of the bucket holding it, clamped to max.
  int64_t quantile(double q) const;
  // f(lowest value, count) for every non-empty bucket, in increasing order (the lowest
  // value clamped to min: the bucket holds nothing below it).
  template <typename F>
  void for_each_bucket(F&& f) const {
    for (std::size_t b = 0; b < buckets_.size(); ++b)
      if (buckets_[b]) f(bucket_low(b) < min_ ? min_ : bucket_low(b), buckets_[b]);
  }
  // (value, cumulative fraction) at every non-empty bucket: a latency CDF.
  std::vector<std::pair<int64_t, double>> cdf() const;

  // Heap bytes of the buckets: they grow with the largest value recorded.
  std::size_t heap_bytes() const { return buckets_.capacity() * sizeof(uint64_t); }

  static std::size_t bucket_of(int64_t value) {
    if (value < 0) value = 0;
    constexpr int64_t kSub = int64_t{1} << kSubBits;
    if (value < kSub) return static_cast<std::size_t>(value);
    const int msb = 63 - std::countl_zero(static_cast<uint64_t>(value));  // >= kSubBits
    const int shift = msb - (kSubBits - 1);                              // keep kSubBits top bits
    const int64_t top = value >> shift;                                  // in [kSub / 2, kSub)
    return static_cast<std::size_t>(kSub + (shift - 1) * (kSub / 2) + (top - kSub / 2));
  }
  static int64_t bucket_low(std::size_t bucket);
  static int64_t bucket_high(std::size_t bucket);
  // The width of the bucket holding `value` (1 below 2^kSubBits, at most value / 128
  // above): the resolution of a quantile reported at `value`.
  static int64_t bucket_width_at(int64_t value) {
    const std::size_t b = bucket_of(value);
    return bucket_high(b) - bucket_low(b) + 1;
  }

 private:
  [[gnu::noinline]] void grow_to(std::size_t bucket);  // makes buckets_[bucket] exist

  std::vector<uint64_t> buckets_;  // up to the largest bucket recorded; absent ones are 0
  uint64_t count_ = 0;
  __int128 sum_ = 0;
  __int128 sum_sq_ = 0;  // values up to 2^63 ns would overflow it; latencies are far below
  int64_t min_ = 0;
  int64_t max_ = 0;
};

}  // namespace nvmesim::sim
