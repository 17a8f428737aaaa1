//===- HostTensorMaps.cpp - Tensor maps the launcher builds ---------------===//

#include "HostTensorMaps.h"

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Dialect/TileGPU/IR/Target.h"
#include "tilec/Dialect/TileGPU/IR/TileGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// Recipes bigger than this are not worth a launcher's time (and a value
/// reached along many paths would repeat in the tree).
constexpr unsigned kMaxRecipeNodes = 64;

/// Builds recipes (HostTensorMaps.h) of the values of one kernel.
class RecipeBuilder {
public:
  explicit RecipeBuilder(func::FuncOp func)
      : func(func), b(func.getContext()) {}

  /// The recipe of `value`, or null when it is not a function of the
  /// kernel's arguments.
  Attribute get(Value value) {
    if (++nodes > kMaxRecipeNodes)
      return {};
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      // A persistent kernel's programs along an axis: the grid's extent.
      if (arg.getOwner() == &func.getBody().front())
        if (auto axis = func.getArgAttrOfType<IntegerAttr>(
                arg.getArgNumber(), TileGPUDialect::getProgramsParamAttrName()))
          return node("grid", {b.getI64IntegerAttr(axis.getInt())});
      // The user's signed integer and pointer parameters only (launchers
      // sign-extend integers): not a tensor map or the scratch.
      if (arg.getOwner() != &func.getBody().front() ||
          func.getArgAttr(arg.getArgNumber(),
                          TileGPUDialect::getGlobalScratchAttrName()) ||
          func.getArgAttr(arg.getArgNumber(),
                          TileGPUDialect::getLaunchParamAttrName()) ||
          func.getArgAttr(arg.getArgNumber(),
                          mlir::tile::TileDialect::getUnsignedAttrName()) ||
          !isa<IntegerType, tile::PointerType>(arg.getType()))
        return {};
      return node("arg", {b.getI64IntegerAttr(arg.getArgNumber())});
    }
    Operation *def = value.getDefiningOp();
    if (!def)
      return {};
    return TypeSwitch<Operation *, Attribute>(def)
        .Case([&](arith::ConstantOp op) -> Attribute {
          auto integer = dyn_cast<IntegerAttr>(op.getValue());
          if (!integer || !integer.getType().isSignlessInteger())
            return {};
          return b.getI64IntegerAttr(integer.getValue().getSExtValue());
        })
        .Case([&](arith::ExtSIOp op) { return get(op.getIn()); })
        .Case([&](arith::AddIOp op) { return wrapping("add", op); })
        .Case([&](arith::SubIOp op) { return wrapping("sub", op); })
        .Case([&](arith::MulIOp op) { return wrapping("mul", op); })
        .Case([&](arith::DivSIOp op) { return binary("div", op); })
        .Case([&](arith::CeilDivSIOp op) { return binary("ceildiv", op); })
        .Case([&](arith::RemSIOp op) { return binary("rem", op); })
        .Case([&](arith::MinSIOp op) { return binary("min", op); })
        .Case([&](arith::MaxSIOp op) { return binary("max", op); })
        .Case([&](tile::AddPtrOp op) -> Attribute {
          // Pointer offsets count elements; the recipe counts bytes, in
          // 64 bits as the address arithmetic does.
          Attribute base = get(op.getPtr());
          Attribute offset = get(op.getOffset());
          if (!base || !offset)
            return {};
          int64_t bytes = getElementBytes(op.getPtr().getType());
          return node("add", {base, node("mul", {offset, b.getI64IntegerAttr(bytes)})});
        })
        .Default([](Operation *) { return Attribute(); });
  }

  /// The recipe of an exclusive upper bound of the non-negative i32
  /// `coord`, computed from the program's number, or null.
  Attribute getBound(Value coord) {
    if (!coord.getType().isInteger(32) || ++nodes > kMaxRecipeNodes)
      return {};
    // The tile of a persistent program's loop over them, `for tile in
    // range(program_id, tiles, num_programs)`: below the loop's bound.
    if (auto arg = dyn_cast<BlockArgument>(coord)) {
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!loop || arg != loop.getInductionVar() ||
          !isAtLeast(loop.getLowerBound(), 0) || !isAtLeast(loop.getStep(), 1))
        return {};
      return get(loop.getUpperBound());
    }
    Operation *def = coord.getDefiningOp();
    if (!def)
      return {};
    if (auto program = dyn_cast<tile::ProgramIdOp>(def))
      return node("grid", {b.getI64IntegerAttr(program.getAxis())});
    if (auto rem = dyn_cast<arith::RemSIOp>(def))
      return getBound(rem.getLhs()) ? get(rem.getRhs()) : Attribute();
    if (auto div = dyn_cast<arith::DivSIOp>(def)) {
      Attribute bound = getBound(div.getLhs());
      Attribute divisor = bound ? get(div.getRhs()) : Attribute();
      return divisor ? node("ceildiv", {bound, divisor}) : Attribute();
    }
    return {};
  }

  /// Whether `value` is at least `least` in any launch: a program's id
  /// (0 or more), a number of programs (1 or more), or such a constant.
  static bool isAtLeast(Value value, int64_t least) {
    if (value.getDefiningOp<tile::ProgramIdOp>())
      return least <= 0;
    if (value.getDefiningOp<tile::NumProgramsOp>())
      return true;
    std::optional<int64_t> constant = getConstantIntValue(value);
    return constant && *constant >= least;
  }

  static int64_t getElementBytes(Type pointer) {
    Type pointee = cast<tile::PointerType>(pointer).getPointeeType();
    return std::max(1u, pointee.getIntOrFloatBitWidth() / 8);
  }

