//===- Utility.cpp - Helpers shared by the TileGPU lowering patterns ------===//

#include "Utility.h"

#include "tilec/Dialect/Tile/Analysis/AxisInfo.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tilegpu;

Value mlir::tilegpu::i32Constant(OpBuilder &b, Location loc, int64_t value) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                  b.getI32IntegerAttr(value));
}

/// Whether the programs of `from`'s kernel run as thread-block clusters.
static bool runsAsClusters(Operation *from) {
  auto module = from->getParentOfType<ModuleOp>();
  auto split = module ? module->getAttrOfType<IntegerAttr>(
                            TileGPUDialect::getClusterSplitAttrName())
                      : IntegerAttr();
  return split && split.getInt() > 1;
}

/// The special register `X`, `Y` or `Z` of `axis` (0, 1, 2).
template <typename X, typename Y, typename Z>
static Value readAxis(OpBuilder &b, Location loc, unsigned axis) {
  Type i32 = b.getI32Type();
  if (axis == 0)
    return X::create(b, loc, i32);
  if (axis == 1)
    return Y::create(b, loc, i32);
  return Z::create(b, loc, i32);
}

Value mlir::tilegpu::emitProgramId(OpBuilder &b, Location loc, Operation *from,
                                   unsigned axis) {
  if (runsAsClusters(from))
    return readAxis<NVVM::ClusterIdXOp, NVVM::ClusterIdYOp, NVVM::ClusterIdZOp>(
        b, loc, axis);
  return readAxis<NVVM::BlockIdXOp, NVVM::BlockIdYOp, NVVM::BlockIdZOp>(b, loc,
                                                                        axis);
}

Value mlir::tilegpu::emitNumPrograms(OpBuilder &b, Location loc,
                                     Operation *from, unsigned axis) {
  if (runsAsClusters(from))
    return readAxis<NVVM::ClusterDimXOp, NVVM::ClusterDimYOp,
                    NVVM::ClusterDimZOp>(b, loc, axis);
  return readAxis<NVVM::GridDimXOp, NVVM::GridDimYOp, NVVM::GridDimZOp>(b, loc,
                                                                        axis);
}

/// The side of a tilegpu.warp_specialize that code in `block` runs on.
enum class Side { All, Producer, Consumers };
static Side getSide(Block *block) {
  for (Region *region = block ? block->getParent() : nullptr; region;
       region = region->getParentRegion())
    if (auto split = dyn_cast<WarpSpecializeOp>(region->getParentOp()))
      return region == &split.getProducer() ? Side::Producer : Side::Consumers;
  return Side::All;
}

Value mlir::tilegpu::emitIsFirstThread(OpBuilder &b, Location loc) {
  Block *block = b.getInsertionBlock();
  int64_t first = getSide(block) == Side::Producer
                      ? 32 * getNumWarps(block->getParentOp())
                      : 0;
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, tid,
                              i32Constant(b, loc, first));
}

Value mlir::tilegpu::emitClusterAddress(OpBuilder &b, Location loc,
                                        Value address, Value cta) {
  return emitPTX(b, loc, "mapa.shared::cluster.u64 $0, $1, $2;", "=l,l,r",
                 ValueRange{address, cta}, {b.getI64Type()},
                 /*hasSideEffects=*/false)
      .front();
}

Value mlir::tilegpu::emitPairedRank(OpBuilder &b, Location loc, Value paired) {
  Value rank = NVVM::ClusterId::create(b, loc, b.getI32Type());
  return LLVM::SelectOp::create(
      b, loc, paired, LLVM::XOrOp::create(b, loc, rank, i32Constant(b, loc, 1)),
      rank);
}

void mlir::tilegpu::emitBarrier(OpBuilder &b, Location loc) {
  Block *block = b.getInsertionBlock();
  switch (getSide(block)) {
  case Side::All:
    NVVM::Barrier0Op::create(b, loc);
    return;
  case Side::Consumers: {
    // Barrier 0 is the whole CTA's.
    Value threads = i32Constant(b, loc, 32 * getNumWarps(block->getParentOp()));
    NVVM::BarrierOp::create(b, loc, Type(), i32Constant(b, loc, 1), threads,
                            NVVM::BarrierReductionAttr(), Value());
    return;
  }
  case Side::Producer:
    llvm_unreachable("a warp-specialized producer runs on one thread: it "
                     "has no barrier to meet");
  }
}

