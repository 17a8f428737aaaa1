//===- AssignLayouts.cpp - Gives every tensor a layout encoding -----------===//

#include "DotLayouts.h"

#include "tilec/Dialect/TileGPU/IR/ShapeLayouts.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"
#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"

#include "tilec/Dialect/Tile/Analysis/AxisInfo.h"
#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/DebugLog.h"
#include "llvm/Support/InterleavedRange.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "tilegpu-assign-layouts"

namespace mlir::tilegpu {
#define GEN_PASS_DEF_TILEGPUASSIGNLAYOUTS
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

bool isTensor(Value v) { return v && isa<RankedTensorType>(v.getType()); }

/// Index arithmetic built from ranges, splats and constants (through
/// expand_dims, broadcasts and elementwise ops) costs little to recompute:
/// give each use its own copy, so that sharing one does not force its users
/// into one layout. CSE merges the copies that end up alike. A chain counts
/// as cheap only while its copy, written out as a tree, stays small: a DAG
/// that reuses its values (tl.rand's Philox rounds) would otherwise be
/// copied once per path through it, exponentially many times.
void duplicateCheapChains(func::FuncOp func) {
  constexpr int64_t kMaxChainOps = 64;
  /// Ops in an op's chain written out as a tree; 0 where it is not cheap.
  llvm::DenseMap<Operation *, int64_t> chainOps;
  std::function<int64_t(Operation *)> getChainOps = [&](Operation *op) {
    auto it = chainOps.find(op);
    if (it != chainOps.end())
      return it->second;
    int64_t ops = 0;
    if (op->getNumResults() == 1 && isTensor(op->getResult(0)) &&
        op->getNumRegions() == 0 && isMemoryEffectFree(op)) {
      if (isa<tile::MakeRangeOp, tile::SplatOp, arith::ConstantOp>(op)) {
        ops = 1;
      } else if (op->hasTrait<OpTrait::Elementwise>() ||
                 isa<tile::ExpandDimsOp, tile::BroadcastOp>(op)) {
        ops = 1;
        for (Value operand : op->getOperands()) {
          if (!isTensor(operand))
            continue;
          Operation *def = operand.getDefiningOp();
          int64_t operandOps = def ? getChainOps(def) : 0;
          ops = operandOps ? ops + operandOps : 0;
          if (ops == 0 || ops > kMaxChainOps) {
            ops = 0;
            break;
          }
        }
      }
    }
    return chainOps[op] = ops;
  };
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) { ops.push_back(op); });
  OpBuilder builder(func.getContext());
  int64_t numCopies = 0;
  // Users first, so that copies of a user count as uses of its operands.
  for (Operation *op : llvm::reverse(ops)) {
    if (!getChainOps(op))
      continue;
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : op->getResult(0).getUses())
      uses.push_back(&use);
    for (OpOperand *use : llvm::drop_begin(uses)) {
      builder.setInsertionPoint(op);
      Operation *copy = builder.clone(*op);
      chainOps[copy] = chainOps[op];
      use->set(copy->getResult(0));
      ++numCopies;
    }
  }
  LDBG() << "@" << func.getSymName() << ": " << numCopies
         << " copies of cheap index computations, one per use";
}

