//===- DebugToLLVM.cpp - tile.print and tile.assert through CUDA's calls --===//
//
// tile.print calls CUDA's `vprintf(format, args)` once per element a
// thread owns (copies and padding stay silent; a scalar prints from thread
// 0), with the format of PrintFormat.h and its arguments packed in a local
// buffer as C varargs would be: 32-bit ints, then 64-bit values at 8-byte
// alignment. tile.assert calls `__assertfail(message, file, line,
// function, 1)` in a thread holding a false element, which prints CUDA's
// assertion message and traps: the launch fails with an assertion error.
// ptxas resolves both calls.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"
#include "tilec/Dialect/Tile/IR/PrintFormat.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

/// The address of a NUL-terminated constant string in `from`'s module,
/// one global per distinct text.
Value getStringAddress(OpBuilder &b, Location loc, Operation *from,
                       StringRef text) {
  auto module = from->getParentOfType<ModuleOp>();
  std::string contents = text.str();
  contents.push_back('\0');
  std::string name;
  LLVM::GlobalOp global;
  for (unsigned i = 0;; ++i) {
    name = "tilec_str_" + std::to_string(i);
    global = module.lookupSymbol<LLVM::GlobalOp>(name);
    if (!global)
      break;
    auto value = dyn_cast_or_null<StringAttr>(global.getValueOrNull());
    if (value && value.getValue() == contents)
      break;
  }
  if (!global) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto type = LLVM::LLVMArrayType::get(b.getI8Type(), contents.size());
    global = LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                                    LLVM::Linkage::Internal, name,
                                    b.getStringAttr(contents));
  }
  return LLVM::AddressOfOp::create(b, loc, global);
}

/// A buffer on the thread's stack, made at the function's entry (NVPTX
/// wants static allocas).
Value allocaAtEntry(OpBuilder &b, Location loc, Operation *from, Type type) {
  OpBuilder::InsertionGuard guard(b);
  auto func = from->getParentOfType<FunctionOpInterface>();
  b.setInsertionPointToStart(&func.getFunctionBody().front());
  Value one = LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                       b.getI32IntegerAttr(1));
  return LLVM::AllocaOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()),
                                type, one, /*alignment=*/8);
}

/// `v` as printf takes it under `conversion`.
Value toPrintArgument(OpBuilder &b, Location loc, Value v,
                      const tile::PrintConversion &conversion) {
  Type type = v.getType();
  if (conversion.asDouble)
    return type.isF64() ? v : LLVM::FPExtOp::create(b, loc, b.getF64Type(), v);
  if (isa<FloatType>(type)) // hex: the bits
    v = LLVM::BitcastOp::create(
        b, loc, b.getIntegerType(type.getIntOrFloatBitWidth()), v);
  Type wide = conversion.is64 ? b.getI64Type() : b.getI32Type();
  if (v.getType() == wide)
    return v;
  if (conversion.signExtend)
    return LLVM::SExtOp::create(b, loc, wide, v);
  return LLVM::ZExtOp::create(b, loc, wide, v);
}

/// vprintf(format, buffer) with `fields` stored in the buffer, where
/// `when` holds (always when null).
void emitPrintf(OpBuilder &b, Location loc, Operation *op, Value when,
                Value format, Value buffer, Type bufferType,
                ArrayRef<Value> fields) {
  OpBuilder::InsertionGuard guard(b);
  if (when) {
    auto branch = scf::IfOp::create(b, loc, when, /*withElseRegion=*/false);
    b.setInsertionPointToStart(branch.thenBlock());
  }
  for (auto [f, v] : llvm::enumerate(fields)) {
    Value slot = LLVM::GEPOp::create(
        b, loc, LLVM::LLVMPointerType::get(b.getContext()), bufferType, buffer,
        ArrayRef<LLVM::GEPArg>{0, int32_t(f)});
    LLVM::StoreOp::create(b, loc, v, slot);
  }
  callExternal(b, loc, op, "vprintf", b.getI32Type(), {format, buffer});
}

