//===- BarrierToLLVM.cpp - Barriers and proxy fences ----------------------===//
//
// A program is a CTA: its barrier is bar.sync 0, which also makes the
// memory accesses before it visible to the CTA after it (in a
// warp-specialized kernel's consumers, a named barrier of theirs; see
// emitBarrier). The proxy fence extends that to the async proxy (wgmma's
// operand reads). The consumer warpgroups' turns are named barriers from
// 2 on, one a warpgroup: g waits on 2 + g with the 128 threads of
// warpgroup g - 1 arriving, 256 in all.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

struct DebugBarrierToNVVM : OpConversionPattern<tile::DebugBarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::DebugBarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    emitBarrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

/// griddepcontrol, from sm_90; before it no grid starts early, and there
/// is nothing to wait for or to allow.
struct GridDependencyToNVVM : OpConversionPattern<tile::GridDependencyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::GridDependencyOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (getComputeCapability(op) >= 90)
      NVVM::GriddepcontrolOp::create(
          rewriter, op.getLoc(),
          op.getKind() == tile::GridDependencyKind::Wait
              ? NVVM::GridDepActionKind::wait
              : NVVM::GridDepActionKind::launch_dependents);
    rewriter.eraseOp(op);
    return success();
  }
};

struct FenceAsyncSharedToNVVM : OpConversionPattern<FenceAsyncSharedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FenceAsyncSharedOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *context = rewriter.getContext();
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op, NVVM::ProxyKindAttr::get(context, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
    return success();
  }
};

/// The named barrier of warpgroup 0's turn (0 is the CTA's barrier, 1 the
/// consumers').
constexpr int32_t kFirstTurnBarrier = 2;

/// One `instruction` ("bar.sync" or "bar.arrive") on a turn's named
/// barrier, 256 threads (the warpgroup that waits and the one that passes),
/// for each warpgroup g of `groups` that runs it: on barrier
/// kFirstTurnBarrier + barrierOf(g). The ids are immediates, one predicated
/// instruction a warpgroup, so that ptxas reserves only the barriers named
/// (with the id in a register it reserves all 16).
template <typename BarrierOf>
void emitTurnBarrier(ConversionPatternRewriter &rewriter, Operation *op,
                     StringRef instruction, ArrayRef<int32_t> groups,
                     BarrierOf barrierOf) {
  Location loc = op->getLoc();
  if (groups.empty()) {
    rewriter.eraseOp(op);
    return;
  }
  Value tid = NVVM::ThreadIdXOp::create(rewriter, loc, rewriter.getI32Type());
  Value group =
      LLVM::UDivOp::create(rewriter, loc, tid, i32Constant(rewriter, loc, 128));
  std::string ptx = "{ .reg .pred p;";
  for (int32_t g : groups)
    ptx += " setp.eq.u32 p, $0, " + std::to_string(g) + "; @p " +
           instruction.str() + " " +
           std::to_string(kFirstTurnBarrier + barrierOf(g)) + ", 256;";
  ptx += " }";
  emitPTX(rewriter, loc, ptx, "r", group, {}, /*hasSideEffects=*/true);
  rewriter.eraseOp(op);
}

/// The consumer warpgroups' numbers, 0 to num_warps / 4 - 1.
SmallVector<int32_t> getWarpgroups(Operation *op) {
  return llvm::to_vector(llvm::seq<int32_t>(0, getNumWarps(op) / 4));
}

struct WarpgroupTurnWaitToNVVM : OpConversionPattern<WarpgroupTurnWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpgroupTurnWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<int32_t> groups = getWarpgroups(op);
    if (op.getNotFirst())
      groups.erase(groups.begin());
    emitTurnBarrier(rewriter, op, "bar.sync", groups,
                    [](int32_t g) { return g; });
    return success();
  }
};

struct WarpgroupTurnPassToNVVM : OpConversionPattern<WarpgroupTurnPassOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WarpgroupTurnPassOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    SmallVector<int32_t> groups = getWarpgroups(op);
    int32_t count = groups.size();
    if (op.getNotLast())
      groups.pop_back();
    emitTurnBarrier(rewriter, op, "bar.arrive", groups,
                    [count](int32_t g) { return (g + 1) % count; });
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateBarrierToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<DebugBarrierToNVVM, GridDependencyToNVVM, FenceAsyncSharedToNVVM,
               WarpgroupTurnWaitToNVVM, WarpgroupTurnPassToNVVM>(
      converter, patterns.getContext());
}
