//===- Debug.cpp - tl.device_print, print and tl.device_assert ------------===//
//
// `tl.device_print(prefix, *args, hex=False)` (and Python's `print`, which
// Triton maps to it) prints on every run; `tl.device_assert(cond, msg="",
// mask=None)` and `assert` on runtime values check only in debug builds
// (`--debug`, `@triton.jit(debug=True)`), as in Triton, and are dropped
// otherwise.
//
//===----------------------------------------------------------------------===//

#include "MLIRGenImpl.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace tilec;
using llvm::StringRef;
using llvm::Twine;

/// Triton's spelling of a print's prefix: with operands it ends in ": "
/// and, when longer than that, starts with a space.
static std::string normalizePrefix(std::string prefix, bool hasArgs) {
  if (!hasArgs)
    return prefix;
  if (!StringRef(prefix).ends_with(" "))
    prefix += " ";
  if (!StringRef(prefix).ends_with(": "))
    prefix = prefix.substr(0, prefix.size() - 1) + ": ";
  if (prefix.size() > 2 && prefix.front() != ' ')
    prefix = " " + prefix;
  return prefix;
}

TValue MLIRGenImpl::genDevicePrint(const BoundArgs &args,
                                   const ast::CallExpr &c) {
  bool hex = isTrue(*args.get(2), args.locs[2]);
  const TValue &prefix = *args.get(0);
  if (prefix.kind != TValue::Kind::String)
    fail(args.locs[0], "the prefix of tl.device_print must be a string, "
                       "got " +
                           describe(prefix));
  for (char ch : prefix.text())
    if (!llvm::isPrint(ch) && !llvm::isSpace(ch))
      fail(args.locs[0], "the prefix of tl.device_print must be printable "
                         "ASCII");
  SmallVector<Value> values;
  SmallVector<bool> isSigned;
  for (auto [printed, l] : llvm::zip(args.varargs, args.varargLocs)) {
    Value v = toValue(printed, l, "a printed value");
    Type element = getElementTypeOrSelf(v.getType());
    if (isa<tile::PointerType>(element))
      fail(l, "tl.device_print cannot print pointers yet");
    values.push_back(v);
    isSigned.push_back(element.isInteger() && !printed.isUnsigned);
  }
  tile::PrintOp::create(builder, loc(c.loc),
                        normalizePrefix(prefix.text(), !values.empty()), hex,
                        isSigned, values);
  return TValue::none();
}

void MLIRGenImpl::genDeviceAssert(const TValue &cond, const TValue *mask,
                                  const std::string &message,
                                  const ast::Location &l) {
  if (!debug)
    return;
  Value ok = cast(toValue(cond, l, "the condition"), builder.getI1Type(), l);
  if (mask && mask->kind != TValue::Kind::None) {
    // Elements outside the mask pass.
    Value m = cast(toValue(*mask, l, "the mask"), builder.getI1Type(), l);
    SmallVector<int64_t> shape = broadcastShapes(shapeOf(ok), shapeOf(m), l);
    ok = broadcastTo(ok, shape, l, "the condition");
    m = broadcastTo(m, shape, l, "the mask");
    Value outside = arith::XOrIOp::create(
        builder, loc(l), m,
        broadcastTo(arith::ConstantOp::create(builder, loc(l),
                                              builder.getBoolAttr(true)),
                    shape, l, "the mask"));
    ok = arith::OrIOp::create(builder, loc(l), ok, outside);
  }
  tile::AssertOp::create(builder, loc(l), ok, message);
}

TValue MLIRGenImpl::genDeviceAssertCall(const BoundArgs &args,
                                        const ast::CallExpr &c) {
  const TValue &msg = *args.get(1);
  if (msg.kind != TValue::Kind::String)
    fail(args.locs[1], "the message of tl.device_assert must be a string, "
                       "got " +
                           describe(msg));
  const std::string &message = msg.text();
  const TValue &cond = *args.get(0);
  if (!cond.isRuntime()) {
    if (!isTrue(cond, args.locs[0]))
      fail(c.loc, "device assertion failed" +
                      (message.empty() ? "" : ": " + message));
    return TValue::none();
  }
  genDeviceAssert(cond, args.get(2), message, c.loc);
  return TValue::none();
}

static const BuiltinSpec kDebug[] = {
    {"tl.device_print", "prefix, *args, hex=False", BuiltinKind::Function,
     member<&MLIRGenImpl::genDevicePrint>,
     "prints each element of each program at run time"},
    {"print", "prefix, *args, hex=False", BuiltinKind::Function,
     member<&MLIRGenImpl::genDevicePrint>, "tl.device_print, as in Triton"},
    {"tl.device_assert", "cond, msg=\"\", mask=None", BuiltinKind::Function,
     member<&MLIRGenImpl::genDeviceAssertCall>,
     "checks at run time in debug builds (--debug); dropped otherwise"},
};

ArrayRef<BuiltinSpec> tilec::getDebugBuiltins() { return kDebug; }
