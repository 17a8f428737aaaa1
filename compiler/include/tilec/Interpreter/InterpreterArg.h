//===- InterpreterArg.h - An argument of an interpreted kernel --*- C++ -*-===//
//
// Free of MLIR, so that the JIT and tile-run can build arguments cheaply.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_INTERPRETER_INTERPRETERARG_H
#define TILEC_INTERPRETER_INTERPRETERARG_H

#include <cstddef>
#include <cstdint>

namespace tilec {

/// One argument of an interpreted kernel, for each runtime parameter in
/// order. A buffer is host memory the kernel reads and writes in place.
struct InterpreterArg {
  enum class Kind { Buffer, Int, Float };
  Kind kind = Kind::Int;
  void *data = nullptr; // Buffer
  size_t bytes = 0;     // Buffer
  int64_t intValue = 0; // Int
  double floatValue = 0; // Float

  static InterpreterArg buffer(void *data, size_t bytes) {
    InterpreterArg a;
    a.kind = Kind::Buffer;
    a.data = data;
    a.bytes = bytes;
    return a;
  }
  static InterpreterArg integer(int64_t v) {
    InterpreterArg a;
    a.intValue = v;
    return a;
  }
  static InterpreterArg real(double v) {
    InterpreterArg a;
    a.kind = Kind::Float;
    a.floatValue = v;
    return a;
  }
};

} // namespace tilec

#endif // TILEC_INTERPRETER_INTERPRETERARG_H
