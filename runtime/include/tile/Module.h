//===- Module.h - A loaded CUDA module --------------------------*- C++ -*-===//
//
// A CUmodule loaded from PTX (JIT-compiled by the driver) or a cubin, unloaded
// when the last shared_ptr to it goes away.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_MODULE_H
#define TILE_MODULE_H

#include "tile/Metadata.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tile {

/// Owns one CUmodule on device 0's primary context.
class Module {
public:
  /// JIT-compiles and loads PTX text. `kernelName` only labels errors; a JIT
  /// failure's message includes the driver's error log.
  static std::shared_ptr<Module> loadPTX(const std::string &ptx,
                                         std::string_view kernelName);
  /// Loads the PTX of the kernel `metadata` describes, after refusing a
  /// driver too old for its PTX ISA (checkDriverVersion) with an error that
  /// says so, where the driver would answer only "the provided PTX was
  /// compiled with an unsupported toolchain".
  static std::shared_ptr<Module> loadPTX(const std::string &ptx,
                                         const KernelMetadata &metadata);
  /// Loads a cubin (or fatbin) image.
  static std::shared_ptr<Module> loadCubin(const std::vector<char> &cubin,
                                           std::string_view kernelName);

  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  /// The entry `name` as a CUfunction. Throws tile::Error naming the kernel
  /// when the module has no such entry.
  void *function(const std::string &name) const;

  /// The CUmodule.
  void *handle() const { return module; }

private:
  explicit Module(void *module) : module(module) {}
  static std::shared_ptr<Module> load(const void *image, bool isPTX,
                                      std::string_view kernelName);

  void *module;
};

} // namespace tile

#endif // TILE_MODULE_H