ThreadLayout mlir::tilegpu::getThreadLayout(Type tensorType) {
  std::optional<ThreadLayout> layout =
      ThreadLayout::get(cast<RankedTensorType>(tensorType));
  assert(layout && "tensor without a distributed layout after layout passes");
  return *layout;
}

unsigned mlir::tilegpu::getMemoryBits(Type elementType) {
  return getMemoryType(elementType).getIntOrFloatBitWidth();
}

Type mlir::tilegpu::getMemoryType(Type elementType) {
  Builder b(elementType.getContext());
  if (elementType.isInteger(1))
    return b.getI8Type();
  if (isa<LLVM::LLVMPointerType>(elementType))
    return b.getI64Type();
  if (tile::isFP8(elementType))
    return b.getI8Type(); // fp8's bits
  return elementType;
}

Value mlir::tilegpu::toMemoryForm(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isInteger(1))
    return LLVM::ZExtOp::create(b, loc, b.getI8Type(), v);
  if (isa<LLVM::LLVMPointerType>(v.getType()))
    return LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), v);
  return v;
}

Value mlir::tilegpu::fromMemoryForm(OpBuilder &b, Location loc, Value v,
                                    Type elementType) {
  if (elementType.isInteger(1))
    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, v,
                                LLVM::ConstantOp::create(b, loc, v.getType(),
                                                         b.getI8IntegerAttr(0)));
  if (isa<LLVM::LLVMPointerType>(elementType))
    return LLVM::IntToPtrOp::create(b, loc, elementType, v);
  return v;
}

/// Adds to `base` the moves of the bits of `id` (see ThreadLayout). Runs of
/// bits moving one dimension by consecutive powers of two become one
/// shift, mask and multiply, so a blocked layout costs what its
/// (id % count) * size formula does.
static void addMoves(OpBuilder &b, Location loc, Value id,
                     ArrayRef<LayoutBasis> bases, SmallVector<Value> &base) {
  for (unsigned i = 0; i < bases.size();) {
    LayoutBasis first = bases[i];
    unsigned n = 1;
    while (i + n < bases.size() && !first.isZero() &&
           bases[i + n].dim == first.dim &&
           bases[i + n].offset == first.offset << n)
      ++n;
    if (!first.isZero()) {
      Value bits =
          i ? (Value)LLVM::LShrOp::create(b, loc, id, i32Constant(b, loc, i))
            : id;
      // An id has exactly as many bits as it has bases: the top run needs
      // no mask.
      if (i + n < bases.size())
        bits = LLVM::AndOp::create(b, loc, bits,
                                   i32Constant(b, loc, (1 << n) - 1));
      Value move = first.offset == 1
                       ? bits
                       : (Value)LLVM::MulOp::create(
                             b, loc, bits, i32Constant(b, loc, first.offset));
      Value &d = base[first.dim];
      d = d ? (Value)LLVM::AddOp::create(b, loc, d, move) : move;
    }
    i += n;
  }
}

/// The lane and warp ids of this thread.
static std::pair<Value, Value> emitLaneAndWarp(OpBuilder &b, Location loc) {
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value c32 = i32Constant(b, loc, 32);
  return {LLVM::URemOp::create(b, loc, tid, c32),
          LLVM::UDivOp::create(b, loc, tid, c32)};
}

/// Per root dimension, the moves of this thread's warp bits (as `layout`
/// has them) and of its lane bits as `laneBases` has them.
static SmallVector<Value> emitMovesOf(OpBuilder &b, Location loc,
                                      const ThreadLayout &layout,
                                      ArrayRef<LayoutBasis> laneBases) {
  auto [lane, warp] = emitLaneAndWarp(b, loc);
  SmallVector<Value> base(layout.getRootRank());
  addMoves(b, loc, lane, laneBases, base);
  addMoves(b, loc, warp, layout.getWarpBases(), base);
  for (Value &d : base)
    if (!d)
      d = i32Constant(b, loc, 0);
  return base;
}

