//===- Interpreter.cpp - Runs tile IR on the CPU --------------------------===//
//
// The tile ops, memory and control flow; arithmetic is in Arith.cpp, dots
// in Dot.cpp.
//
//===----------------------------------------------------------------------===//

#include "tilec/Interpreter/Interpreter.h"

#include "Executor.h"

#include "tilec/Dialect/Tile/IR/PrintFormat.h"

#include "tilec/Dialect/Tile/IR/Tile.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace tilec::interp;

namespace {
/// The program's kernel parameter name attribute (see MLIRGen.h).

/// Fills `result` in row-major order from `source`, whose element for
/// result index i0, i1, ... is at sum(i_d * stride[d]) (a broadcast's
/// strides are 0 where it repeats, a transpose's are permuted).
void gatherStrided(TValue &result, const TValue &source,
                   llvm::ArrayRef<int64_t> stride) {
  llvm::ArrayRef<int64_t> shape = result.shape;
  size_t rank = shape.size();
  llvm::SmallVector<int64_t, 4> index(rank, 0);
  size_t position = 0;
  for (size_t i = 0, n = result.size(); i < n; ++i) {
    result.copyElement(i, source, position);
    for (size_t d = rank; d-- > 0;) {
      position += stride[d];
      if (++index[d] < shape[d])
        break;
      position -= stride[d] * shape[d];
      index[d] = 0;
    }
  }
}

/// Element `i` of `v` as tile.print's `conversion` spells it.
std::string formatPrinted(const TValue &v, size_t i,
                          const mlir::tile::PrintConversion &conversion) {
  unsigned bits = bitWidth(v.kind);
  char buffer[64];
  if (conversion.asDouble) {
    std::snprintf(buffer, sizeof buffer, conversion.spec.c_str(), v.floats[i]);
    return buffer;
  }
  uint64_t word;
  if (isFloat(v.kind)) {
    // Hex of a float: its bits.
    if (v.kind == ElemKind::F64)
      std::memcpy(&word, &v.floats[i], 8);
    else if (v.kind == ElemKind::F32) {
      float f = float(v.floats[i]);
      uint32_t b;
      std::memcpy(&b, &f, 4);
      word = b;
    } else {
      word = toHalfBits(v.floats[i], v.kind);
    }
  } else {
    word = conversion.signExtend ? uint64_t(v.ints[i])
                                 : zeroExtend(v.ints[i], bits);
  }
  if (conversion.is64)
    std::snprintf(buffer, sizeof buffer, conversion.spec.c_str(),
                  (unsigned long long)word);
  else
    std::snprintf(buffer, sizeof buffer, conversion.spec.c_str(),
                  unsigned(word));
  return buffer;
}

/// Copies the elements of `from` into `to` (same kind and count).
void copyData(TValue &to, const TValue &from) {
  if (isInt(to.kind))
    std::copy(from.ints.begin(), from.ints.end(), to.ints.begin());
  else if (isFloat(to.kind))
    std::copy(from.floats.begin(), from.floats.end(), to.floats.begin());
  else
    std::copy(from.ptrs.begin(), from.ptrs.end(), to.ptrs.begin());
}
} // namespace

bool tilec::interp::elemKindOf(Type type, ElemKind &kind) {
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    if (!tensor.hasStaticShape())
      return false;
    type = tensor.getElementType();
  }
  if (isa<tile::PointerType>(type))
    kind = ElemKind::Ptr;
  else if (isa<Float8E5M2Type>(type))
    kind = ElemKind::F8E5M2;
  else if (isa<Float8E4M3FNType>(type))
    kind = ElemKind::F8E4M3;
  else if (type.isF16())
    kind = ElemKind::F16;
  else if (type.isBF16())
    kind = ElemKind::BF16;
  else if (type.isF32())
    kind = ElemKind::F32;
  else if (type.isF64())
    kind = ElemKind::F64;
  else if (type.isIndex())
    kind = ElemKind::I64;
  else if (auto integer = dyn_cast<IntegerType>(type)) {
    switch (integer.getWidth()) {
    case 1:
      kind = ElemKind::I1;
      break;
    case 8:
      kind = ElemKind::I8;
      break;
    case 16:
      kind = ElemKind::I16;
      break;
    case 32:
      kind = ElemKind::I32;
      break;
    case 64:
      kind = ElemKind::I64;
      break;
    default:
      return false;
    }
  } else {
    return false;
  }
  return true;
}

Executor::Executor(Operation *kernel, ArrayRef<InterpreterArg> args,
                   const unsigned grid[3])
    : kernel(kernel), args(args), grid{grid[0], grid[1], grid[2]} {}

