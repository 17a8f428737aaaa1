//===- TypeConverter.cpp - Types of laid-out tiles in LLVM ----------------===//

#include "tilec/Conversion/TileGPUToNVVM/TileGPUToNVVM.h"

#include "tilec/Dialect/TileGPU/IR/ThreadLayout.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tilegpu;

/// Global memory in NVPTX.
static constexpr unsigned kGlobalAddressSpace = 1;
/// Shared memory in NVPTX.
static constexpr unsigned kSharedAddressSpace = 3;

TileGPUTypeConverter::TileGPUTypeConverter(MLIRContext *context) {
  addConversion([](Type type) { return type; });
  // LLVM has no fp8: its bits travel as i8 (FP8ToLLVM converts them).
  addConversion([context](FloatType type) -> std::optional<Type> {
    if (!tile::isFP8(type))
      return std::nullopt;
    return IntegerType::get(context, 8);
  });
  addConversion([context](tile::PointerType) -> Type {
    return LLVM::LLVMPointerType::get(context, kGlobalAddressSpace);
  });
  // Bulk copies read a tensor map through its generic address, wherever
  // it is (global scratch or a kernel parameter).
  addConversion([context](TensorMapType) -> Type {
    return LLVM::LLVMPointerType::get(context);
  });
  // A shared-memory buffer is its address.
  addConversion([context](MemDescType) -> Type {
    return LLVM::LLVMPointerType::get(context, kSharedAddressSpace);
  });
  addConversion([this](RankedTensorType type, SmallVectorImpl<Type> &results)
                    -> std::optional<LogicalResult> {
    std::optional<ThreadLayout> layout = ThreadLayout::get(type);
    if (!layout)
      return failure();
    Type element = convertType(type.getElementType());
    if (!element)
      return failure();
    results.append(layout->getNumElems(), element);
    return success();
  });
}
