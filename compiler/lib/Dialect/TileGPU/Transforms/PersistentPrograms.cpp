//===- PersistentPrograms.cpp - A grid's programs run by resident CTAs ----===//
//
// A grid of more programs than the GPU holds at once runs in waves of
// CTAs: each starts, runs its program and exits, and the SM idles between
// one program's last store and the next one's first copies landing. A
// persistent kernel starts only the CTAs the GPU holds (the launcher
// launches min(programs, resident CTAs) of them along x), and each runs
// the programs its number apart:
//
//   for t = ctaid.x; t < px * py * pz; t += nctaid.x:
//     x = t % px, y = t / px % py, z = t / (px * py)
//     the kernel, with program ids x, y, z and numbers of programs px,
//     py, pz
//
// px, py and pz being the grid the launch asked for, in parameters it
// appends after every other. Programs x fastest, as the hardware numbers
// a grid's: the CTAs running at once run neighbouring programs, which
// share what they read in L2 as before. A warp-specialized loop inside
// then gets a producer that runs ahead into the next program
// (specializeWarps): its first blocks land while the consumers store this
// one's output.
//
// The CTAs share out the programs statically, so the cost model takes it
// only where every program runs the same loop (attention, not causal: a
// causal kernel's static shares were uneven and ran 0.8x; the grid's
// hardware scheduler gives the next program to the first free SM).
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "KLoop.h"
#include "ProgramLoop.h"
#include "WarpSpecialize.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/DebugLog.h"

#define DEBUG_TYPE "tilegpu-persistent-programs"

namespace mlir::tilegpu {
#define GEN_PASS_DEF_TILEGPUPERSISTENTPROGRAMS
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// Why the programs of `module`, whose kernels are `kernels`, cannot run
/// persistent, or "" where they can.
std::string checkPersistent(ModuleOp module, ArrayRef<func::FuncOp> kernels) {
  if (kernels.size() != 1)
    return "the module has more than one function";
  func::FuncOp func = kernels.front();
  if (func.getNumResults())
    return "the kernel returns values";
  if (module->hasAttr(TileGPUDialect::getStreamKAttrName()))
    return "the kernel runs stream-K";
  auto cluster = module->getAttrOfType<IntegerAttr>(
      TileGPUDialect::getClusterSplitAttrName());
  if (cluster && cluster.getInt() > 1)
    return "the K loop is split over a cluster";
  // Built in the kernel, a map would be built again for every program.
  if (module->hasAttr(TileGPUDialect::getDeviceTensorMapsAttrName()))
    return "the kernel builds its own tensor maps";
  // Programs that meet through memory, or that a dependent grid waits for
  // one by one, must each run as its own CTA.
  WalkResult meets = func.walk([](Operation *op) {
    return isa<tile::AtomicRMWOp, tile::AtomicCASOp, tile::GridDependencyOp>(op)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  if (meets.wasInterrupted())
    return "the programs meet through atomics or grid dependencies";
  return "";
}

/// Whether the cost model runs `func`'s programs persistent: a loop of its
/// body whose bounds are the same in every program pays (paysToPersist).
bool paysToRunPersistent(func::FuncOp func) {
  llvm::DenseMap<Value, bool> seen;
  return llvm::any_of(
      func.getBody().front().getOps<scf::ForOp>(), [&](scf::ForOp loop) {
        return isProgramInvariant(func, loop.getLowerBound(), seen) &&
               isProgramInvariant(func, loop.getUpperBound(), seen) &&
               paysToPersist(loop);
      });
}

/// Appends the programs the launch asked for along x, y and z (i32 each)
/// to `func`'s parameters.
SmallVector<Value> appendPrograms(func::FuncOp func) {
  MLIRContext *context = func.getContext();
  Type i32 = IntegerType::get(context, 32);
  SmallVector<Value> programs;
  const StringRef names[] = {"programs_x", "programs_y", "programs_z"};
  for (auto [axis, name] : llvm::enumerate(names)) {
    NamedAttrList axisAttr;
    axisAttr.append(TileGPUDialect::getProgramsParamAttrName(),
                    IntegerAttr::get(i32, axis));
    programs.push_back(appendLaunchParam(func, name, i32, axisAttr));
  }
  return programs;
}

/// Rewrites `func` into the loop over its programs (the file's comment).
void runPersistent(func::FuncOp func) {
  Block &entry = func.getBody().front();
  Location loc = func.getLoc();
  KernelBody kernel = KernelBody::get(func);
  SmallVector<Value> extents = appendPrograms(func);

  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Value cta = tile::ProgramIdOp::create(b, loc, 0);
  Value ctas = tile::NumProgramsOp::create(b, loc, 0);
  Value plane = arith::MulIOp::create(b, loc, extents[0], extents[1]);
  Value programs = arith::MulIOp::create(b, loc, plane, extents[2]);
  auto loop = scf::ForOp::create(b, loc, cta, programs, ctas);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  Value t = loop.getInductionVar();
  Value ids[] = {
      arith::RemSIOp::create(b, loc, t, extents[0]),
      arith::RemSIOp::create(
          b, loc, arith::DivSIOp::create(b, loc, t, extents[0]), extents[1]),
      arith::DivSIOp::create(b, loc, t, plane)};
  kernel.moveInto(loop.getBody()->getTerminator(), ids, extents);
}

struct PersistentPrograms
    : tilegpu::impl::TileGPUPersistentProgramsBase<PersistentPrograms> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    StringRef name = TileGPUDialect::getPersistentAttrName();
    auto asked = module->getAttrOfType<BoolAttr>(name);
    module->removeAttr(name);
    if (asked && !asked.getValue())
      return;
    SmallVector<func::FuncOp> kernels;
    module.walk([&](func::FuncOp func) {
      if (!func.isExternal())
        kernels.push_back(func);
    });
    if (std::string why = checkPersistent(module, kernels); !why.empty()) {
      LDBG() << "programs not persistent: " << why;
      return;
    }
    if (!asked && !paysToRunPersistent(kernels.front())) {
      LDBG() << "programs not persistent: no loop the cost model takes";
      return;
    }
    LDBG() << "programs persistent" << (asked ? " (asked for)" : "");
    module->setAttr(name, BoolAttr::get(module.getContext(), true));
    runPersistent(kernels.front());
  }
};

} // namespace