std::string Executor::program() const {
  return "program (" + std::to_string(pid[0]) + ", " + std::to_string(pid[1]) +
         ", " + std::to_string(pid[2]) + ")";
}

LogicalResult Executor::fail(Operation *op, const llvm::Twine &message) {
  op->emitError(message);
  return failure();
}

TValue &Executor::define(Value v) {
  unsigned slot = slotOf.find(v)->second;
  TValue &value = slots[slot];
  const llvm::SmallVector<int64_t, 2> &shape = slotShape[slot];
  size_t n = 1;
  for (int64_t extent : shape)
    n *= size_t(extent);
  value.reset(slotKind[slot], shape, n);
  return value;
}

std::string Executor::bufferName(int64_t arg) const {
  auto func = cast<func::FuncOp>(kernel);
  if (arg >= int64_t(func.getNumArguments()))
    return "buffer " + std::to_string(arg - func.getNumArguments()) +
           " of those reached through addresses";
  if (auto name =
          func.getArgAttrOfType<StringAttr>(unsigned(arg), mlir::tile::TileDialect::getParamNameAttrName()))
    return "'" + name.getValue().str() + "'";
  return "argument " + std::to_string(arg);
}

LogicalResult Executor::prepare() {
  auto func = cast<func::FuncOp>(kernel);
  if (func.isExternal())
    return fail(kernel, "the kernel has no body");

  auto addSlot = [&](Value v, Operation *owner) -> LogicalResult {
    ElemKind kind;
    if (!elemKindOf(v.getType(), kind)) {
      owner->emitError("the interpreter does not support values of type ")
          << v.getType();
      return failure();
    }
    slotOf[v] = unsigned(slots.size());
    slots.emplace_back();
    slotKind.push_back(kind);
    llvm::SmallVector<int64_t, 2> shape;
    if (auto tensor = dyn_cast<RankedTensorType>(v.getType()))
      shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    slotShape.push_back(std::move(shape));
    return success();
  };

  // The arguments: one per parameter, of the parameter's kind, then
  // buffers reached only through addresses.
  if (func.getNumArguments() > args.size()) {
    unsigned n = func.getNumArguments();
    return fail(kernel, "the kernel '" + func.getSymName() + "' takes " +
                            llvm::Twine(n) +
                            (n == 1 ? " argument, " : " arguments, ") +
                            llvm::Twine(args.size()) +
                            (args.size() == 1 ? " was given" : " were given"));
  }
  for (size_t i = func.getNumArguments(); i < args.size(); ++i)
    if (args[i].kind != InterpreterArg::Kind::Buffer)
      return fail(kernel, "argument " + llvm::Twine(i) +
                              " follows the parameters and is not a buffer");
  for (BlockArgument arg : func.getArguments()) {
    if (failed(addSlot(arg, kernel)))
      return failure();
    unsigned i = arg.getArgNumber();
    ElemKind kind = slotKind.back();
    const InterpreterArg &given = args[i];
    std::string which =
        "argument " + std::to_string(i) + " (" + bufferName(i) + ")";
    bool ok = kind == ElemKind::Ptr ? given.kind == InterpreterArg::Kind::Buffer
              : isFloat(kind)       ? given.kind != InterpreterArg::Kind::Buffer
                                    : given.kind == InterpreterArg::Kind::Int;
    if (!ok)
      return fail(kernel, which + " must be " +
                              (kind == ElemKind::Ptr ? "a buffer"
                               : isFloat(kind)       ? "a number"
                                                     : "an integer") +
                              " for a parameter of type " + kindName(kind));
    if (kind == ElemKind::Ptr && !given.data && given.bytes)
      return fail(kernel, which + " is a null buffer of " +
                              llvm::Twine(given.bytes) + " bytes");
    if (isInt(kind) && given.kind == InterpreterArg::Kind::Int) {
      unsigned width = bitWidth(kind);
      int64_t v = given.intValue;
      bool fits = kind == ElemKind::I1 ? (v == 0 || v == 1)
                                       : (wrapInt(v, width) == v ||
                                          int64_t(zeroExtend(v, width)) == v);
      if (!fits)
        return fail(kernel, which + " = " + llvm::Twine(v) +
                                " does not fit in " + kindName(kind));
    }
  }

  // Every op supported, every value given a slot.
  WalkResult walk = func.getBody().walk<WalkOrder::PreOrder>([&](Operation *op)
                                                                 -> WalkResult {
    bool supported =
        isArithOp(op) ||
        isa<tile::ProgramIdOp, tile::NumProgramsOp, tile::MakeRangeOp,
            tile::SplatOp, tile::BroadcastOp, tile::ExpandDimsOp,
            tile::TransOp, tile::ReshapeOp, tile::JoinOp, tile::SplitOp,
            tile::ButterflyOp, tile::HistogramOp, tile::GatherOp,
            tile::ReduceOp, tile::ReduceWithOp, tile::ScanOp, tile::YieldOp,
            tile::DotOp, tile::AddPtrOp, tile::LoadOp,
            tile::StoreOp, tile::AtomicRMWOp, tile::AtomicCASOp,
            tile::DebugBarrierOp, tile::GridDependencyOp, tile::HintOp,
            tile::AssumeOp,
            tile::PrintOp, tile::AssertOp, tile::PtrToIntOp,
            tile::IntToPtrOp, scf::ForOp,
            scf::IfOp,
            scf::WhileOp, scf::ConditionOp, scf::YieldOp, func::ReturnOp>(op);
    if (!supported) {
      (void)fail(op, "the interpreter does not support '" +
                         op->getName().getStringRef() + "'");
      return WalkResult::interrupt();
    }
    for (Value result : op->getResults())
      if (failed(addSlot(result, op)))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(addSlot(arg, op)))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (!func.getBody().hasOneBlock())
    return fail(kernel, "the interpreter runs kernels of one block only");
  return success();
}

LogicalResult Executor::run() {
  auto func = cast<func::FuncOp>(kernel);
  for (BlockArgument arg : func.getArguments()) {
    const InterpreterArg &given = args[arg.getArgNumber()];
    TValue &value = define(arg);
    if (value.kind == ElemKind::Ptr)
      value.ptrs[0] = Pointer{0, int64_t(arg.getArgNumber())};
    else if (isInt(value.kind))
      value.ints[0] = wrapInt(given.intValue, bitWidth(value.kind));
    else
      value.floats[0] = roundFloat(given.kind == InterpreterArg::Kind::Int
                                       ? double(given.intValue)
                                       : given.floatValue,
                                   value.kind);
  }
  Block &entry = func.getBody().front();
  for (pid[2] = 0; pid[2] < grid[2]; ++pid[2])
    for (pid[1] = 0; pid[1] < grid[1]; ++pid[1])
      for (pid[0] = 0; pid[0] < grid[0]; ++pid[0])
        if (!runBlock(entry))
          return failure();
  return success();
}

Operation *Executor::runBlock(Block &block) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      return &op;
    if (failed(execute(&op)))
      return nullptr;
  }
  (void)fail(block.getParentOp(), "a block without terminator");
  return nullptr;
}