/// Values that must share one encoding.
class LayoutClasses {
public:
  explicit LayoutClasses(func::FuncOp func) {
    func.walk([&](Operation *op) {
      for (Value result : op->getResults())
        if (isTensor(result))
          classes.insert(result);
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (Value arg : block.getArguments())
            if (isTensor(arg))
              classes.insert(arg);
      // A store joins no class, and an atomic joins its pointer's: they are
      // laid out like their pointers (for their own coalescing), and a value
      // or mask laid out otherwise is converted.
      if (auto atomic = dyn_cast<tile::AtomicRMWOp>(op)) {
        unionTensors({atomic.getPtr(), atomic.getMask(), atomic.getResult()});
      } else if (auto cas = dyn_cast<tile::AtomicCASOp>(op)) {
        unionTensors({cas.getPtr(), cas.getResult()});
      } else if (!isa<tile::StoreOp>(op) &&
                 (op->hasTrait<OpTrait::Elementwise>() ||
                  isa<tile::LoadOp, tile::BroadcastOp, tile::ScanOp,
                      tile::ButterflyOp>(op))) {
        // (A scan and a butterfly work in any layout, their results in
        // their sources'.)
        SmallVector<Value> values(op->getOperands());
        llvm::append_range(values, op->getResults());
        unionTensors(values);
      } else if (auto gather = dyn_cast<tile::GatherOp>(op)) {
        // Each element is read from shared memory where its index says.
        unionTensors({gather.getIndices(), gather.getResult()});
      } else if (auto histogram = dyn_cast<tile::HistogramOp>(op)) {
        unionTensors({histogram.getSrc(), histogram.getMask()});
      } else if (auto reduce = dyn_cast<tile::ReduceWithOp>(op)) {
        unionTensors(SmallVector<Value>(reduce.getSrcs()));
      } else if (auto dot = dyn_cast<tile::DotOp>(op)) {
        // The accumulator becomes the result in place.
        unionTensors({dot.getAcc(), dot.getResult()});
      } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
        auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
        for (unsigned i = 0; i < loop.getNumResults(); ++i)
          unionTensors({loop.getInitArgs()[i], loop.getRegionIterArgs()[i],
                        loop.getResult(i), yield.getOperand(i)});
      } else if (auto loop = dyn_cast<scf::WhileOp>(op)) {
        // Inits, the condition region's arguments and the body's yields;
        // what the condition forwards, the body's arguments and results.
        auto yield = cast<scf::YieldOp>(loop.getAfterBody()->getTerminator());
        for (unsigned i = 0; i < loop.getInits().size(); ++i)
          unionTensors({loop.getInits()[i], loop.getBeforeArguments()[i],
                        yield.getOperand(i)});
        for (unsigned i = 0; i < loop.getNumResults(); ++i)
          unionTensors({loop.getConditionOp().getArgs()[i],
                        loop.getAfterArguments()[i], loop.getResult(i)});
      } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
        for (unsigned i = 0; i < branch.getNumResults(); ++i) {
          SmallVector<Value> values = {branch.getResult(i),
                                       branch.thenYield().getOperand(i)};
          if (!branch.getElseRegion().empty())
            values.push_back(branch.elseYield().getOperand(i));
          unionTensors(values);
        }
      }
    });
  }

  Value leader(Value v) const { return classes.getLeaderValue(v); }
  /// Each class's leader with its members, in program order of leaders.
  llvm::MapVector<Value, SmallVector<Value>> members(func::FuncOp func) const {
    llvm::MapVector<Value, SmallVector<Value>> result;
    auto add = [&](Value v) {
      if (isTensor(v))
        result[leader(v)].push_back(v);
    };
    func.walk([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (Value arg : block.getArguments())
            add(arg);
      for (Value result : op->getResults())
        add(result);
    });
    return result;
  }

private:
  void unionTensors(ArrayRef<Value> values) {
    Value first;
    for (Value v : values) {
      if (!isTensor(v))
        continue;
      if (first)
        classes.unionSets(first, v);
      else
        first = v;
    }
  }
  llvm::EquivalenceClasses<Value> classes;
};

/// The operands of a load, store or atomic; all null for other ops. (A
/// compare-and-swap's compared value converts with its value.)
struct MemoryAccess {
  Value ptr, mask, value;
};

MemoryAccess getMemoryAccess(Operation *op) {
  if (auto load = dyn_cast<tile::LoadOp>(op))
    return {load.getPtr(), load.getMask(), Value()};
  if (auto store = dyn_cast<tile::StoreOp>(op))
    return {store.getPtr(), store.getMask(), store.getValue()};
  if (auto atomic = dyn_cast<tile::AtomicRMWOp>(op))
    return {atomic.getPtr(), atomic.getMask(), atomic.getVal()};
  if (auto cas = dyn_cast<tile::AtomicCASOp>(op))
    return {cas.getPtr(), Value(), cas.getVal()};
  return {};
}

/// The memory accesses whose pointers lie in a class: they decide its
/// vector width and fastest dimension.
struct Access {
  Value ptr, mask;
  unsigned elemBytes;
};

