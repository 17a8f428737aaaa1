//===- Runner.cpp - Runs a generated kernel on each side ------------------===//

#include "Runner.h"

#include "tile/DeviceBuffer.h"
#include "tile/Driver.h"
#include "tile/Error.h"
#include "tile/JIT.h"
#include "tile/Kernel.h"
#include "tilec/Compiler.h"
#include "tilec/Interpreter/InterpreterArg.h"

#include <cstdlib>
#include <cstring>
#include <memory>

using namespace difftest;

namespace {

constexpr size_t kLeadGuard = 256;
constexpr size_t kTrailGuard = 4096;

std::string filenameOf(const KernelCase &c) {
  return "difftest-seed-" + std::to_string(c.seed) + ".tl";
}

/// 256-byte aligned host memory, as DeviceBuffer's for the interpreter: a
/// misaligned buffer is misaligned alike on both sides.
struct HostImage {
  explicit HostImage(const Image &image)
      : size(image.size()), data(static_cast<uint8_t *>(std::aligned_alloc(
                                     256, (image.size() + 255) / 256 * 256)),
                                 &std::free) {
    std::memcpy(data.get(), image.data(), size);
  }
  size_t size;
  std::unique_ptr<uint8_t, decltype(&std::free)> data;
};

/// The launch's arguments as the JIT would make them, with the buffers at
/// `addresses` (the data's, after the leading guard).
std::vector<tile::KernelArg>
kernelArgs(const KernelCase &c, const std::vector<uint64_t> &addresses) {
  std::vector<tile::KernelArg> args;
  for (const Param &p : c.params) {
    if (p.isBuffer) {
      const Buffer &b = c.buffers[p.index];
      args.push_back(
          tile::KernelArg::pointer(addresses[p.index],
                                   info(b.dtype).abi));
    } else {
      const Scalar &s = c.scalars[p.index];
      args.push_back(s.isFloat ? tile::KernelArg(s.f) : tile::KernelArg(s.i));
    }
  }
  return args;
}

/// The compiler's options for the case: argument types as the JIT derives
/// them (`ones`: the GPU's specialization of integers equal to 1).
tilec::CompileOptions compileOptions(const KernelCase &c,
                                     const std::vector<uint64_t> &addresses,
                                     bool ones) {
  tilec::CompileOptions o;
  o.kernel = c.kernel;
  o.numWarps = c.numWarps;
  o.numStages = c.numStages;
  o.arch = c.arch;
  o.clusterSplitK = c.clusterSplitK;
  for (const auto &[name, value] : c.constexprs)
    o.constexprs.emplace_back(name, tilec::HostScalar::ofInt(value));
  o.argTypes = tile::JITFunction::argTypes(kernelArgs(c, addresses), ones);
  return o;
}

} // namespace

ImageLayout difftest::layoutOf(const Buffer &b) {
  ImageLayout l;
  l.lead = kLeadGuard + size_t(b.offset) * bytesOf(b.dtype);
  l.data = b.size() * bytesOf(b.dtype);
  l.trail = kTrailGuard;
  return l;
}

uint8_t difftest::guardByte(size_t position) {
  return uint8_t(0xA7 ^ (position * 0x3D) ^ (position >> 8));
}

Image difftest::makeImage(const Buffer &b) {
  ImageLayout l = layoutOf(b);
  Image image(l.total());
  for (size_t i = 0; i < l.lead; ++i)
    image[i] = guardByte(i);
  unsigned size = bytesOf(b.dtype);
  for (size_t i = 0; i < b.size(); ++i)
    encode(b.dtype, b.init[i], &image[l.lead + i * size]);
  for (size_t i = l.lead + l.data; i < l.total(); ++i)
    image[i] = guardByte(i);
  return image;
}

