#include "vocab/histogram.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>

namespace nvmesim::sim {
namespace {
constexpr int64_t kSub = int64_t{1} << Histogram::kSubBits;     // 256
constexpr int64_t kHalf = kSub / 2;                              // 128
constexpr std::size_t kBuckets = kSub + (63 - Histogram::kSubBits) * kHalf;
}  // namespace

// To the end of the bucket's power-of-two range, at exactly that capacity: few
// reallocations, and a histogram's size depends only on its largest value.
void Histogram::grow_to(std::size_t bucket) {
  assert(bucket < kBuckets);
  const std::size_t half = static_cast<std::size_t>(kHalf);
  const std::size_t n = std::min(kBuckets, (bucket / half + 1) * half);
  buckets_.reserve(n);
  buckets_.resize(n, 0);
}

int64_t Histogram::bucket_low(std::size_t b) {
  if (b < static_cast<std::size_t>(kSub)) return static_cast<int64_t>(b);
  std::size_t r = b - kSub;
  int shift = static_cast<int>(r / kHalf) + 1;
  int64_t top = static_cast<int64_t>(r % kHalf) + kHalf;
  return top << shift;
}

int64_t Histogram::bucket_high(std::size_t b) {
  if (b < static_cast<std::size_t>(kSub)) return static_cast<int64_t>(b);
  std::size_t r = b - kSub;
  int shift = static_cast<int>(r / kHalf) + 1;
  return bucket_low(b) + (int64_t{1} << shift) - 1;
}

void Histogram::merge(const Histogram& o) {
  if (o.count_ == 0) return;
  if (o.buckets_.size() > buckets_.size()) grow_to(o.buckets_.size() - 1);
  for (std::size_t i = 0; i < o.buckets_.size(); ++i) buckets_[i] += o.buckets_[i];
  if (count_ == 0 || o.min_ < min_) min_ = o.min_;
  if (count_ == 0 || o.max_ > max_) max_ = o.max_;
  count_ += o.count_;
  sum_ += o.sum_;
  sum_sq_ += o.sum_sq_;
}

double Histogram::stddev() const {
  if (count_ < 2) return 0.0;
  // n * sum(x^2) - sum(x)^2 is exact in integers (n^2 var, never negative).
  const __int128 n = static_cast<__int128>(count_);
  const __int128 spread = n * sum_sq_ - sum_ * sum_;
  return std::sqrt(static_cast<double>(spread) / (static_cast<double>(count_) * static_cast<double>(count_ - 1)));
}

void Histogram::clear() {
  std::fill(buckets_.begin(), buckets_.end(), 0);
  count_ = 0;
  sum_ = 0;
  sum_sq_ = 0;
  min_ = max_ = 0;
}

int64_t Histogram::quantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  // Rank of the sample at quantile q (1-based), as HdrHistogram: ceil(q * count), >= 1.
  auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  if (rank == 0) rank = 1;
  uint64_t seen = 0;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    if (seen >= rank) return std::clamp(bucket_high(b), min_, max_);
  }
  return max_;
}

std::vector<std::pair<int64_t, double>> Histogram::cdf() const {
  std::vector<std::pair<int64_t, double>> out;
  uint64_t seen = 0;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    if (!buckets_[b]) continue;
    seen += buckets_[b];
    out.emplace_back(std::clamp(bucket_high(b), min_, max_),
                     static_cast<double>(seen) / static_cast<double>(count_));
  }
  return out;
}

}  // namespace nvmesim::sim