/// `sharedRowDim`: the tile is copied into shared rows along that dimension
/// (tf32 and fp8 wgmma's K-major B). Where it is not the fastest one, the
/// copies transpose, element by element: one element per thread along the
/// fastest dimension and 8 lanes along it, so that a warp's copies land in
/// 32 different banks of the swizzled rows. `dotOperand`: the tile is a
/// dot's operand, copied into shared memory: where its elements are
/// narrower than cp.async's 4 bytes, a thread takes a run of up to 16
/// bytes along its contiguous dimension even where alignment forbids a
/// vector load (rows of 4097 bf16), so that it addresses the run from one
/// pointer and stores it to shared memory as one vector. Element by
/// element, a thread's 32 to 64 pointers spilled (4097^3 at 128 x 256 x 64:
/// 81 TFLOP/s with 1 element a thread, 169 with runs of 8, H200). Wider
/// elements go by cp.async, one a thread, each warp's copies coalesced.
BlockedEncodingAttr chooseBlocked(MLIRContext *context, ArrayRef<int64_t> extent,
                                  ArrayRef<Access> accesses, unsigned numWarps,
                                  tile::AxisInfoAnalysis &axis,
                                  std::optional<unsigned> sharedRowDim = {},
                                  bool dotOperand = false) {
  // The layout covers the tile padded to powers of two (see ThreadLayout).
  SmallVector<int64_t> shape;
  for (int64_t e : extent)
    shape.push_back(llvm::PowerOf2Ceil(e));
  unsigned rank = shape.size();
  // Fastest dimension: the one the accesses are most contiguous along;
  // row-major when nothing says otherwise.
  SmallVector<unsigned> order;
  for (int d = rank - 1; d >= 0; --d)
    order.push_back(d);
  int64_t bestContiguity = 1;
  for (const Access &access : accesses)
    for (unsigned d = 0; d < rank; ++d) {
      int64_t contiguity = axis.get(access.ptr).contiguity[d];
      if (contiguity > bestContiguity) {
        bestContiguity = contiguity;
        llvm::erase(order, d);
        order.insert(order.begin(), d);
      }
    }
  unsigned fast = order.front();
  bool transposing = sharedRowDim && *sharedRowDim != fast;

  int64_t numElems = 1;
  for (int64_t s : shape)
    numElems *= s;
  unsigned numThreads = numWarps * 32;
  unsigned vec = 1;
  for (const Access &access : accesses) {
    vec = std::max(vec, axis.getMaxVectorWidth(access.ptr, access.mask, fast,
                                               access.elemBytes));
    if (dotOperand && access.elemBytes < 4)
      vec = std::max<unsigned>(vec,
                               std::min(axis.getContiguousRun(access.ptr, fast),
                                        16 / access.elemBytes));
  }
  int64_t perThread = std::max<int64_t>(1, numElems / numThreads);
  SmallVector<unsigned> sizePerThread(rank, 1);
  sizePerThread[fast] =
      transposing ? 1 : std::min<int64_t>({vec, perThread, shape[fast]});

  // Lanes, then warps, fill the dimensions fastest first; what is left over
  // replicates along the slowest dimension.
  SmallVector<unsigned> threadsPerWarp(rank, 1), warpsPerCTA(rank, 1);
  unsigned lanesLeft = 32, warpsLeft = numWarps;
  for (unsigned d : order) {
    int64_t room = std::max<int64_t>(1, shape[d] / sizePerThread[d]);
    if (transposing && d == fast && rank > 1)
      room = std::min<int64_t>(room, 8);
    threadsPerWarp[d] = std::min<int64_t>(lanesLeft, llvm::bit_floor(uint64_t(room)));
    lanesLeft /= threadsPerWarp[d];
  }
  threadsPerWarp[order.back()] *= lanesLeft;
  for (unsigned d : order) {
    int64_t room = std::max<int64_t>(
        1, shape[d] / (int64_t(sizePerThread[d]) * threadsPerWarp[d]));
    warpsPerCTA[d] = std::min<int64_t>(warpsLeft, llvm::bit_floor(uint64_t(room)));
    warpsLeft /= warpsPerCTA[d];
  }
  warpsPerCTA[order.back()] *= warpsLeft;
  return BlockedEncodingAttr::get(context, sizePerThread, threadsPerWarp,
                                  warpsPerCTA, order);
}

