//===- DType.h - The element types of the kernel ABI ------------*- C++ -*-===//
//
// Every element type a kernel parameter, a buffer or a tile can have, in one
// table: its name in Triton's signature syntax ("fp32"), its name in
// triton.language ("float32"), its class, width and size in memory, and the
// C type a host passes it as. The compiler, the runtime, the C launcher
// generator and the tools all read this table; none spells a dtype itself.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DTYPE_H
#define TILE_DTYPE_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tile {

/// An element type. The order is the table's (kDTypes).
enum class DType : uint8_t {
  I1,
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  FP8E5,
  FP8E4NV,
  FP16,
  BF16,
  FP32,
  FP64,
};

enum class DTypeClass : uint8_t { Bool, Signed, Unsigned, Float };

/// One row of the dtype table.
struct DTypeInfo {
  DType dtype;
  /// Triton's signature and metadata spelling: "fp32", "i32", "u8", "i1".
  std::string_view name;
  /// triton.language's: "float32" (tl.float32), "int32", "uint8", "int1".
  std::string_view tritonName;
  DTypeClass typeClass;
  /// Significant bits: 1 for i1.
  unsigned bits;
  /// Bytes one element takes in memory (an i1 takes a byte).
  unsigned bytes;
  /// The C type a host passes one value as: fp16 and bf16 as their bits
  /// ("uint16_t"), fp8 as its byte, i1 as a byte that is 0 or 1.
  std::string_view cType;
};

/// Every dtype, in DType's order.
inline constexpr DTypeInfo kDTypes[] = {
    {DType::I1, "i1", "int1", DTypeClass::Bool, 1, 1, "int8_t"},
    {DType::I8, "i8", "int8", DTypeClass::Signed, 8, 1, "int8_t"},
    {DType::I16, "i16", "int16", DTypeClass::Signed, 16, 2, "int16_t"},
    {DType::I32, "i32", "int32", DTypeClass::Signed, 32, 4, "int32_t"},
    {DType::I64, "i64", "int64", DTypeClass::Signed, 64, 8, "int64_t"},
    {DType::U8, "u8", "uint8", DTypeClass::Unsigned, 8, 1, "uint8_t"},
    {DType::U16, "u16", "uint16", DTypeClass::Unsigned, 16, 2, "uint16_t"},
    {DType::U32, "u32", "uint32", DTypeClass::Unsigned, 32, 4, "uint32_t"},
    {DType::U64, "u64", "uint64", DTypeClass::Unsigned, 64, 8, "uint64_t"},
    {DType::FP8E5, "fp8e5", "float8e5", DTypeClass::Float, 8, 1, "uint8_t"},
    {DType::FP8E4NV, "fp8e4nv", "float8e4nv", DTypeClass::Float, 8, 1,
     "uint8_t"},
    {DType::FP16, "fp16", "float16", DTypeClass::Float, 16, 2, "uint16_t"},
    {DType::BF16, "bf16", "bfloat16", DTypeClass::Float, 16, 2, "uint16_t"},
    {DType::FP32, "fp32", "float32", DTypeClass::Float, 32, 4, "float"},
    {DType::FP64, "fp64", "float64", DTypeClass::Float, 64, 8, "double"},
};

/// `dtype`'s row of the table.
constexpr const DTypeInfo &info(DType dtype) {
  return kDTypes[static_cast<unsigned>(dtype)];
}
constexpr std::string_view name(DType dtype) { return info(dtype).name; }
constexpr unsigned byteSize(DType dtype) { return info(dtype).bytes; }
constexpr bool isFloat(DType dtype) {
  return info(dtype).typeClass == DTypeClass::Float;
}
constexpr bool isUnsigned(DType dtype) {
  return info(dtype).typeClass == DTypeClass::Unsigned;
}
/// Signed or unsigned integers, not i1.
constexpr bool isInteger(DType dtype) {
  return info(dtype).typeClass == DTypeClass::Signed || isUnsigned(dtype);
}

/// The dtype named `text`: its name ("fp32"), its triton.language name
/// ("float32") or the short float names MLIR prints ("f32", "f16", "f64").
std::optional<DType> parseDType(std::string_view text);

/// The integer dtype of `bits` (8 to 64) and signedness.
std::optional<DType> integerDType(unsigned bits, bool isUnsigned);

/// Every dtype's name, comma-separated, for error messages.
std::string listDTypes();

/// The value of a float dtype's `bits` (in the low bytes).
double decodeFloat(DType dtype, uint64_t bits);
/// The bits of the float dtype's value nearest `value` (ties to even; too
/// large: infinity, or NaN for fp8e4nv, which has no infinity).
uint64_t encodeFloat(DType dtype, double value);

/// The type of a kernel parameter in Triton's signature syntax: a scalar
/// ("i32", "fp16") or a pointer to elements of a dtype ("*fp32").
struct ParamType {
  DType dtype = DType::I32;
  bool isPointer = false;

  static ParamType scalar(DType dtype) { return {dtype, false}; }
  static ParamType pointer(DType dtype) { return {dtype, true}; }
  /// Parses "*fp32" or "i32" (any name parseDType takes).
  static std::optional<ParamType> parse(std::string_view text);
  /// "*fp32" or "i32".
  std::string str() const;

  bool operator==(const ParamType &other) const {
    return dtype == other.dtype && isPointer == other.isPointer;
  }
  bool operator!=(const ParamType &other) const { return !(*this == other); }
};

/// One typed entry of a Triton signature: "*fp32:16" (16-byte aligned),
/// "i32:16" (divisible by 16), "i32:1" (the constant 1), "fp32"; beyond
/// Triton's 16 and 1, the powers of two between ("i32:8", "*fp16:8"). The
/// same text types a string annotation ("*fp32:16") and a JIT's argument.
struct SignatureType {
  ParamType type;
  /// The `:16`, `:8`, `:4`, `:2` or `:1` after the type; 0 when there is
  /// none. A pointer's 1 promises nothing.
  unsigned hint = 0;
};

/// Parses a typed signature entry. nullopt where `text` is not one (a
/// constexpr's value, "*fp33"); nullopt and, in `error`, why, where it is a
/// type with another hint ("i32:x", "i32:7", "*fp32:32"). The caller names
/// the entry in its message.
std::optional<SignatureType> parseSignatureType(std::string_view text,
                                                std::string *error = nullptr);

} // namespace tile

#endif // TILE_DTYPE_H
