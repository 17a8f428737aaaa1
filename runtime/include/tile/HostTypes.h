//===- HostTypes.h - C++ element types and their dtypes ---------*- C++ -*-===//
//
// The dtype (tile/DType.h) a C++ element type stands for, so that a host
// buffer's or a raw pointer's type says which dtype the kernel reads there,
// and the types that hold the dtypes C++ lacks (fp16, bf16, fp8) as bits.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_HOSTTYPES_H
#define TILE_HOSTTYPES_H

#include "tile/DType.h"

#include <cstdint>
#include <optional>
#include <type_traits>

namespace tile {

/// Element types of device memory that C++ has no type for: a pointer to
/// them (`Ptr<fp16>`) says which dtype the kernel reads there, a scalar
/// argument of one passes its bits.
struct fp16 { uint16_t bits; };
struct bf16 { uint16_t bits; };
struct fp8e4nv { uint8_t bits; };
struct fp8e5 { uint8_t bits; };

/// The dtype C++'s `T` stands for (float: fp32, int32_t: i32, uint16_t:
/// u16, whose buffers hold fp16 or bf16 bits too); nullopt for others.
template <typename T> constexpr std::optional<DType> hostDType() {
  if constexpr (std::is_same_v<T, bool>) return DType::I1;
  else if constexpr (std::is_same_v<T, int8_t>) return DType::I8;
  else if constexpr (std::is_same_v<T, int16_t>) return DType::I16;
  else if constexpr (std::is_same_v<T, int32_t>) return DType::I32;
  else if constexpr (std::is_same_v<T, int64_t>) return DType::I64;
  else if constexpr (std::is_same_v<T, uint8_t>) return DType::U8;
  else if constexpr (std::is_same_v<T, uint16_t>) return DType::U16;
  else if constexpr (std::is_same_v<T, uint32_t>) return DType::U32;
  else if constexpr (std::is_same_v<T, uint64_t>) return DType::U64;
  else if constexpr (std::is_same_v<T, fp8e5>) return DType::FP8E5;
  else if constexpr (std::is_same_v<T, fp8e4nv>) return DType::FP8E4NV;
  else if constexpr (std::is_same_v<T, fp16>) return DType::FP16;
  else if constexpr (std::is_same_v<T, bf16>) return DType::BF16;
  else if constexpr (std::is_same_v<T, float>) return DType::FP32;
  else if constexpr (std::is_same_v<T, double>) return DType::FP64;
  else return std::nullopt;
}

/// hostDType<T>(), for types that have one.
template <typename T> constexpr DType dtypeOf() {
  static_assert(hostDType<T>().has_value(),
                "no tilec dtype for this element type");
  return *hostDType<T>();
}

} // namespace tile

#endif // TILE_HOSTTYPES_H
