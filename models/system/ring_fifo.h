// A FIFO on a power-of-two ring that grows when full: a job's completed-but-unreaped
// request ids, a queue's MSI-X messages on their way, a device queue's postings in time
// order and the commands waiting for a unit. Each is appended and taken at every I/O;
// std::deque paid a block check on each end.
#pragma once

#include <cassert>
#include <cstdint>
#include <utility>
#include <vector>

namespace nvmesim {

template <typename T>
class RingFifo {
 public:
  bool empty() const { return head_ == tail_; }
  std::size_t size() const { return tail_ - head_; }
  // The i-th from the front.
  const T& operator[](std::size_t i) const {
    assert(i < size());
    return buf_[(head_ + i) & mask_];
  }
  const T& front() const { return (*this)[0]; }
  const T& back() const { return (*this)[size() - 1]; }
  void push_back(T v) {
    if (size() == buf_.size()) [[unlikely]] grow();
    buf_[tail_++ & mask_] = std::move(v);
  }
  template <typename... A>
  void emplace_back(A&&... a) {
    push_back(T(std::forward<A>(a)...));
  }
  void pop_front() {
    assert(!empty());
    ++head_;
  }
  // Appends v and moves it towards the front past every element that `less` puts after
  // it: after the last one not after it, as a stable sort would place it.
  template <typename Less>
  void insert_sorted(T v, Less less) {
    push_back(std::move(v));
    for (std::size_t j = tail_ - 1; j != head_ && less(buf_[j & mask_], buf_[(j - 1) & mask_]); --j)
      std::swap(buf_[j & mask_], buf_[(j - 1) & mask_]);
  }

 private:
  // Out of line: rare, and keeping it out lets push_back inline where it is used.
  [[gnu::noinline]] void grow() {
    std::vector<T> bigger(buf_.empty() ? 16 : 2 * buf_.size());
    for (std::size_t i = 0; i < size(); ++i) bigger[i] = std::move(buf_[(head_ + i) & mask_]);
    tail_ = size();
    head_ = 0;
    buf_.swap(bigger);
    mask_ = buf_.size() - 1;
  }

  std::vector<T> buf_;
  std::size_t mask_ = 0;
  std::size_t head_ = 0, tail_ = 0;  // counts; positions are these & mask_
};

// A job's completed requests, by id.
using IdFifo = RingFifo<uint32_t>;

}  // namespace nvmesim