LogicalResult Executor::execute(Operation *op) {
  if (isArithOp(op))
    return executeArith(*this, op);
  if (isa<scf::ForOp>(op))
    return executeFor(op);
  if (isa<scf::IfOp>(op))
    return executeIf(op);
  if (isa<scf::WhileOp>(op))
    return executeWhile(op);
  if (isa<tile::ReduceWithOp, tile::ScanOp>(op))
    return executeCombine(op);
  return executeTileOp(op);
}

void Executor::assign(ValueRange to, ValueRange from) {
  bool overlap = false;
  for (Value source : from)
    overlap |= llvm::is_contained(to, source);
  if (!overlap) {
    for (auto [target, source] : llvm::zip(to, from))
      slots[slotOf.find(target)->second] = get(source);
    return;
  }
  scratch.resize(from.size());
  for (auto [i, source] : llvm::enumerate(from))
    scratch[i] = get(source);
  for (auto [i, target] : llvm::enumerate(to))
    std::swap(slots[slotOf.find(target)->second], scratch[i]);
}

LogicalResult Executor::executeFor(Operation *op) {
  auto forOp = cast<scf::ForOp>(op);
  int64_t lower = get(forOp.getLowerBound()).ints[0];
  int64_t upper = get(forOp.getUpperBound()).ints[0];
  int64_t step = get(forOp.getStep()).ints[0];
  ElemKind kind;
  elemKindOf(forOp.getInductionVar().getType(), kind);
  unsigned width = bitWidth(kind);
  bool isUnsigned = bool(forOp.getUnsignedCmp());
  if (isUnsigned) {
    lower = int64_t(zeroExtend(lower, width));
    upper = int64_t(zeroExtend(upper, width));
  }
  if (step <= 0)
    return fail(op, "the loop's step is " + llvm::Twine(step) + " at " +
                        program() + ": it must be positive");

  Block *body = forOp.getBody();
  assign(forOp.getRegionIterArgs(), forOp.getInitArgs());
  Value iv = forOp.getInductionVar();
  for (int64_t i = lower;
       isUnsigned ? uint64_t(i) < uint64_t(upper) : i < upper;) {
    define(iv).ints[0] = wrapInt(i, width);
    Operation *yield = runBlock(*body);
    if (!yield)
      return failure();
    assign(forOp.getRegionIterArgs(), yield->getOperands());
    if (__builtin_add_overflow(i, step, &i))
      break;
  }
  assign(forOp.getResults(), forOp.getRegionIterArgs());
  return success();
}