Type withEncoding(Type type, Attribute encoding) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType(),
                               encoding);
}

/// `v` in `encoding`: itself, or a conversion at the builder's point.
Value convertTo(OpBuilder &builder, Location loc, Value v, Attribute encoding) {
  if (cast<RankedTensorType>(v.getType()).getEncoding() == encoding)
    return v;
  return ConvertLayoutOp::create(builder, loc, withEncoding(v.getType(), encoding),
                                 v);
}

/// Consecutive elements along `dim` that a warp's first vector store
/// covers: the thread's leading registers, then its neighbours' lanes.
int64_t getWarpRun(const ThreadLayout &layout, unsigned dim) {
  int64_t run = layout.getContiguity();
  for (LayoutBasis b : layout.getLaneBases()) {
    if (!(b == LayoutBasis{int(dim), run}))
      break;
    run *= 2;
  }
  return run;
}

/// Whether a tile laid out as `value` stores as well as through `ptr`'s
/// layout: vectors as wide along the same dimension, lanes covering as long
/// a run, and no thread storing another's copy. (Interleaved tiles come
/// out of tile.join this way.)
bool storesAsWell(RankedTensorType value, RankedTensorType ptr) {
  if (value.getEncoding() == ptr.getEncoding())
    return true;
  std::optional<ThreadLayout> v = ThreadLayout::get(value);
  std::optional<ThreadLayout> p = ThreadLayout::get(ptr);
  if (!v || !p || v->isReplicated() || !v->getSlicedDims().empty())
    return false;
  unsigned fast = p->getFastestDim();
  return v->getFastestDim() == fast &&
         v->getContiguity() >= p->getContiguity() &&
         getWarpRun(*v, fast) >= getWarpRun(*p, fast);
}

/// Has `result` produced in `encoding`, its users converting it back to the
/// layout of its class.
void produceIn(OpBuilder &builder, Value result, Attribute encoding) {
  Type classType = result.getType();
  result.setType(withEncoding(classType, encoding));
  builder.setInsertionPointAfterValue(result);
  auto back =
      ConvertLayoutOp::create(builder, result.getLoc(), classType, result);
  result.replaceAllUsesExcept(back.getResult(), back);
}