private:
  ArrayAttr node(StringRef op, ArrayRef<Attribute> operands) {
    SmallVector<Attribute> elements = {b.getStringAttr(op)};
    llvm::append_range(elements, operands);
    return b.getArrayAttr(elements);
  }

  Attribute binary(StringRef name, Operation *op) {
    if (!op->getResult(0).getType().isSignlessInteger())
      return {};
    Attribute lhs = get(op->getOperand(0));
    Attribute rhs = lhs ? get(op->getOperand(1)) : Attribute();
    if (!rhs)
      return {};
    return node(name, {lhs, rhs});
  }

  /// Addition, subtraction and multiplication wrap at the result's width;
  /// the launcher computes in 64 bits.
  Attribute wrapping(StringRef name, Operation *op) {
    Attribute result = binary(name, op);
    if (!result || op->getResult(0).getType().isInteger(64))
      return result;
    if (!op->getResult(0).getType().isInteger(32))
      return {};
    return node("i32", {result});
  }

  func::FuncOp func;
  Builder b;
  unsigned nodes = 0;
};

} // namespace

std::optional<HostTensorMap>
mlir::tilegpu::addHostTensorMap(func::FuncOp func,
                                const TensorMapFields &fields) {
  RecipeBuilder recipes(func);
  Builder b(func.getContext());
  auto getAll = [&](ValueRange values, SmallVector<Attribute> &out) {
    for (Value value : values) {
      Attribute recipe = recipes.get(value);
      if (!recipe)
        return false;
      out.push_back(recipe);
    }
    return true;
  };
  SmallVector<Attribute> dims, strides, box;
  for (int32_t extent : fields.box)
    box.push_back(b.getI64IntegerAttr(extent));
  if (!getAll(fields.dims, dims) || !getAll(fields.strides, strides))
    return std::nullopt;
  HostTensorMap result;
  Attribute base = recipes.get(fields.base);
  if (!base && fields.batchOffset) {
    // The batch's bases, one outer dimension per term of the offset.
    const BatchOffset &offset = *fields.batchOffset;
    base = recipes.get(offset.pointer);
    if (!base)
      return std::nullopt;
    for (auto [coord, stride] : llvm::zip(offset.coords, offset.strides)) {
      Attribute extent = recipes.getBound(coord);
      Attribute strideRecipe = extent ? recipes.get(stride) : Attribute();
      if (!strideRecipe)
        return std::nullopt;
      dims.push_back(extent);
      strides.push_back(strideRecipe);
      box.push_back(b.getI64IntegerAttr(1));
      result.outerCoords.push_back(coord);
    }
  }
  // The copy engine's maps have five dimensions at most.
  if (!base || dims.size() > 5)
    return std::nullopt;

  NamedAttrList recipe;
  recipe.append("base", base);
  recipe.append("dims", b.getArrayAttr(dims));
  recipe.append("strides", b.getArrayAttr(strides));
  recipe.append("box", b.getArrayAttr(box));
  recipe.append("element_bytes", b.getI64IntegerAttr(
                                     RecipeBuilder::getElementBytes(fields.base.getType())));
  recipe.append("swizzle", b.getI64IntegerAttr(fields.swizzle));

  // The maps come after the user's parameters and before the scratch and
  // the stream-K parameters, in the order they were made (the metadata's
  // "tensor_maps").
  unsigned at = func.getNumArguments();
  while (at &&
         (func.getArgAttr(at - 1, TileGPUDialect::getGlobalScratchAttrName()) ||
          func.getArgAttr(at - 1, TileGPUDialect::getLaunchParamAttrName())))
    --at;
  NamedAttrList attrs;
  attrs.append(TileGPUDialect::getHostTensorMapAttrName(),
               recipe.getDictionary(func.getContext()));
  attrs.append(mlir::tile::TileDialect::getParamNameAttrName(), b.getStringAttr("tensor_map"));
  (void)func.insertArgument(at, TensorMapType::get(func.getContext()),
                            attrs.getDictionary(func.getContext()), func.getLoc());
  result.map = func.getArgument(at);
  return result;
}