LogicalResult Executor::executeIf(Operation *op) {
  auto ifOp = cast<scf::IfOp>(op);
  bool condition = get(ifOp.getCondition()).ints[0] != 0;
  Region &region = condition ? ifOp.getThenRegion() : ifOp.getElseRegion();
  if (region.empty())
    return success(); // no else, hence no results
  Operation *yield = runBlock(region.front());
  if (!yield)
    return failure();
  assign(ifOp.getResults(), yield->getOperands());
  return success();
}

LogicalResult Executor::executeWhile(Operation *op) {
  auto whileOp = cast<scf::WhileOp>(op);
  Block &before = whileOp.getBefore().front();
  Block &after = whileOp.getAfter().front();
  assign(before.getArguments(), whileOp.getInits());
  while (true) {
    Operation *terminator = runBlock(before);
    if (!terminator)
      return failure();
    auto condition = cast<scf::ConditionOp>(terminator);
    if (get(condition.getCondition()).ints[0] == 0) {
      assign(whileOp.getResults(), condition.getArgs());
      return success();
    }
    assign(after.getArguments(), condition.getArgs());
    Operation *yield = runBlock(after);
    if (!yield)
      return failure();
    assign(before.getArguments(), yield->getOperands());
  }
}

uint8_t *Executor::address(Operation *op, const char *what, const TValue &ptrs,
                           size_t i, ElemKind kind) {
  const Pointer &p = ptrs.ptrs[i];
  if (p.arg < 0) {
    (void)fail(op, llvm::Twine(what) + " through address 0x" +
                       llvm::Twine::utohexstr(uint64_t(p.offset)) + " at " +
                       program() + ", which lies in no buffer argument");
    return nullptr;
  }
  const InterpreterArg &buffer = args[size_t(p.arg)];
  unsigned bytes = storageBytes(kind);
  if (p.offset >= 0 && uint64_t(p.offset) + bytes <= buffer.bytes)
    return static_cast<uint8_t *>(buffer.data) + p.offset;
  bool load = llvm::StringRef(what) == "tl.load";
  std::string element =
      ptrs.isScalar()
          ? std::string("the scalar pointer")
          : "element " + formatIndex(ptrs.shape, i) + " of the tile";
  (void)fail(op, llvm::Twine(what) + " out of bounds: " + element + " at " +
                     program() + (load ? " reads" : " writes") +
                     " byte offset " + llvm::Twine(p.offset) + " of " +
                     bufferName(p.arg) + " (" + llvm::Twine(buffer.bytes) +
                     " bytes)");
  return nullptr;
}

LogicalResult Executor::executeLoad(Operation *op) {
  auto load = cast<tile::LoadOp>(op);
  const TValue &ptrs = get(load.getPtr());
  const TValue *mask = load.getMask() ? &get(load.getMask()) : nullptr;
  const TValue *other = load.getOther() ? &get(load.getOther()) : nullptr;
  TValue &result = define(load.getResult());
  size_t n = result.size();
  if (ptrs.size() != n || (mask && mask->size() != n && mask->size() != 1) ||
      (other && other->size() != n && other->size() != 1))
    return fail(op, "tl.load: the pointer, mask and other tiles have " +
                        llvm::Twine(ptrs.size()) + ", " +
                        llvm::Twine(mask ? mask->size() : n) + " and " +
                        llvm::Twine(other ? other->size() : n) +
                        " elements at " + program() + ", the result " +
                        llvm::Twine(n));
  ElemKind kind = result.kind;
  bool intKind = isInt(kind);
  size_t maskStep = mask && mask->size() != 1;
  size_t otherStep = other && other->size() != 1;
  int64_t intValue = 0;
  double floatValue = 0;
  for (size_t i = 0; i < n; ++i) {
    if (mask && mask->ints[i * maskStep] == 0) {
      if (other)
        result.copyElement(i, *other, i * otherStep);
      else if (intKind)
        result.ints[i] = 0;
      else
        result.floats[i] = 0;
      continue;
    }
    uint8_t *address = this->address(op, "tl.load", ptrs, i, kind);
    if (!address)
      return failure();
    readElement(address, kind, intValue, floatValue);
    if (intKind)
      result.ints[i] = intValue;
    else
      result.floats[i] = floatValue;
  }
  return success();
}