struct TileGPUAssignLayouts
    : tilegpu::impl::TileGPUAssignLayoutsBase<TileGPUAssignLayouts> {
  using TileGPUAssignLayoutsBase::TileGPUAssignLayoutsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (numWarps == 0 || !llvm::isPowerOf2_32(numWarps)) {
      module.emitError("num-warps must be a power of two, not ")
          << static_cast<unsigned>(numWarps);
      return signalPassFailure();
    }
    module->setAttr(TileGPUDialect::getNumWarpsAttrName(),
                    IntegerAttr::get(IntegerType::get(&getContext(), 32),
                                     numWarps));
    for (auto func : module.getOps<func::FuncOp>())
      if (failed(assign(func)))
        return signalPassFailure();
  }

  /// Puts `dot` in `want` (its mma encoding, or the blocked one of an FMA
  /// dot) and its operands in the matching dot-operand encodings. Where the
  /// accumulator's class has another layout, the accumulator and result
  /// are converted around the dot.
  void convertDotOperands(OpBuilder &builder, tile::DotOp dot,
                          Attribute want) {
    Location loc = dot.getLoc();
    Attribute have = dot.getType().getEncoding();
    builder.setInsertionPoint(dot);
    Type element = dot.getA().getType().getElementType();
    dot.getAMutable().assign(convertTo(
        builder, loc, dot.getA(), getDotOperandEncoding(0, want, element)));
    dot.getBMutable().assign(convertTo(
        builder, loc, dot.getB(), getDotOperandEncoding(1, want, element)));
    if (want == have)
      return;
    LDBG() << "dot at " << loc << ": accumulator's class is in " << have
           << ", converted to the dot's " << want << " and back";
    dot.getAccMutable().assign(convertTo(builder, loc, dot.getAcc(), want));
    produceIn(builder, dot.getResult(), want);
  }

  /// Converts around shape op `op` where its operands' and results'
  /// classes chose layouts that it cannot rename into one another: the
  /// operands to what the results need where that exists (a conversion
  /// before an expand_dims), else the results made in what the operands
  /// give and converted back (after a reduction).
  LogicalResult reconcileShapeOp(OpBuilder &builder, Operation *op) {
    Location loc = op->getLoc();
    auto encodingOf = [](Value v) {
      return cast<RankedTensorType>(v.getType()).getEncoding();
    };
    SmallVector<Value> sources, results;
    for (Value v : op->getOperands())
      if (isTensor(v))
        sources.push_back(v);
    for (Value v : op->getResults())
      if (isTensor(v))
        results.push_back(v);
    auto allIn = [&](ArrayRef<Value> values, Attribute encoding) {
      return encoding && llvm::all_of(values, [&](Value v) {
               return encodingOf(v) == encoding;
             });
    };
    Attribute source = encodingOf(sources.front());
    if (allIn(sources, source) &&
        allIn(results, inferResultEncoding(op, source)))
      return success();
    builder.setInsertionPoint(op);
    Attribute result = encodingOf(results.front());
    if (Attribute want = inferSourceEncoding(op, result);
        want && allIn(results, result)) {
      for (OpOperand &operand : op->getOpOperands()) {
        if (!isTensor(operand.get()) || encodingOf(operand.get()) == want)
          continue;
        LDBG() << op->getName() << " at " << loc << ": operand "
               << operand.getOperandNumber() << " converted to " << want;
        operand.set(convertTo(builder, loc, operand.get(), want));
      }
      return success();
    }
    // Operands in one layout that the op can rename (a split whose halves
    // are in the registers of each thread), then results in what it gives.
    Attribute common = source;
    if (!inferResultEncoding(op, common))
      common = inferSourceEncoding(op, result);
    Attribute made = inferResultEncoding(op, common);
    if (!made)
      return op->emitOpError("has no layout that the GPU lowering supports");
    LDBG() << op->getName() << " at " << loc << ": operands in " << common
           << ", results made in " << made << " and converted back";
    for (OpOperand &operand : op->getOpOperands())
      if (isTensor(operand.get()))
        operand.set(convertTo(builder, loc, operand.get(), common));
    for (Value v : results)
      if (encodingOf(v) != made)
        produceIn(builder, v, made);
    return success();
  }

  LogicalResult assign(func::FuncOp func) {
    duplicateCheapChains(func);
    tile::AxisInfoAnalysis axis(func);
    LayoutClasses classes(func);
    auto members = classes.members(func);

    // Per class: its shape (the largest of its members), its accesses and
    // the shape ops it is a source or result of.
    struct ClassInfo {
      SmallVector<int64_t> shape;
      SmallVector<Access> accesses;
      SmallVector<Operation *> shapeOps;
      Attribute encoding;
      /// The dot or shape op that gave `encoding`, if any (debug output).
      Operation *origin = nullptr;
      std::optional<unsigned> sharedRowDim; ///< see chooseBlocked
      bool dotOperand = false;              ///< see chooseBlocked
    };
    llvm::MapVector<Value, ClassInfo> infos;
    for (auto &[leader, values] : members) {
      ClassInfo &info = infos[leader];
      for (Value v : values) {
        auto shape = cast<RankedTensorType>(v.getType()).getShape();
        if (info.shape.empty())
          info.shape.assign(shape.begin(), shape.end());
        for (auto [i, s] : llvm::enumerate(shape))
          info.shape[i] = std::max(info.shape[i], s);
      }
    }
    SmallVector<Operation *> shapeOps;
    func.walk([&](Operation *op) {
      if (!isShapeOp(op))
        return;
      shapeOps.push_back(op);
      llvm::SetVector<Value> touched;
      for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults()))
        if (isTensor(v))
          touched.insert(classes.leader(v));
      for (Value leader : touched)
        infos[leader].shapeOps.push_back(op);
    });
    func.walk([&](Operation *op) {
      MemoryAccess access = getMemoryAccess(op);
      Value ptr = access.ptr, mask = access.mask;
      if (!ptr || !isTensor(ptr))
        return;
      Type pointee = cast<tile::PointerType>(getElementTypeOrSelf(ptr.getType()))
                         .getPointeeType();
      unsigned bytes = std::max(1u, pointee.getIntOrFloatBitWidth() / 8);
      infos[classes.leader(ptr)].accesses.push_back({ptr, mask, bytes});
      // What a store or atomic writes is best computed in its layout already.
      for (Value v : {access.value, mask})
        if (v && classes.leader(v) != classes.leader(ptr))
          infos[classes.leader(v)].accesses.push_back({ptr, mask, bytes});
    });

    // Classes with memory accesses first, whose coalescing decides their
    // layouts; among them and then among the rest, highest rank first:
    // lower-rank sources of expand_dims inherit slices of them, and shape
    // ops hand layouts on to the classes beyond them.
    SmallVector<Value> order;
    for (auto &entry : infos)
      order.push_back(entry.first);
    // Ties in program order (llvm::sort with the position as the last
    // key: libstdc++'s stable_sort uses a deprecated buffer clang warns of).
    llvm::sort(order, [&](Value a, Value b) {
      auto key = [&](Value v) {
        const ClassInfo &info = infos[v];
        return std::make_tuple(info.accesses.empty(),
                               -int64_t(info.shape.size()),
                               infos.find(v) - infos.begin());
      };
      return key(a) < key(b);
    });

    // A dot gives its accumulator's class its instruction's layout (an mma
    // encoding, or the FMA dot's blocked one), loop-carried accumulators
    // included, so that nothing converts inside the loop; the first dot of
    // a class decides.
    llvm::DenseMap<Operation *, Attribute> dotEncodings;
    func.walk([&](tile::DotOp dot) {
      Attribute encoding = chooseMmaEncoding(dot, numWarps);
      if (!encoding)
        encoding = chooseFmaEncoding(dot, numWarps);
      LDBG() << "dot at " << dot.getLoc() << ": "
             << (isa<MmaEncodingAttr>(encoding)
                     ? "tensor cores, "
                     : "FMAs (no tensor-core instruction fits), ")
             << encoding;
      dotEncodings[dot] = encoding;
      for (Value operand : {dot.getA(), dot.getB()})
        if (auto load = operand.getDefiningOp<tile::LoadOp>())
          infos[classes.leader(load.getPtr())].dotOperand = true;
      ClassInfo &info = infos[classes.leader(dot.getResult())];
      if (!info.encoding) {
        info.encoding = encoding;
        info.origin = dot;
      }
      // tf32 and fp8 wgmma read their shared operand K-major: its loads
      // copy it into rows along K, transposing where M or N is contiguous.
      // That is B, or A where the operands are swapped (tf32).
      auto mma = dyn_cast<MmaEncodingAttr>(encoding);
      if (mma && mma.getVersion() == 3 &&
          isWgmmaKMajorOnly(dot.getB().getType().getElementType())) {
        Value shared = mma.getSwapped() ? dot.getA() : dot.getB();
        if (auto load = shared.getDefiningOp<tile::LoadOp>())
          infos[classes.leader(load.getPtr())].sharedRowDim =
              mma.getSwapped() ? 1 : 0;
      }
    });

    auto chooseOwn = [&](ClassInfo &info) {
      return chooseBlocked(&getContext(), info.shape, info.accesses, numWarps,
                           axis, info.sharedRowDim, info.dotOperand);
    };
    // `encoding` over the class's shape; nothing where it does not cover it
    // (a linear layout made for a smaller member).
    auto layoutOver = [&](ClassInfo &info, Attribute encoding) {
      return ThreadLayout::get(RankedTensorType::get(
          info.shape, IntegerType::get(&getContext(), 32), encoding));
    };
    // Whether `encoding`, offered to a class by a shape op, serves the
    // class's own loads and stores as well as the blocked layout it would
    // choose: the same fastest dimension and at least its vectors. A
    // transposed tile that is stored wants its own layout (and a
    // conversion); an interleaved one is stored best as it comes.
    auto servesAccesses = [&](ClassInfo &info, Attribute encoding) {
      if (info.accesses.empty())
        return true;
      BlockedEncodingAttr own = chooseOwn(info);
      std::optional<ThreadLayout> offered = layoutOver(info, encoding);
      unsigned fast = own.getOrder().front();
      return offered && offered->getFastestDim() == fast &&
             offered->getContiguity() >= own.getSizePerThread()[fast];
    };
    // Hands a class's encoding on through its shape ops to the classes on
    // their other side that have none yet, and on from those. A reduction
    // hands its result a slice of its source, an expand_dims its source a
    // slice of its result, whatever those access; trans, reshape, join and
    // split hand on either way, to classes whose accesses it serves.
    std::function<void(Value)> handOn = [&](Value leader) {
      Attribute encoding = infos[leader].encoding;
      for (Operation *op : SmallVector<Operation *>(infos[leader].shapeOps)) {
        bool isSource = llvm::any_of(op->getOperands(), [&](Value v) {
          return isTensor(v) && classes.leader(v) == leader;
        });
        bool isResult = llvm::any_of(op->getResults(), [&](Value v) {
          return isTensor(v) && classes.leader(v) == leader;
        });
        bool anyAccess =
            !isa<tile::ReduceOp, tile::ReduceWithOp, tile::ExpandDimsOp>(op);
        auto offer = [&](ValueRange values, Attribute want) {
          for (Value v : values) {
            if (!want || !isTensor(v))
              continue;
            ClassInfo &other = infos[classes.leader(v)];
            if (other.encoding || !layoutOver(other, want))
              continue;
            if (anyAccess && !servesAccesses(other, want))
              continue;
            other.encoding = want;
            other.origin = op;
            handOn(classes.leader(v));
          }
        };
        if (isSource)
          offer(op->getResults(), inferResultEncoding(op, encoding));
        if (isResult && !isa<tile::ReduceOp, tile::ReduceWithOp>(op))
          offer(op->getOperands(), inferSourceEncoding(op, encoding));
      }
    };
    LDBG() << "@" << func.getSymName() << ": " << order.size()
           << " layout classes";
    for (Value leader : order) {
      ClassInfo &info = infos[leader];
      if (!info.encoding)
        info.encoding = chooseOwn(info);
      LDBG() << "class of " << leader.getLoc() << " ("
             << llvm::interleaved(info.shape, "x") << ", "
             << info.accesses.size() << " accesses): " << info.encoding
             << " from "
             << (info.origin ? info.origin->getName().getStringRef()
                             : StringRef("its accesses"));
      handOn(leader);
    }

    for (auto &[leader, values] : members)
      for (Value v : values)
        v.setType(withEncoding(v.getType(), infos[leader].encoding));
    func.walk([](arith::ConstantOp constant) {
      auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
      if (dense && dense.getType() != constant.getType())
        constant.setValueAttr(
            dense.reshape(cast<ShapedType>(constant.getType())));
    });
    OpBuilder builder(&getContext());
    func.walk([&](Operation *op) {
      if (!isa<tile::StoreOp, tile::AtomicRMWOp, tile::AtomicCASOp>(op))
        return;
      MemoryAccess access = getMemoryAccess(op);
      auto ptrType = dyn_cast<RankedTensorType>(access.ptr.getType());
      if (!ptrType)
        return;
      // Values, masks (and compared values) in the pointer's layout; but a
      // stored value whose layout stores as well goes as it is, and the
      // pointers (cheap to recompute, see RemoveLayoutConversions) follow.
      Attribute encoding = ptrType.getEncoding();
      if (auto store = dyn_cast<tile::StoreOp>(op)) {
        auto valueType = cast<RankedTensorType>(store.getValue().getType());
        if (valueType.getEncoding() != encoding &&
            storesAsWell(valueType, ptrType)) {
          encoding = valueType.getEncoding();
          LDBG() << "store at " << op->getLoc() << ": stored in its value's "
                 << encoding << ", which stores as well as the pointers'";
        }
      }
      builder.setInsertionPoint(op);
      for (OpOperand &operand : op->getOpOperands())
        operand.set(convertTo(builder, op->getLoc(), operand.get(), encoding));
    });
    func.walk([&](tile::DotOp dot) {
      convertDotOperands(builder, dot, dotEncodings.lookup(dot));
    });
    for (Operation *op : shapeOps)
      if (failed(reconcileShapeOp(builder, op)))
        return failure();
    LDBG() << "@" << func.getSymName() << ": " << [&] {
      int64_t converts = 0;
      func.walk([&](ConvertLayoutOp) { ++converts; });
      return converts;
    }() << " layout conversions";
    return success();
  }
};

} // namespace
