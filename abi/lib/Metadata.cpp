//===- Metadata.cpp - What a kernel's metadata computes -------------------===//
//
// The host-side arithmetic of the metadata: HostExpr's evaluation (tensor
// maps' fields), the reach of an access (buffer size checks), the CUDA
// enumerators of a tensor map and the driver a PTX ISA needs. Its JSON form
// is MetadataJSON.cpp's.
//
//===----------------------------------------------------------------------===//

#include "tile/Metadata.h"

#include <cstdint>

using namespace tile;

namespace {

/// HostExpr's operations by their JSON names, with their operand counts.
struct HostExprOpInfo {
  std::string_view name;
  HostExpr::Op op;
  unsigned operands;
};
constexpr HostExprOpInfo kHostExprOps[] = {
    {"arg", HostExpr::Op::Arg, 1},         {"grid", HostExpr::Op::Grid, 1},
    {"add", HostExpr::Op::Add, 2},         {"sub", HostExpr::Op::Sub, 2},
    {"mul", HostExpr::Op::Mul, 2},         {"div", HostExpr::Op::Div, 2},
    {"ceildiv", HostExpr::Op::CeilDiv, 2}, {"rem", HostExpr::Op::Rem, 2},
    {"min", HostExpr::Op::Min, 2},         {"max", HostExpr::Op::Max, 2},
    {"i32", HostExpr::Op::I32, 1}};

const HostExprOpInfo *findOp(HostExpr::Op op) {
  for (const HostExprOpInfo &known : kHostExprOps)
    if (known.op == op)
      return &known;
  return nullptr;
}

/// `expr`'s value in exact 64-bit arithmetic: false where it overflows or
/// divides by zero, which a launch cannot be checked by.
bool evaluateExact(const HostExpr &expr, const int64_t *values, size_t n,
                   const std::array<int64_t, 3> &grid, int64_t &out) {
  using Op = HostExpr::Op;
  switch (expr.op) {
  case Op::Constant:
    out = expr.value;
    return true;
  case Op::Arg:
    if (size_t(expr.value) >= n)
      return false;
    out = values[size_t(expr.value)];
    return true;
  case Op::Grid:
    out = grid[size_t(expr.value) % 3];
    return true;
  default:
    break;
  }
  int64_t a, b = 0;
  if (!evaluateExact(expr.operands[0], values, n, grid, a))
    return false;
  if (expr.op == Op::I32) {
    out = int32_t(uint32_t(uint64_t(a)));
    return true;
  }
  if (!evaluateExact(expr.operands[1], values, n, grid, b))
    return false;
  switch (expr.op) {
  case Op::Add:
    return !__builtin_add_overflow(a, b, &out);
  case Op::Sub:
    return !__builtin_sub_overflow(a, b, &out);
  case Op::Mul:
    return !__builtin_mul_overflow(a, b, &out);
  case Op::Div:
  case Op::CeilDiv:
  case Op::Rem:
    if (b == 0 || (b == -1 && a == INT64_MIN))
      return false;
    out = expr.op == Op::Rem ? a % b : a / b;
    if (expr.op == Op::CeilDiv && a % b != 0 && (a < 0) == (b < 0))
      ++out;
    return true;
  case Op::Min:
    out = a < b ? a : b;
    return true;
  case Op::Max:
    out = a > b ? a : b;
    return true;
  default:
    return false;
  }
}

/// Whether every Arg of `expr` names one of `numParams` parameters and
/// every Grid a dimension.
bool inRange(const HostExpr &expr, size_t numParams) {
  if (expr.op == HostExpr::Op::Arg)
    return expr.value >= 0 && size_t(expr.value) < numParams;
  if (expr.op == HostExpr::Op::Grid)
    return expr.value >= 0 && expr.value <= 2;
  for (const HostExpr &operand : expr.operands)
    if (!inRange(operand, numParams))
      return false;
  return true;
}

} // namespace

std::optional<HostExpr::Op> HostExpr::parseOp(std::string_view name) {
  for (const HostExprOpInfo &known : kHostExprOps)
    if (known.name == name)
      return known.op;
  return std::nullopt;
}

std::string_view HostExpr::opName(Op op) {
  const HostExprOpInfo *known = findOp(op);
  return known ? known->name : std::string_view("constant");
}