LogicalResult Executor::executeStore(Operation *op) {
  auto store = cast<tile::StoreOp>(op);
  const TValue &ptrs = get(store.getPtr());
  const TValue &value = get(store.getValue());
  const TValue *mask = store.getMask() ? &get(store.getMask()) : nullptr;
  size_t n = ptrs.size();
  if ((value.size() != n && value.size() != 1) ||
      (mask && mask->size() != n && mask->size() != 1))
    return fail(op, "tl.store: the pointer, value and mask tiles have " +
                        llvm::Twine(n) + ", " + llvm::Twine(value.size()) +
                        " and " + llvm::Twine(mask ? mask->size() : n) +
                        " elements at " + program());
  ElemKind kind = value.kind;
  bool intKind = isInt(kind);
  size_t maskStep = mask && mask->size() != 1;
  size_t valueStep = value.size() != 1;
  for (size_t i = 0; i < n; ++i) {
    if (mask && mask->ints[i * maskStep] == 0)
      continue;
    uint8_t *address = this->address(op, "tl.store", ptrs, i, kind);
    if (!address)
      return failure();
    size_t j = i * valueStep;
    writeElement(address, kind, intKind ? value.ints[j] : 0,
                 intKind ? 0 : value.floats[j]);
  }
  return success();
}