SmallVector<Value> mlir::tilegpu::emitThreadBase(OpBuilder &b, Location loc,
                                                 const ThreadLayout &layout) {
  return emitMovesOf(b, loc, layout, layout.getLaneBases());
}

SmallVector<Value>
mlir::tilegpu::emitThreadBase(OpBuilder &b, Location loc,
                              const ThreadLayout &layout,
                              ArrayRef<LayoutBasis> laneBases) {
  return emitMovesOf(b, loc, layout, laneBases);
}

SmallVector<Value> mlir::tilegpu::emitWarpBase(OpBuilder &b, Location loc,
                                               const ThreadLayout &layout) {
  return emitMovesOf(b, loc, layout, {});
}

SmallVector<SmallVector<Value>>
mlir::tilegpu::emitElementIndices(OpBuilder &b, Location loc,
                                  const ThreadLayout &layout) {
  unsigned rank = layout.getRootRank();
  SmallVector<Value> base = emitThreadBase(b, loc, layout);
  SmallVector<SmallVector<Value>> indices;
  for (unsigned e = 0; e < layout.getNumElems(); ++e) {
    SmallVector<int64_t> offset = layout.getElemOffset(e);
    SmallVector<Value> index;
    for (unsigned d = 0; d < rank; ++d) {
      if (layout.getTensorDim(d) < 0)
        continue;
      // Moves never carry (see ThreadLayout): an or is an add.
      index.push_back(offset[d] ? (Value)LLVM::OrOp::create(
                                      b, loc, base[d],
                                      i32Constant(b, loc, offset[d]))
                                : base[d]);
    }
    indices.push_back(index);
  }
  return indices;
}

Value mlir::tilegpu::packVector(OpBuilder &b, Location loc,
                                ArrayRef<Value> elems) {
  if (elems.size() == 1)
    return elems.front();
  auto type = VectorType::get(int64_t(elems.size()), elems.front().getType());
  Value vec = LLVM::UndefOp::create(b, loc, type);
  for (auto [i, e] : llvm::enumerate(elems))
    vec = LLVM::InsertElementOp::create(b, loc, vec, e, i32Constant(b, loc, i));
  return vec;
}

SmallVector<Value> mlir::tilegpu::unpackVector(OpBuilder &b, Location loc,
                                               Value v, unsigned count) {
  if (count == 1)
    return {v};
  SmallVector<Value> elems;
  for (unsigned i = 0; i < count; ++i)
    elems.push_back(
        LLVM::ExtractElementOp::create(b, loc, v, i32Constant(b, loc, i)));
  return elems;
}

LLVM::CallOp mlir::tilegpu::callExternal(OpBuilder &b, Location loc,
                                         Operation *from, StringRef symbol,
                                         Type resultType, ValueRange args) {
  auto module = from->getParentOfType<ModuleOp>();
  auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(symbol);
  if (!function) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto type = LLVM::LLVMFunctionType::get(resultType,
                                            llvm::to_vector(args.getTypes()));
    function = LLVM::LLVMFuncOp::create(b, loc, symbol, type);
  }
  return LLVM::CallOp::create(b, loc, function, args);
}

Value mlir::tilegpu::callLibdevice(OpBuilder &b, Location loc,
                                   Operation *from, StringRef symbol,
                                   Type resultType, ValueRange args) {
  return callExternal(b, loc, from, symbol, resultType, args).getResult();
}

std::string mlir::tilegpu::getPTXOperandList(unsigned first, unsigned count) {
  if (count == 1)
    return "$" + std::to_string(first);
  std::string s = "{ ";
  for (unsigned i = 0; i < count; ++i)
    s += (i ? ", $" : "$") + std::to_string(first + i);
  return s + " }";
}