/// Where the op stands in the source, for __assertfail.
FileLineColLoc findFileLine(Location loc) {
  FileLineColLoc found;
  loc->walk([&](Location inner) {
    if (auto fileLine = dyn_cast<FileLineColLoc>(inner)) {
      found = fileLine;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

struct PrintToLLVM : OpConversionPattern<tile::PrintOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::PrintOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Type i32 = rewriter.getI32Type();
    SmallVector<Value> pids = {emitProgramId(rewriter, loc, op, 0),
                               emitProgramId(rewriter, loc, op, 1),
                               emitProgramId(rewriter, loc, op, 2)};
    bool several = op.getArgs().size() > 1;
    if (op.getArgs().empty()) {
      // Only text: once per program, from thread 0.
      Value format = getStringAddress(
          rewriter, loc, op, tile::getPrintMessageFormat(op.getPrefix().str()));
      auto bufferType = LLVM::LLVMStructType::getLiteral(
          context, SmallVector<Type>(3, i32));
      Value buffer = allocaAtEntry(rewriter, loc, op, bufferType);
      emitPrintf(rewriter, loc, op, emitIsFirstThread(rewriter, loc), format,
                 buffer, bufferType, pids);
    }
    for (auto [k, arg] : llvm::enumerate(op.getArgs())) {
      ValueRange values = adaptor.getArgs()[k];
      Type element = getElementTypeOrSelf(arg.getType());
      tile::PrintConversion conversion = tile::getPrintConversion(
          isa<FloatType>(element), element.getIntOrFloatBitWidth(),
          op.getIsSigned()[k], op.getHex());
      auto tensor = dyn_cast<RankedTensorType>(arg.getType());
      unsigned rank = tensor ? tensor.getRank() : 0;
      Value format = getStringAddress(
          rewriter, loc, op,
          tile::getPrintLineFormat(op.getPrefix().str(), rank,
                                   several ? int(k) : -1, conversion));
      // The argument buffer: three program ids, the indices, the value.
      SmallVector<Type> fields(3 + rank, i32);
      fields.push_back(conversion.asDouble ? (Type)rewriter.getF64Type()
                       : conversion.is64   ? (Type)rewriter.getI64Type()
                                           : i32);
      auto bufferType = LLVM::LLVMStructType::getLiteral(context, fields);
      Value buffer = allocaAtEntry(rewriter, loc, op, bufferType);

      SmallVector<SmallVector<Value>> indices;
      SmallVector<Value> owners;
      if (tensor) {
        ThreadLayout layout = getThreadLayout(tensor);
        indices = emitElementIndices(rewriter, loc, layout);
        owners = emitOwnership(rewriter, loc, layout);
      } else {
        // A scalar prints once per program, from thread 0.
        indices.emplace_back();
        owners.push_back(emitIsFirstThread(rewriter, loc));
      }
      for (auto [e, value] : llvm::enumerate(values)) {
        SmallVector<Value> fieldValues(pids);
        llvm::append_range(fieldValues, indices[e]);
        fieldValues.push_back(toPrintArgument(rewriter, loc, value, conversion));
        emitPrintf(rewriter, loc, op, owners.empty() ? Value() : owners[e],
                   format, buffer, bufferType, fieldValues);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

struct AssertToLLVM : OpConversionPattern<tile::AssertOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(tile::AssertOp op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ValueRange conditions = adaptor.getCondition();
    // Padding never fails.
    SmallVector<Value> valid;
    if (auto tensor = dyn_cast<RankedTensorType>(op.getCondition().getType()))
      valid = emitValidity(rewriter, loc, getThreadLayout(tensor));
    Value yes = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                         rewriter.getBoolAttr(true));
    Value failed;
    for (auto [e, ok] : llvm::enumerate(conditions)) {
      Value bad = LLVM::XOrOp::create(rewriter, loc, ok, yes);
      if (!valid.empty())
        bad = LLVM::AndOp::create(rewriter, loc, bad, valid[e]);
      failed = failed ? (Value)LLVM::OrOp::create(rewriter, loc, failed, bad) : bad;
    }
    FileLineColLoc where = findFileLine(loc);
    auto func = op->getParentOfType<FunctionOpInterface>();
    auto branch = scf::IfOp::create(rewriter, loc, failed,
                                    /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(branch.thenBlock());
    Value message = getStringAddress(rewriter, loc, op, op.getMessage());
    Value file = getStringAddress(rewriter, loc, op,
                                  where ? where.getFilename().getValue() : "");
    Value line = i32Constant(rewriter, loc, where ? where.getLine() : 0);
    Value function = getStringAddress(rewriter, loc, op, func.getName());
    Value charSize = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI64Type(),
                                              rewriter.getI64IntegerAttr(1));
    callExternal(rewriter, loc, op, "__assertfail",
                 LLVM::LLVMVoidType::get(rewriter.getContext()),
                 {message, file, line, function, charSize});
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tilegpu::populateDebugToLLVMPatterns(
    const TileGPUTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<PrintToLLVM, AssertToLLVM>(converter, patterns.getContext());
}
