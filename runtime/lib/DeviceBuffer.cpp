//===- DeviceBuffer.cpp - Owned device memory -----------------------------===//

#include "tile/DeviceBuffer.h"

#include "DriverApi.h"
#include "tile/Driver.h"
#include "tile/Error.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

using namespace tile;
using namespace tile::cu;

DeviceBuffer::DeviceBuffer(size_t n, Backend backend)
    : bytes(n), where(backend) {
  if (n == 0)
    return;
  if (where == Backend::Interpreter) {
    // Aligned like cudaMalloc, so kernels specialize the same way.
    void *host = std::aligned_alloc(256, (n + 255) / 256 * 256);
    if (!host)
      throw Error("out of host memory allocating " + std::to_string(n) +
                  " bytes");
    ptr = reinterpret_cast<uint64_t>(host);
    return;
  }
  CUdeviceptr address = 0;
  CUresult r = driver().cuMemAlloc(&address, n);
  if (r != CUDA_SUCCESS) {
    // Name the size: the usual cause is running out of device memory.
    try {
      checkCuda(r, "cuMemAlloc");
    } catch (const Error &e) {
      throw Error(std::string(e.what()) + " allocating " + std::to_string(n) +
                  " bytes");
    }
  }
  ptr = address;
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : ptr(std::exchange(other.ptr, 0)), bytes(std::exchange(other.bytes, 0)),
      where(other.where), elementType(std::move(other.elementType)) {}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    release();
    ptr = std::exchange(other.ptr, 0);
    bytes = std::exchange(other.bytes, 0);
    where = other.where;
    elementType = std::move(other.elementType);
  }
  return *this;
}

void DeviceBuffer::release() noexcept {
  // Errors are dropped: a destructor cannot throw, and after a sticky fault
  // the free fails though the memory goes away with the context anyway.
  if (ptr && where == Backend::Interpreter)
    std::free(reinterpret_cast<void *>(ptr));
  else if (ptr)
    if (const DriverApi *api = loadedDriver())
      api->cuMemFree(ptr);
  ptr = 0;
  bytes = 0;
}

void DeviceBuffer::copyFromHost(const void *src, size_t n) {
  if (n > bytes)
    throw Error("DeviceBuffer::copyFromHost: " + std::to_string(n) +
                " bytes do not fit in a buffer of " + std::to_string(bytes));
  if (n && where == Backend::Interpreter)
    std::memcpy(reinterpret_cast<void *>(ptr), src, n);
  else if (n)
    checkCuda(driver().cuMemcpyHtoD(ptr, src, n), "cuMemcpyHtoD");
}

void DeviceBuffer::copyToHost(void *dst, size_t n) const {
  if (n > bytes)
    throw Error("DeviceBuffer::copyToHost: " + std::to_string(n) +
                " bytes exceed a buffer of " + std::to_string(bytes));
  if (n && where == Backend::Interpreter)
    std::memcpy(dst, reinterpret_cast<const void *>(ptr), n);
  else if (n)
    checkCudaAfterLaunch(driver().cuMemcpyDtoH(dst, ptr, n), "cuMemcpyDtoH");
}

void DeviceBuffer::fill(uint8_t byte) {
  if (bytes && where == Backend::Interpreter)
    std::memset(reinterpret_cast<void *>(ptr), byte, bytes);
  else if (bytes)
    checkCuda(driver().cuMemsetD8(ptr, byte, bytes), "cuMemsetD8");
}

size_t tile::allocationBytesFrom(uint64_t address) {
  CUdeviceptr base = 0;
  size_t bytes = 0;
  checkCuda(driver().cuMemGetAddressRange(&base, &bytes, address),
            "cuMemGetAddressRange");
  return size_t(base + bytes - address);
}

void tile::fillMemory(Backend backend, uint64_t address, uint8_t byte,
                      size_t bytes, void *stream) {
  if (bytes && backend == Backend::Interpreter)
    std::memset(reinterpret_cast<void *>(address), byte, bytes);
  else if (bytes)
    checkCuda(driver().cuMemsetD8Async(address, byte, bytes,
                                       static_cast<CUstream>(stream)),
              "cuMemsetD8Async");
}

void tile::copyMemory(Backend backend, uint64_t dst, uint64_t src,
                      size_t bytes, void *stream) {
  if (bytes && backend == Backend::Interpreter)
    std::memcpy(reinterpret_cast<void *>(dst),
                reinterpret_cast<const void *>(src), bytes);
  else if (bytes)
    checkCuda(driver().cuMemcpyDtoDAsync(dst, src, bytes,
                                         static_cast<CUstream>(stream)),
              "cuMemcpyDtoDAsync");
}
