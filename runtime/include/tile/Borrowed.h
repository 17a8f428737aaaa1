//===- Borrowed.h - A call's view of a list -----------------------*- C++ -*-===//
//
// Launches take their arguments and constexprs as views: a braced list at
// the call (`{x, y, out, n}`, which needs no heap) or a vector.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_BORROWED_H
#define TILE_BORROWED_H

#include <cstddef>
#include <initializer_list>
#include <vector>

namespace tile {

/// A view of `T`s, only as a parameter: a braced list lives until the end
/// of the call's full expression.
template <class T> class Borrowed {
public:
  Borrowed() = default;
// GCC warns that the view does not extend the list's life, which is what
// the class says already.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  Borrowed(std::initializer_list<T> values)
      : data_(values.begin()), size_(values.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  Borrowed(const std::vector<T> &values)
      : data_(values.data()), size_(values.size()) {}
  size_t size() const { return size_; }
  const T &operator[](size_t i) const { return data_[i]; }
  const T *begin() const { return data_; }
  const T *end() const { return data_ + size_; }

private:
  const T *data_ = nullptr;
  size_t size_ = 0;
};

} // namespace tile

#endif // TILE_BORROWED_H
