//===- PrintFormat.h - How tile.print writes a line -------------*- C++ -*-===//
//
// One definition of tile.print's lines, for the GPU (a vprintf format) and
// the interpreter (which formats the same conversions with snprintf), so
// that both print the same text:
//
//   pid (0, 0, 0) idx (3, 1) x: 0.500000
//
// Free of MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_PRINTFORMAT_H
#define TILEC_DIALECT_TILE_IR_PRINTFORMAT_H

#include <string>

namespace mlir::tile {

/// How one value is passed to printf and converted.
struct PrintConversion {
  /// "%d", "%lld", "%f", "0x%08x"...
  std::string spec;
  /// Passed as a double (floats), else as an integer of 32 or 64 bits.
  bool asDouble = false;
  bool is64 = false;
  /// Integers narrower than the argument widen by sign (else by zero).
  bool signExtend = false;
};

/// A float or integer of `bits`: floats as "%f" of their double value (or
/// their bits in hex), integers signed or unsigned (or in hex, where a
/// narrow signed integer shows its sign extension to 32 bits, as Triton's:
/// an int16 -1 prints as 0xffffffff).
inline PrintConversion getPrintConversion(bool isFloat, unsigned bits,
                                          bool isSigned, bool hex) {
  PrintConversion c;
  c.is64 = bits > 32;
  c.signExtend = isSigned && !isFloat;
  if (hex) {
    unsigned digits = bits < 8 ? 1 : bits / 4;
    c.spec = "0x%0" + std::to_string(digits) + (c.is64 ? "llx" : "x");
    return c;
  }
  if (isFloat) {
    c.spec = "%f";
    c.asDouble = true;
    c.is64 = true;
    return c;
  }
  c.spec = std::string(c.is64 ? "%ll" : "%") + (isSigned ? "d" : "u");
  return c;
}

/// `text` as a printf format that prints it as it is.
inline std::string escapePrintFormat(const std::string &text) {
  std::string format;
  for (char ch : text)
    format += ch == '%' ? std::string("%%") : std::string(1, ch);
  return format;
}

/// The format of a print without operands: the program ids and the text,
/// once per program.
inline std::string getPrintMessageFormat(const std::string &prefix) {
  return "pid (%u, %u, %u) " + escapePrintFormat(prefix) + "\n";
}

/// The format of one printed line of a value of `rank` dimensions: program
/// ids, indices, the prefix (its '%' escaped), "(operand n) " when the
/// print has several operands (`operand` >= 0), the value's conversion.
inline std::string getPrintLineFormat(const std::string &prefix, unsigned rank,
                                      int operand, const PrintConversion &c) {
  std::string format = "pid (%u, %u, %u) idx (";
  for (unsigned d = 0; d < rank; ++d)
    format += d ? ", %u" : "%u";
  format += ")" + escapePrintFormat(prefix);
  if (operand >= 0)
    format += "(operand " + std::to_string(operand) + ") ";
  return format + c.spec + "\n";
}

} // namespace mlir::tile

#endif // TILEC_DIALECT_TILE_IR_PRINTFORMAT_H