SmallVector<Value> mlir::tilegpu::emitPTX(OpBuilder &b, Location loc,
                                          StringRef asmString,
                                          StringRef constraints,
                                          ValueRange operands,
                                          TypeRange resultTypes,
                                          bool hasSideEffects) {
  MLIRContext *context = b.getContext();
  Type resultType;
  if (resultTypes.empty())
    resultType = LLVM::LLVMVoidType::get(context);
  else if (resultTypes.size() == 1)
    resultType = resultTypes.front();
  else
    resultType = LLVM::LLVMStructType::getLiteral(
        context, SmallVector<Type>(resultTypes.begin(), resultTypes.end()));
  auto asmDialect = LLVM::AsmDialectAttr::get(context, LLVM::AsmDialect::AD_ATT);
  auto op = LLVM::InlineAsmOp::create(
      b, loc, resultType, operands, asmString, constraints, hasSideEffects,
      /*is_align_stack=*/false, LLVM::TailCallKind::None, asmDialect,
      /*operand_attrs=*/ArrayAttr());
  SmallVector<Value> results;
  if (resultTypes.size() == 1)
    results.push_back(op.getResult(0));
  else
    for (unsigned i = 0; i < resultTypes.size(); ++i)
      results.push_back(
          LLVM::ExtractValueOp::create(b, loc, op.getResult(0), i));
  return results;
}

Value mlir::tilegpu::getSharedMemoryAt(OpBuilder &b, Location loc,
                                       Operation *op, int64_t offset,
                                       int64_t bytes) {
  constexpr unsigned kSharedAddressSpace = 3;
  auto module = op->getParentOfType<ModuleOp>();
  auto recorded = module->getAttrOfType<IntegerAttr>(
      TileGPUDialect::getSharedBytesAttrName());
  if (!recorded || recorded.getInt() < offset + bytes)
    module->setAttr(TileGPUDialect::getSharedBytesAttrName(),
                    b.getI32IntegerAttr(offset + bytes));
  // extern __shared__ char global_smem[], 1024-byte aligned so that the
  // buffers' offsets (aligned to their swizzle patterns) are aligned
  // addresses too, as wgmma's descriptors want.
  auto global = module.lookupSymbol<LLVM::GlobalOp>("global_smem");
  if (!global) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    global = LLVM::GlobalOp::create(
        b, module.getLoc(), LLVM::LLVMArrayType::get(b.getI8Type(), 0),
        /*isConstant=*/false, LLVM::Linkage::External, "global_smem",
        /*value=*/Attribute(), /*alignment=*/1024, kSharedAddressSpace);
  }
  Value base = LLVM::AddressOfOp::create(b, loc, global);
  if (!offset)
    return base;
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ValueRange{i32Constant(b, loc, offset)});
}

Value mlir::tilegpu::getSharedMemoryBase(OpBuilder &b, Location loc,
                                         Operation *op, int64_t bytes) {
  int64_t scratch = 0;
  if (auto attr = op->getAttrOfType<IntegerAttr>(
          TileGPUDialect::getScratchOffsetAttrName()))
    scratch = attr.getInt();
  return getSharedMemoryAt(b, loc, op, scratch, bytes);
}

SmallVector<Value> mlir::tilegpu::emitValidity(OpBuilder &b, Location loc,
                                               const ThreadLayout &layout) {
  // Per tensor dimension padded (a sliced one never is), its extent.
  SmallVector<std::pair<unsigned, int64_t>> padded;
  for (unsigned d = 0; d < layout.getRootRank(); ++d)
    if (layout.isPadded(d))
      padded.push_back({unsigned(layout.getTensorDim(d)),
                        layout.getRootExtent()[d]});
  if (padded.empty())
    return {};
  SmallVector<Value> valid;
  for (ArrayRef<Value> index : emitElementIndices(b, loc, layout)) {
    Value all;
    for (auto [dim, extent] : padded) {
      Value below = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ult,
                                         index[dim], i32Constant(b, loc, extent));
      all = all ? LLVM::AndOp::create(b, loc, all, below) : below;
    }
    valid.push_back(all);
  }
  return valid;
}

SmallVector<Value> mlir::tilegpu::replacePadding(OpBuilder &b, Location loc,
                                                 const ThreadLayout &layout,
                                                 ValueRange values,
                                                 Value fill) {
  SmallVector<Value> result(values);
  SmallVector<Value> valid = emitValidity(b, loc, layout);
  for (auto [v, isReal] : llvm::zip(result, valid))
    v = LLVM::SelectOp::create(b, loc, isReal, v, fill);
  return result;
}

