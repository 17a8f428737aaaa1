//===- JITSupport.h - What JIT.cpp and Autotune.cpp share -------*- C++ -*-===//

#ifndef TILE_LIB_JITSUPPORT_H
#define TILE_LIB_JITSUPPORT_H

#include "tile/Driver.h"
#include "tile/JIT.h"
#include "tilec/Tuning.h"

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tile::detail {

/// A constexpr as host code sees it (and back: Constexpr::fromHost).
tilec::HostScalar toScalar(const Constexpr &value);

/// What a disk-cache entry was made by: tilec's version, the compiler
/// library's file and the libdevice it links.
std::string compilerIdentity();

/// The compute capability a launch's kernel is compiled for: its arch's
/// (sm_90a: 90), else, on the GPU, the device's; 90 where neither says.
unsigned targetCapability(const JITOptions &options);

/// Makes `device` the calling thread's for a scope, where one is chosen
/// (>= 0) and differs.
class DeviceScope {
public:
  explicit DeviceScope(int device) : previous(currentDevice()) {
    if (device >= 0 && device != previous)
      setDevice(device);
    else
      previous = -1;
  }
  ~DeviceScope() {
    if (previous >= 0)
      setDevice(previous);
  }
  DeviceScope(const DeviceScope &) = delete;
  DeviceScope &operator=(const DeviceScope &) = delete;

private:
  int previous;
};

} // namespace tile::detail

namespace tile {
struct JITFunction::Tuning {
  /// The file's decorators (its configs are used unless autotune() gave
  /// others; its heuristics always).
  std::shared_ptr<const tilec::KernelTuning> decorators;
  Autotune autotune;
  bool configsFromDecorators = false;
  /// The kernel's non-constexpr parameters, which the launch's arguments
  /// are, in order.
  std::vector<std::string> runtimeParams;
  /// The chosen config's index by key.
  std::mutex mutex;
  std::unordered_map<std::string, size_t> chosen;
  std::vector<TuningReport> reports;
};

} // namespace tile

#endif // TILE_LIB_JITSUPPORT_H
