// A FIFO of 32-bit ids (request ids) on a power-of-two ring that grows when full: a
// job's completed-but-unreaped requests, appended by every drain and taken by every reap.
// std::deque paid a block check on each end per id.
#pragma once

#include <cassert>
#include <cstdint>
#include <vector>

namespace nvmesim {

class IdFifo {
 public:
  bool empty() const { return head_ == tail_; }
  std::size_t size() const { return tail_ - head_; }
  uint32_t front() const { return (*this)[0]; }
  // The i-th id from the front.
  uint32_t operator[](std::size_t i) const {
    assert(i < size());
    return buf_[(head_ + i) & mask_];
  }
  void push_back(uint32_t id) {
    if (size() == buf_.size()) grow();
    buf_[tail_++ & mask_] = id;
  }
  void pop_front() {
    assert(!empty());
    ++head_;
  }

 private:
  void grow() {
    std::vector<uint32_t> bigger(buf_.empty() ? 16 : 2 * buf_.size());
    for (std::size_t i = 0; i < size(); ++i) bigger[i] = (*this)[i];
    tail_ = size();
    head_ = 0;
    buf_.swap(bigger);
    mask_ = buf_.size() - 1;
  }

  std::vector<uint32_t> buf_;
  std::size_t mask_ = 0;
  std::size_t head_ = 0, tail_ = 0;  // counts; positions are these & mask_
};

}  // namespace nvmesim