SmallVector<Value> mlir::tilegpu::emitOwnership(OpBuilder &b, Location loc,
                                                const ThreadLayout &layout) {
  // Of the lanes and warps that hold copies of an element (they differ only
  // in bits that move nowhere), the one with those bits clear owns it.
  Value owner;
  bool replicated = layout.isReplicated();
  if (replicated) {
    auto [lane, warp] = emitLaneAndWarp(b, loc);
    for (auto [id, bases] : {std::pair(lane, layout.getLaneBases()),
                             std::pair(warp, layout.getWarpBases())}) {
      int64_t mask = 0;
      for (auto [i, basis] : llvm::enumerate(bases))
        if (basis.isZero())
          mask |= int64_t(1) << i;
      if (!mask)
        continue;
      // One statement per op: argument order is unspecified in C++, and
      // gcc and clang would emit them in different orders.
      Value bits = LLVM::AndOp::create(b, loc, id, i32Constant(b, loc, mask));
      Value zero = i32Constant(b, loc, 0);
      Value clear =
          LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, bits, zero);
      owner = owner ? (Value)LLVM::AndOp::create(b, loc, owner, clear) : clear;
    }
  }
  // Nobody owns padding.
  SmallVector<Value> valid = emitValidity(b, loc, layout);
  if (!owner)
    return valid;
  if (valid.empty())
    return SmallVector<Value>(layout.getNumElems(), owner);
  for (Value &v : valid)
    v = LLVM::AndOp::create(b, loc, owner, v);
  return valid;
}

void mlir::tilegpu::emitPredicatedSharedStore(OpBuilder &b, Location loc,
                                              Value address, Value word,
                                              Value pred, unsigned bits) {
  unsigned wordBits = word.getType().getIntOrFloatBitWidth();
  if (!bits)
    bits = wordBits;
  // PTX has no 8-bit registers: a byte travels in a 16-bit one.
  if (wordBits == 8)
    word = LLVM::ZExtOp::create(b, loc, b.getI16Type(), word);
  StringRef regClass = bits == 64 ? "l" : bits == 32 ? "r" : "h";
  Value address64 = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), address);
  emitPTX(b, loc, llvm::formatv("@$2 st.shared.b{0} [ $0 + 0 ], $1;", bits).str(),
          ("l," + regClass + ",b").str(), ValueRange{address64, word, pred}, {},
          /*hasSideEffects=*/true);
}

Value mlir::tilegpu::emitTF32Bits(OpBuilder &b, Location loc, Value v) {
  return NVVM::ConvertFloatToTF32Op::create(
      b, loc, b.getI32Type(), v, NVVM::FPRoundingMode::RNA,
      NVVM::SaturationMode::NONE, /*relu=*/false);
}

Value mlir::tilegpu::linearizeRowMajor(OpBuilder &b, Location loc,
                                       ArrayRef<Value> index,
                                       ArrayRef<int64_t> shape) {
  if (index.empty())
    return i32Constant(b, loc, 0);
  Value linear = index.front();
  for (unsigned d = 1; d < index.size(); ++d)
    linear = LLVM::AddOp::create(
        b, loc,
        LLVM::MulOp::create(b, loc, linear, i32Constant(b, loc, shape[d])),
        index[d]);
  return linear;
}

Value mlir::tilegpu::getRunAddress(OpBuilder &b, Location loc, ValueRange ptrs,
                                   unsigned i, unsigned run,
                                   unsigned elemBytes) {
  unsigned first = i - i % std::max(1u, run);
  if (first == i)
    return ptrs[i];
  return LLVM::GEPOp::create(
      b, loc, ptrs[first].getType(), b.getI8Type(), ptrs[first],
      ArrayRef<LLVM::GEPArg>{int32_t((i - first) * elemBytes)});
}

unsigned mlir::tilegpu::clampGroupWidth(Value ptr, unsigned width,
                                        unsigned numElems) {
  auto type = dyn_cast<RankedTensorType>(ptr.getType());
  if (!type)
    return 1;
  ThreadLayout layout = getThreadLayout(type);
  unsigned fast = layout.getFastestDim();
  width = std::min(width, layout.getContiguity());
  width = std::min<int64_t>(
      width, tile::highestPowerOf2Divisor(layout.getRootExtent()[fast]));
  while (width > 1 && numElems % width)
    width /= 2;
  return std::max(1u, width);
}
