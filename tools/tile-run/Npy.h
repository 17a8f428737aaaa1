//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Reads and writes the .npy format (versions 1.0, 2.0 and 3.0): a header
// that is a Python dict literal ('descr', 'fortran_order', 'shape') and the
// raw little-endian, C-order data.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TOOLS_TILE_RUN_NPY_H
#define TILEC_TOOLS_TILE_RUN_NPY_H

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace tilec::npy {

/// An array's data in host memory aligned to 64 bytes (so a kernel may
/// assume 16-byte aligned pointers).
class AlignedBuffer {
public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t bytes);
  uint8_t *data() const { return storage.get(); }
  size_t size() const { return bytes; }

private:
  struct Free {
    void operator()(uint8_t *p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> storage;
  size_t bytes = 0;
};

struct Array {
  /// The dtype as .npy writes it: '<f4', '|b1', '<u2'.
  std::string descr;
  /// 'f' float, 'i' signed, 'u' unsigned integer, 'b' bool.
  char kind = 'f';
  unsigned itemSize = 4;
  std::vector<int64_t> shape;
  AlignedBuffer data;

  size_t numElements() const;
  /// NumPy's name of the dtype: "float32", "uint16", "bool".
  std::string dtypeName() const;
};

/// Reads `path`; false with `error` set (why, without the path) otherwise.
bool read(const std::string &path, Array &array, std::string &error);
/// Writes `array` to `path` as .npy version 1.0; false with `error` set.
bool write(const std::string &path, const Array &array, std::string &error);

} // namespace tilec::npy

#endif // TILEC_TOOLS_TILE_RUN_NPY_H