RunOutcome difftest::runInterpreter(const KernelCase &c) {
  RunOutcome outcome;
  std::vector<HostImage> images;
  std::vector<uint64_t> addresses;
  for (const Buffer &b : c.buffers) {
    images.emplace_back(makeImage(b));
    addresses.push_back(reinterpret_cast<uint64_t>(images.back().data.get()) +
                        layoutOf(b).lead);
  }
  std::vector<tilec::InterpreterArg> args;
  for (const Param &p : c.params) {
    if (p.isBuffer) {
      const Buffer &b = c.buffers[p.index];
      args.push_back(tilec::InterpreterArg::buffer(
          reinterpret_cast<void *>(addresses[p.index]), layoutOf(b).data));
    } else {
      const Scalar &s = c.scalars[p.index];
      args.push_back(s.isFloat ? tilec::InterpreterArg::real(s.f)
                               : tilec::InterpreterArg::integer(s.i));
    }
  }
  tilec::CompileResult result = tilec::interpret(
      c.source, filenameOf(c), compileOptions(c, addresses, /*ones=*/false),
      c.grid[0], c.grid[1], c.grid[2], args);
  if (!result.ok) {
    outcome.error = result.diagnostics;
    return outcome;
  }
  for (const HostImage &image : images)
    outcome.images.emplace_back(image.data.get(),
                                image.data.get() + image.size);
  outcome.ok = true;
  return outcome;
}

/// Addresses with the images' alignment (only that matters to a compile).
static std::vector<uint64_t> alignedLikeImages(const KernelCase &c) {
  std::vector<uint64_t> addresses;
  for (const Buffer &b : c.buffers)
    addresses.push_back(0x100000 + layoutOf(b).lead);
  return addresses;
}

std::vector<std::string> difftest::argTypes(const KernelCase &c, bool ones) {
  return compileOptions(c, alignedLikeImages(c), ones).argTypes;
}

std::string difftest::compileForGPU(const KernelCase &c, bool cubin) {
  tilec::CompileOptions o =
      compileOptions(c, alignedLikeImages(c), /*ones=*/true);
  o.stopAfter = cubin ? tilec::Stage::Cubin : tilec::Stage::PTX;
  tilec::CompileResult result = tilec::compile(c.source, filenameOf(c), o);
  if (!result.ok)
    return result.diagnostics.empty() ? "compilation failed"
                                      : result.diagnostics;
  return "";
}

bool difftest::gpuAvailable(std::string *whyNot) {
  return tile::cudaAvailable(whyNot);
}

RunOutcome difftest::runGPU(const KernelCase &c) {
  RunOutcome outcome;
  try {
    std::vector<tile::DeviceBuffer> buffers;
    std::vector<uint64_t> addresses;
    for (const Buffer &b : c.buffers) {
      Image image = makeImage(b);
      buffers.emplace_back(image.size());
      buffers.back().copyFromHost(image.data(), image.size());
      addresses.push_back(buffers.back().address() + layoutOf(b).lead);
    }
    tile::JITFunction f(c.source, filenameOf(c), c.kernel);
    f.setCacheDirectory("");
    tile::Constexprs constexprs;
    for (const auto &[name, value] : c.constexprs)
      constexprs.push_back({name, tile::Constexpr(int64_t(value))});
    tile::JITOptions options;
    options.numWarps = c.numWarps;
    options.numStages = c.numStages;
    options.arch = c.arch;
    options.clusterSplitK = c.clusterSplitK;
    std::vector<tile::KernelArg> args = kernelArgs(c, addresses);
    f.launch(tile::Grid{c.grid[0], c.grid[1], c.grid[2]}, args, constexprs,
             options);
    tile::synchronize();
    for (const tile::DeviceBuffer &b : buffers) {
      Image image(b.size());
      b.copyToHost(image.data(), image.size());
      outcome.images.push_back(std::move(image));
    }
    outcome.ok = true;
  } catch (const std::exception &e) {
    outcome.error = e.what();
    // A fault poisons the context (every later call fails too); a compile
    // error does not.
    try {
      tile::synchronize();
    } catch (const std::exception &) {
      outcome.fatal = true;
    }
  }
  return outcome;
}
