//===- Random.h - The tester's deterministic random numbers -----*- C++ -*-===//
//
// splitmix64 and integer arithmetic only: std::uniform_*_distribution may
// give other numbers under another standard library, and a seed must replay
// the same kernel on the build machine and on the GPU machine.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIFFERENTIAL_RANDOM_H
#define TILEC_DIFFERENTIAL_RANDOM_H

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace difftest {

class Rng {
public:
  explicit Rng(uint64_t seed) : state(seed ^ 0x5DEECE66DA3B9F21ull) {}

  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi], both included.
  int64_t range(int64_t lo, int64_t hi) {
    uint64_t span = uint64_t(hi - lo) + 1;
    return span == 0 ? int64_t(next()) : lo + int64_t(next() % span);
  }
  /// Uniform in [0, 1), 53 bits.
  double real() { return double(next() >> 11) * 0x1p-53; }
  bool chance(double p) { return real() < p; }
  template <class T> const T &pick(const std::vector<T> &items) {
    return items[size_t(range(0, int64_t(items.size()) - 1))];
  }
  template <class T> T pick(std::initializer_list<T> items) {
    return items.begin()[range(0, int64_t(items.size()) - 1)];
  }
  /// An index drawn with the given weights.
  size_t weighted(std::initializer_list<double> weights) {
    double total = 0;
    for (double w : weights)
      total += w;
    double x = real() * total;
    size_t i = 0;
    for (double w : weights) {
      if (x < w)
        return i;
      x -= w;
      ++i;
    }
    return weights.size() - 1;
  }

private:
  uint64_t state;
};

} // namespace difftest

#endif // TILEC_DIFFERENTIAL_RANDOM_H
