//===- DeviceBuffer.h - Owned device memory ---------------------*- C++ -*-===//
//
// A move-only owner of one cuMemAlloc allocation on device 0.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DEVICEBUFFER_H
#define TILE_DEVICEBUFFER_H

#include "tile/Backend.h"
#include "tile/HostTypes.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <string>
#include <vector>

namespace tile {

/// Device memory freed on destruction. Throws tile::Error if CUDA is
/// unavailable or an allocation or copy fails.
class DeviceBuffer {
public:
  /// Allocates `bytes` bytes (uninitialized): device memory for CUDA, host
  /// memory (256-byte aligned) for the interpreter. A zero-byte buffer has
  /// address 0 and allocates nothing.
  explicit DeviceBuffer(size_t bytes, Backend backend = Backend::CUDA);
  ~DeviceBuffer();

  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  /// The device address (CUdeviceptr), or the host address for the
  /// interpreter.
  uint64_t address() const { return ptr; }
  Backend backend() const { return where; }
  /// The size in bytes.
  size_t size() const { return bytes; }

  /// Copies `n` bytes from host memory to the start of the buffer.
  void copyFromHost(const void *src, size_t n);
  /// Copies the first `n` bytes of the buffer to host memory.
  void copyToHost(void *dst, size_t n) const;
  /// Sets every byte of the buffer to `byte`.
  void fill(uint8_t byte);

  /// The element type, from which the JIT infers pointer types; nullopt
  /// when unknown.
  std::optional<DType> dtype() const { return elementType; }
  void setDType(std::optional<DType> dtype) { elementType = dtype; }

  /// A buffer holding a copy of `data`, typed after T (hostDType<T>()).
  template <class T>
  static DeviceBuffer fromHost(const std::vector<T> &data,
                               Backend backend = Backend::CUDA) {
    static_assert(std::is_trivially_copyable<T>::value,
                  "device buffers hold trivially copyable elements");
    DeviceBuffer buffer(data.size() * sizeof(T), backend);
    buffer.copyFromHost(data.data(), buffer.size());
    buffer.setDType(hostDType<T>());
    return buffer;
  }

  /// The buffer's contents as size() / sizeof(T) elements.
  template <class T> std::vector<T> toHost() const {
    static_assert(std::is_trivially_copyable<T>::value,
                  "device buffers hold trivially copyable elements");
    std::vector<T> data(bytes / sizeof(T));
    copyToHost(data.data(), data.size() * sizeof(T));
    return data;
  }

private:
  void release() noexcept;

  uint64_t ptr = 0;
  size_t bytes = 0;
  Backend where = Backend::CUDA;
  std::optional<DType> elementType;
};

/// The bytes from `address` to the end of the CUDA allocation holding it
/// (cuMemGetAddressRange): what a raw pointer's launch may reach. Throws
/// tile::Error for an address no allocation holds.
size_t allocationBytesFrom(uint64_t address);

/// Fills `bytes` bytes at `address` with `byte`, and copies `bytes` bytes
/// from `src` to `dst`: ordered on `stream` for CUDA (null: the default
/// stream), at once in host memory for the interpreter.
void fillMemory(Backend backend, uint64_t address, uint8_t byte, size_t bytes,
                void *stream = nullptr);
void copyMemory(Backend backend, uint64_t dst, uint64_t src, size_t bytes,
                void *stream = nullptr);

} // namespace tile

#endif // TILE_DEVICEBUFFER_H