unsigned HostExpr::numOperands(Op op) {
  const HostExprOpInfo *known = findOp(op);
  return known ? known->operands : 0;
}

int tile::getTensorMapDataType(unsigned elementBytes) {
  switch (elementBytes) {
  case 1:
    return 0; // CU_TENSOR_MAP_DATA_TYPE_UINT8
  case 2:
    return 1; // UINT16
  case 4:
    return 2; // UINT32
  default:
    return 4; // UINT64
  }
}

int tile::getTensorMapSwizzle(unsigned bytes) {
  switch (bytes) {
  case 32:
    return 1; // CU_TENSOR_MAP_SWIZZLE_32B
  case 64:
    return 2;
  case 128:
    return 3;
  default:
    return 0; // CU_TENSOR_MAP_SWIZZLE_NONE
  }
}

std::string TensorMapInfo::verify(size_t numParams) const {
  if (dims.empty() || dims.size() > 5 || box.size() != dims.size() ||
      strides.size() + 1 != dims.size())
    return "must have 1 to 5 dims, as many box extents and one stride fewer";
  bool ok = inRange(base, numParams);
  for (const HostExpr &e : dims)
    ok = ok && inRange(e, numParams);
  for (const HostExpr &e : strides)
    ok = ok && inRange(e, numParams);
  if (!ok)
    return "names a parameter or grid dimension that does not exist";
  return {};
}

int64_t HostExpr::evaluate(const std::vector<int64_t> &args,
                           const std::array<int64_t, 3> &grid) const {
  if (op == Op::Constant)
    return value;
  if (op == Op::Arg)
    return size_t(value) < args.size() ? args[size_t(value)] : 0;
  if (op == Op::Grid)
    return size_t(value) < grid.size() ? grid[size_t(value)] : 1;
  int64_t a = operands[0].evaluate(args, grid);
  if (op == Op::I32)
    return int32_t(uint32_t(uint64_t(a)));
  int64_t b = operands[1].evaluate(args, grid);
  // Two's complement, as the kernel's arithmetic: no signed overflow here.
  auto wrap = [](uint64_t v) { return int64_t(v); };
  switch (op) {
  case Op::Add:
    return wrap(uint64_t(a) + uint64_t(b));
  case Op::Sub:
    return wrap(uint64_t(a) - uint64_t(b));
  case Op::Mul:
    return wrap(uint64_t(a) * uint64_t(b));
  case Op::Div:
    return b == 0 || (b == -1 && a == INT64_MIN) ? 0 : a / b;
  case Op::CeilDiv: {
    if (b == 0 || (b == -1 && a == INT64_MIN))
      return 0;
    int64_t q = a / b;
    return q + ((a % b != 0) && ((a < 0) == (b < 0)) ? 1 : 0);
  }
  case Op::Rem:
    return b == 0 || b == -1 ? 0 : a % b;
  case Op::Min:
    return a < b ? a : b;
  case Op::Max:
    return a > b ? a : b;
  default:
    return 0;
  }
}

uint64_t AccessInfo::reachedElements(const int64_t *values, size_t n,
                                     const std::array<int64_t, 3> &grid) const {
  auto eval = [&](const HostExpr &e, int64_t &out) {
    return evaluateExact(e, values, n, grid, out);
  };
  // The kernel's indices are the exact ones only where every value on the
  // way fits its bits.
  for (const Fit &fit : fits) {
    int64_t low, high;
    if (!eval(fit.value, low))
      return 0;
    high = low;
    for (const auto &[coefficient, count] : fit.terms) {
      int64_t c, k, span;
      if (!eval(coefficient, c) || !eval(count, k) || k <= 0 ||
          __builtin_mul_overflow(c, k - 1, &span) ||
          __builtin_add_overflow(span < 0 ? low : high, span,
                                 span < 0 ? &low : &high))
        return 0;
    }
    int64_t limit = fit.bits == 64 ? INT64_MAX : (int64_t(1) << (fit.bits - 1)) - 1;
    if (high > limit || low < -limit - 1)
      return 0;
  }
  int64_t last;
  if (!eval(offset, last))
    return 0;
  for (const Term &term : terms) {
    int64_t stride, count, bound = INT64_MAX, high;
    if (!eval(term.stride, stride) || !eval(term.count, count) ||
        (term.bounded && !eval(term.bound, bound)))
      return 0;
    // No program, iteration or element takes this access: it reaches
    // nothing.
    if (count <= 0 || bound <= 0)
      return 0;
    // The largest t = scale * p + q below the bound: the largest p that
    // leaves room for q = 0, then the largest q.
    int64_t p = count - 1;
    if (term.scale > 0 && (bound - 1) / term.scale < p)
      p = (bound - 1) / term.scale;
    if (__builtin_mul_overflow(term.scale, p, &high))
      return 0;
    int64_t q = term.extent - 1;
    if (bound - 1 - high < q)
      q = bound - 1 - high;
    if (__builtin_add_overflow(high, q, &high))
      return 0;
    // t ranges from 0 (every p and q at 0) to `high`.
    int64_t reach;
    if (stride > 0 && (__builtin_mul_overflow(stride, high, &reach) ||
                       __builtin_add_overflow(last, reach, &last)))
      return 0;
  }
  return last < 0 ? 0 : uint64_t(last) + 1;
}