LogicalResult Executor::executeTileOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<tile::ProgramIdOp, tile::NumProgramsOp>([&](auto idOp) {
        unsigned axis = idOp.getAxis();
        if (axis > 2)
          return fail(op,
                      "grid axis " + llvm::Twine(axis) + " is not 0, 1 or 2");
        bool isPid = isa<tile::ProgramIdOp>(op);
        define(op->getResult(0)).ints[0] = isPid ? pid[axis] : grid[axis];
        return success();
      })
      .Case([&](tile::MakeRangeOp range) {
        int64_t start = int32_t(range.getStart());
        int64_t end = int32_t(range.getEnd());
        TValue &result = define(range.getResult());
        if (end < start || int64_t(result.size()) != end - start)
          return fail(op, "tl.arange(" + llvm::Twine(start) + ", " +
                              llvm::Twine(end) + ") does not have " +
                              llvm::Twine(result.size()) + " elements");
        for (size_t i = 0, n = result.size(); i < n; ++i)
          result.ints[i] = start + int64_t(i);
        return success();
      })
      .Case([&](tile::SplatOp splat) {
        const TValue &source = get(splat.getSrc());
        TValue &result = define(splat.getResult());
        if (source.size() != 1)
          return fail(op, "splat of a value of " + llvm::Twine(source.size()) +
                              " elements at " + program());
        if (isInt(result.kind))
          std::fill(result.ints.begin(), result.ints.end(), source.ints[0]);
        else if (isFloat(result.kind))
          std::fill(result.floats.begin(), result.floats.end(),
                    source.floats[0]);
        else
          std::fill(result.ptrs.begin(), result.ptrs.end(), source.ptrs[0]);
        return success();
      })
      .Case([&](tile::BroadcastOp broadcast) {
        const TValue &source = get(broadcast.getSrc());
        TValue &result = define(broadcast.getResult());
        ArrayRef<int64_t> from = source.shape, to = result.shape;
        size_t rank = to.size();
        // Strides of the source along the result's dimensions, 0 where it
        // repeats; shapes are aligned on the right, as numpy does.
        llvm::SmallVector<int64_t, 4> stride(rank, 0);
        int64_t step = 1;
        for (size_t d = rank, s = from.size(); d-- > 0;) {
          if (s == 0)
            continue;
          int64_t extent = from[--s];
          if (extent != to[d] && extent != 1)
            return fail(op, "cannot broadcast " + formatIndex(from, 0) +
                                " at " + program());
          stride[d] = extent == 1 ? 0 : step;
          step *= extent;
        }
        if (rank < from.size() || size_t(step) != source.size())
          return fail(op, "broadcast of a tile of " +
                              llvm::Twine(source.size()) + " elements at " +
                              program());
        gatherStrided(result, source, stride);
        return success();
      })
      .Case([&](tile::ExpandDimsOp expand) {
        const TValue &source = get(expand.getSrc());
        TValue &result = define(expand.getResult());
        if (source.size() != result.size())
          return fail(op, "expand_dims of a tile of " +
                              llvm::Twine(source.size()) + " elements at " +
                              program());
        copyData(result, source);
        return success();
      })
      .Case([&](tile::TransOp trans) {
        const TValue &source = get(trans.getSrc());
        TValue &result = define(trans.getResult());
        ArrayRef<int32_t> order = trans.getOrder();
        ArrayRef<int64_t> from = source.shape, to = result.shape;
        size_t rank = to.size();
        if (from.size() != rank || source.size() != result.size())
          return fail(op, "trans of a tile of " + llvm::Twine(source.size()) +
                              " elements at " + program());
        // Row-major strides of the source, then walk the result in order.
        llvm::SmallVector<int64_t, 4> srcStride(rank, 1), stride(rank);
        for (size_t d = rank - 1; d-- > 0;)
          srcStride[d] = srcStride[d + 1] * from[d + 1];
        for (size_t d = 0; d < rank; ++d)
          stride[d] = srcStride[order[d]];
        gatherStrided(result, source, stride);
        return success();
      })
      .Case([&](tile::ReshapeOp reshape) {
        const TValue &source = get(reshape.getSrc());
        TValue &result = define(reshape.getResult());
        if (source.size() != result.size())
          return fail(op, "reshape of a tile of " + llvm::Twine(source.size()) +
                              " elements at " + program());
        copyData(result, source);
        return success();
      })
      .Case([&](tile::JoinOp join) {
        const TValue &lhs = get(join.getLhs()), &rhs = get(join.getRhs());
        TValue &result = define(join.getResult());
        size_t n = std::max<size_t>(lhs.size(), 1);
        if (rhs.size() != lhs.size() || result.size() != 2 * n)
          return fail(op, "join of tiles of " + llvm::Twine(lhs.size()) +
                              " and " + llvm::Twine(rhs.size()) +
                              " elements at " + program());
        for (size_t i = 0; i < n; ++i) {
          result.copyElement(2 * i, lhs, i);
          result.copyElement(2 * i + 1, rhs, i);
        }
        return success();
      })
      .Case([&](tile::SplitOp split) {
        const TValue &source = get(split.getSrc());
        TValue &lhs = define(split.getLhs());
        TValue &rhs = define(split.getRhs());
        size_t n = lhs.size();
        if (source.size() != 2 * n || rhs.size() != n)
          return fail(op, "split of a tile of " + llvm::Twine(source.size()) +
                              " elements at " + program());
        for (size_t i = 0; i < n; ++i) {
          lhs.copyElement(i, source, 2 * i);
          rhs.copyElement(i, source, 2 * i + 1);
        }
        return success();
      })
      .Case([&](tile::ButterflyOp butterfly) {
        const TValue &source = get(butterfly.getSrc());
        TValue &result = define(butterfly.getResult());
        ArrayRef<int64_t> shape = source.shape;
        size_t axis = butterfly.getAxis();
        if (source.size() != result.size() || axis >= shape.size())
          return fail(op, "butterfly of a tile of " +
                              llvm::Twine(source.size()) + " elements at " +
                              program());
        int64_t inner = 1;
        for (size_t d = axis + 1; d < shape.size(); ++d)
          inner *= shape[d];
        // Flipping bit `bit` of the index along the axis moves the row-major
        // position by `inner << bit` one way or the other.
        int64_t move = inner << butterfly.getBit();
        for (size_t i = 0, n = source.size(); i < n; ++i) {
          int64_t along = int64_t(i) / inner % shape[axis];
          bool high = (along >> butterfly.getBit()) & 1;
          result.copyElement(i, source, size_t(high ? i - move : i + move));
        }
        return success();
      })
      .Case([&](tile::GatherOp gather) {
        const TValue &source = get(gather.getSrc());
        const TValue &indices = get(gather.getIndices());
        TValue &result = define(gather.getResult());
        ArrayRef<int64_t> shape = indices.shape;
        size_t axis = gather.getAxis();
        // Row-major strides: along `axis`, the source's and the result's.
        int64_t inner = 1;
        for (size_t d = axis + 1; d < shape.size(); ++d)
          inner *= shape[d];
        int64_t extent = source.shape[axis];
        for (size_t i = 0, n = indices.size(); i < n; ++i) {
          int64_t index = indices.ints[i];
          if (index < 0 || index >= extent)
            return fail(op, "tl.gather index " + llvm::Twine(index) +
                                " is outside [0, " + llvm::Twine(extent) +
                                ") along axis " + llvm::Twine(axis) + " at " +
                                program());
          int64_t outer = int64_t(i) / inner / shape[axis];
          int64_t within = int64_t(i) % inner;
          result.copyElement(i, source,
                             size_t((outer * extent + index) * inner + within));
        }
        return success();
      })
      .Case([&](tile::HistogramOp histogram) {
        const TValue &source = get(histogram.getSrc());
        TValue &result = define(histogram.getResult());
        const TValue *mask =
            histogram.getMask() ? &get(histogram.getMask()) : nullptr;
        int64_t bins = int64_t(result.size());
        std::fill(result.ints.begin(), result.ints.end(), 0);
        for (size_t i = 0, n = source.size(); i < n; ++i) {
          int64_t v = source.ints[i];
          if ((!mask || mask->ints[i]) && v >= 0 && v < bins)
            ++result.ints[size_t(v)];
        }
        return success();
      })
      .Case([&](tile::ReduceOp reduce) {
        const TValue &source = get(reduce.getSrc());
        TValue &result = define(reduce.getResult());
        ArrayRef<int64_t> shape = source.shape;
        size_t axis = reduce.getAxis();
        int64_t outer = 1, inner = 1, length = shape[axis];
        for (size_t d = 0; d < shape.size(); ++d)
          (d < axis ? outer : inner) *= d == axis ? 1 : shape[d];
        if (int64_t(result.size()) != outer * inner)
          return fail(op, "reduction to " + llvm::Twine(result.size()) +
                              " elements at " + program());
        tile::ReduceKind kind = reduce.getKind();
        // Integers and extremes come out the same in any order. A float
        // sum is added pairwise, halving, rounding after each step: the
        // order of the GPU's shuffles between lanes, and as close to it as
        // one order can be (a sum in order along the axis loses most of a
        // bf16 row's precision, which no GPU reduction does).
        std::vector<double> partial(static_cast<size_t>(length));
        for (int64_t o = 0; o < outer; ++o)
          for (int64_t i = 0; i < inner; ++i) {
            size_t first = size_t(o * length * inner + i);
            if (isInt(source.kind)) {
              unsigned width = bitWidth(source.kind);
              int64_t acc = source.ints[first];
              for (int64_t k = 1; k < length; ++k) {
                int64_t x = source.ints[first + size_t(k * inner)];
                acc = kind == tile::ReduceKind::Sum ? wrapInt(acc + x, width)
                      : kind == tile::ReduceKind::Max ? std::max(acc, x)
                      : kind == tile::ReduceKind::Xor ? acc ^ x
                                                      : std::min(acc, x);
              }
              result.ints[size_t(o * inner + i)] = acc;
            } else if (kind == tile::ReduceKind::Sum) {
              for (int64_t k = 0; k < length; ++k)
                partial[size_t(k)] = source.floats[first + size_t(k * inner)];
              for (int64_t n = length; n > 1;) {
                int64_t half = (n + 1) / 2;
                for (int64_t k = 0; k + half < n; ++k)
                  partial[size_t(k)] = roundFloat(
                      partial[size_t(k)] + partial[size_t(k + half)],
                      source.kind);
                n = half;
              }
              result.floats[size_t(o * inner + i)] = partial.front();
            } else {
              double acc = source.floats[first];
              for (int64_t k = 1; k < length; ++k) {
                double x = source.floats[first + size_t(k * inner)];
                acc = kind == tile::ReduceKind::Max ? std::fmax(acc, x)
                                                    : std::fmin(acc, x);
              }
              result.floats[size_t(o * inner + i)] = acc;
            }
          }
        return success();
      })
      .Case([&](tile::AddPtrOp addptr) {
        const TValue &ptrs = get(addptr.getPtr());
        const TValue &offsets = get(addptr.getOffset());
        TValue &result = define(addptr.getResult());
        size_t n = result.size();
        if (ptrs.size() != n || offsets.size() != n)
          return fail(op, "addptr of tiles of " + llvm::Twine(ptrs.size()) +
                              " and " + llvm::Twine(offsets.size()) +
                              " elements at " + program());
        ElemKind pointee;
        if (!elemKindOf(
                tile::getPointeeType(getElementTypeOrSelf(addptr.getType())),
                pointee))
          return fail(op, "the interpreter does not support this pointee type");
        uint64_t bytes = storageBytes(pointee);
        for (size_t i = 0; i < n; ++i)
          result.ptrs[i] = Pointer{int64_t(uint64_t(ptrs.ptrs[i].offset) +
                                           uint64_t(offsets.ints[i]) * bytes),
                                   ptrs.ptrs[i].arg};
        return success();
      })
      .Case([&](tile::PtrToIntOp cast) {
        // The buffer's host address plus the offset.
        const TValue &ptrs = get(cast.getPtr());
        TValue &result = define(cast.getResult());
        for (size_t i = 0, n = result.size(); i < n; ++i) {
          const Pointer &p = ptrs.ptrs[i];
          uint64_t base = p.arg < 0 ? 0
                                    : uint64_t(uintptr_t(args[size_t(p.arg)].data));
          result.ints[i] = int64_t(base + uint64_t(p.offset));
        }
        return success();
      })
      .Case([&](tile::IntToPtrOp cast) {
        // Back into the argument buffer the address lies in (one past its
        // end included); an address in none can only be reported when used.
        const TValue &addresses = get(cast.getAddress());
        TValue &result = define(cast.getResult());
        for (size_t i = 0, n = result.size(); i < n; ++i) {
          uint64_t address = uint64_t(addresses.ints[i]);
          Pointer p{int64_t(address), -1};
          for (auto [a, arg] : llvm::enumerate(args)) {
            uint64_t base = uint64_t(uintptr_t(arg.data));
            if (arg.kind == InterpreterArg::Kind::Buffer && arg.data &&
                address >= base && address <= base + arg.bytes) {
              p = Pointer{int64_t(address - base), int64_t(a)};
              break;
            }
          }
          result.ptrs[i] = p;
        }
        return success();
      })
      .Case<tile::DotOp>([&](auto) { return executeDot(*this, op); })
      .Case<tile::LoadOp>([&](auto) { return executeLoad(op); })
      .Case<tile::StoreOp>([&](auto) { return executeStore(op); })
      .Case<tile::AtomicRMWOp, tile::AtomicCASOp>(
          [&](auto) { return executeAtomic(op); })
      // A program runs as one: no thread waits for another.
      .Case<tile::DebugBarrierOp, tile::GridDependencyOp>(
          [&](auto) { return success(); })
      .Case([&](tile::PrintOp print) {
        // The lines the GPU prints (PrintFormat.h), program by program.
        bool several = print.getArgs().size() > 1;
        if (print.getArgs().empty())
          std::printf("pid (%u, %u, %u) %s\n", pid[0], pid[1], pid[2],
                      print.getPrefix().str().c_str());
        for (auto [k, arg] : llvm::enumerate(print.getArgs())) {
          const TValue &v = get(arg);
          tile::PrintConversion conversion = tile::getPrintConversion(
              isFloat(v.kind), bitWidth(v.kind), print.getIsSigned()[k],
              print.getHex());
          std::string text;
          for (size_t i = 0, n = v.size(); i < n; ++i) {
            std::string index = formatIndex(v.shape, i);
            text += "pid (" + std::to_string(pid[0]) + ", " +
                    std::to_string(pid[1]) + ", " + std::to_string(pid[2]) +
                    ") idx (" + index.substr(1, index.size() - 2) + ")" +
                    print.getPrefix().str();
            if (several)
              text += "(operand " + std::to_string(k) + ") ";
            text += formatPrinted(v, i, conversion) + "\n";
          }
          std::fwrite(text.data(), 1, text.size(), stdout);
        }
        std::fflush(stdout);
        return success();
      })
      .Case([&](tile::AssertOp check) {
        const TValue &ok = get(check.getCondition());
        for (size_t i = 0, n = ok.size(); i < n; ++i)
          if (!ok.ints[i])
            return fail(op, "device assertion failed: " +
                                (check.getMessage().empty()
                                     ? llvm::Twine("(no message)")
                                     : llvm::Twine(check.getMessage())) +
                                " at " + program() +
                                (ok.isScalar() ? ""
                                               : ", element " +
                                                     formatIndex(ok.shape, i)));
        return success();
      })
      .Case([&](tile::HintOp hint) {
        define(hint.getResult()) = get(hint.getSrc());
        return success();
      })
      .Case([&](tile::AssumeOp assume) {
        // The GPU would rely on it; the interpreter says when it is false.
        if (get(assume.getCond()).ints[0] == 0)
          return fail(op, "tl.assume: the condition is false at " + program());
        return success();
      })
      .Default([&](Operation *) {
        return fail(op, "the interpreter does not support '" +
                            op->getName().getStringRef() + "'");
      });
}

LogicalResult tilec::interpret(ModuleOp module, llvm::StringRef kernel,
                               unsigned gridX, unsigned gridY, unsigned gridZ,
                               ArrayRef<InterpreterArg> args) {
  func::FuncOp func;
  if (kernel.empty()) {
    auto funcs = module.getOps<func::FuncOp>();
    if (!funcs.empty() && std::next(funcs.begin()) == funcs.end())
      func = *funcs.begin();
    else
      return module.emitError("give the kernel to run: the module has ")
             << std::distance(funcs.begin(), funcs.end()) << " functions";
  } else {
    func = module.lookupSymbol<func::FuncOp>(kernel);
    if (!func)
      return module.emitError("no kernel named '") << kernel << "'";
  }
  if (gridX == 0 || gridY == 0 || gridZ == 0)
    return func.emitError("the grid (")
           << gridX << ", " << gridY << ", " << gridZ << ") has no programs";
  const unsigned grid[3] = {gridX, gridY, gridZ};
  Executor executor(func, args, grid);
  if (failed(executor.prepare()))
    return failure();
  return executor.run();
}
