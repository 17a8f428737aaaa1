//===- Error.h - The tile runtime's exception type --------------*- C++ -*-===//
//
// Every failure of the runtime (a malformed metadata file, a CUDA error, a bad
// kernel argument) is reported as a tile::Error whose message says what went
// wrong and, where one is involved, names the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ERROR_H
#define TILE_ERROR_H

#include <stdexcept>
#include <string>

namespace tile {

/// The one exception type thrown by the tile runtime.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message) : std::runtime_error(message) {}
};

} // namespace tile

#endif // TILE_ERROR_H