bool AccessInfo::reachesAny(const int64_t *values, size_t n,
                            const std::array<int64_t, 3> &grid) const {
  for (const Term &term : terms) {
    int64_t count, bound = 1;
    if (!evaluateExact(term.count, values, n, grid, count) ||
        (term.bounded && !evaluateExact(term.bound, values, n, grid, bound)))
      return false;
    if (count <= 0 || bound <= 0)
      return false;
  }
  return true;
}

std::string tile::checkBufferSizes(const KernelMetadata &md,
                                   const int64_t *values,
                                   const uint64_t *bytes,
                                   const std::array<int64_t, 3> &grid) {
  for (const AccessInfo &access : md.accesses) {
    const ParamInfo &param = md.params[access.param];
    if (values[access.param] == 0 && param.isPointer()) {
      if (!access.reachesAny(values, md.params.size(), grid))
        continue;
      return "kernel " + md.kernel + ": argument " +
             std::to_string(access.param) + " (" + param.name +
             ") is null, and the kernel accesses it at this launch";
    }
    uint64_t given = bytes[access.param];
    if (!given)
      continue;
    uint64_t elements =
        access.reachedElements(values, md.params.size(), grid);
    unsigned size = byteSize(param.type.dtype);
    if (elements <= given / size)
      continue;
    return "kernel " + md.kernel + ": argument " +
           std::to_string(access.param) + " (" + param.name + ") needs " +
           std::to_string(elements * size) + " bytes (" +
           std::to_string(elements) + " " + std::string(name(param.type.dtype)) +
           " elements) for this launch, but its buffer has " +
           std::to_string(given) + " bytes";
  }
  return {};
}

int tile::getMinDriverVersion(unsigned ptxVersion) {
  // PTX's release history: 7.x came with CUDA 11.x, 8.0 to 8.5 with 12.0 to
  // 12.5, 8.6 to 8.8 with 12.7 to 12.9 (12.6 kept 8.5), 9.x with 13.x.
  unsigned major = ptxVersion / 10, minor = ptxVersion % 10;
  if (major == 7 && minor <= 8)
    return 11000 + 10 * int(minor);
  if (major == 8 && minor <= 5)
    return 12000 + 10 * int(minor);
  if (major == 8)
    return 12000 + 10 * int(minor + 1);
  if (major == 9)
    return 13000 + 10 * int(minor);
  return 0;
}

std::string tile::checkDriverVersion(const KernelMetadata &md,
                                     int driverVersion) {
  int needed = getMinDriverVersion(md.ptxVersion);
  if (needed == 0 || driverVersion >= needed)
    return {};
  auto cuda = [](int version) {
    return std::to_string(version / 1000) + "." +
           std::to_string(version % 1000 / 10);
  };
  return "kernel " + md.kernel + ": its PTX is ISA " +
         std::to_string(md.ptxVersion / 10) + "." +
         std::to_string(md.ptxVersion % 10) + ", which needs a CUDA " +
         cuda(needed) + " or newer driver, and this driver is CUDA " +
         cuda(driverVersion) +
         ": update the driver, or load the kernel's cubin (tilec "
         "--emit=cubin), which any CUDA " +
         std::to_string(needed / 1000) + " driver loads";
}
