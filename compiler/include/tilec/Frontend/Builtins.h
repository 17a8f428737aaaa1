//===- Builtins.h - The table of tl functions and tile methods --*- C++ -*-===//
//
// Every function a kernel may call by name (`tl.load`, Python's `range`)
// and every method of a tile (`x.to`, `x.sum`) is one row of one table: its
// name, its Python parameter list with the defaults, whether it is a
// function, a method or both, the frontend's handler, and a summary. The
// frontend resolves names and binds arguments through the table; `tilec
// --list-builtins` prints it, and README.md's table of the language is that
// print. Each family of builtins (Reductions.cpp, Shapes.cpp, ...) declares
// its rows beside its handlers.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_BUILTINS_H
#define TILEC_FRONTEND_BUILTINS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace tilec {

class MLIRGenImpl;
struct BoundArgs;
struct TValue;
namespace ast {
struct CallExpr;
} // namespace ast

/// How a kernel reaches a builtin.
enum class BuiltinKind {
  /// By its name only: `tl.arange(0, 8)`, `range(n)`.
  Function,
  /// As a method only: `x.to(tl.float16)`; the receiver binds the first
  /// parameter.
  Method,
  /// Both: `tl.sum(x, 0)` is `x.sum(0)`.
  Both,
};

/// Emits a call whose arguments are bound to the builtin's parameters.
using BuiltinHandler = TValue (*)(MLIRGenImpl &gen, const BoundArgs &args,
                                  const ast::CallExpr &call);

struct BuiltinSpec {
  /// As a kernel spells the function: "tl.load", or "range" for Python's
  /// builtins. A method-only builtin is named by its receiver's class:
  /// "tensor.to", "tensor_descriptor.load".
  llvm::StringLiteral name;
  /// The parameters as Python writes them, defaults included:
  /// R"(pointer, mask=None, volatile=False)". `*name` takes the remaining
  /// positional arguments; the parameters after it are keyword-only. A
  /// default is None, True, False, a number, a string, () or a dtype
  /// (tl.float32).
  llvm::StringLiteral params;
  BuiltinKind kind;
  /// Null for a name that is not called, such as a class that isinstance()
  /// takes (tl.tensor, tuple).
  BuiltinHandler handler;
  /// One line for the listing: what it does in tilec.
  llvm::StringLiteral summary;

  bool isFunction() const { return kind != BuiltinKind::Method; }
  bool isMethod() const { return kind != BuiltinKind::Function; }
  /// The name a method call uses: "sum" for tl.sum, "to" for tensor.to.
  llvm::StringRef methodName() const { return name.rsplit('.').second; }
  /// The class whose instances have the method: "tensor" unless named.
  llvm::StringRef receiver() const {
    return kind == BuiltinKind::Method ? name.rsplit('.').first : "tensor";
  }
};

/// One parameter of a builtin, parsed from BuiltinSpec::params.
struct BuiltinParam {
  std::string name;
  /// The default as written ("None", "'rtne'", "tl.float32"); empty when
  /// the parameter is required or variadic.
  std::string defaultText;
  bool variadic = false;
  bool required() const { return !variadic && defaultText.empty(); }
};

/// Every builtin: triton.language's functions, then the methods of its
/// classes, then Python's builtins, each group sorted by name.
llvm::ArrayRef<BuiltinSpec> getBuiltins();

/// The builtin a kernel names `name` ("tl.load", "range"), or null.
const BuiltinSpec *lookupBuiltin(llvm::StringRef name);

/// The method `method` of instances of `receiver` ("tensor",
/// "tensor_descriptor"), or null.
const BuiltinSpec *lookupMethod(llvm::StringRef receiver,
                                llvm::StringRef method);

/// The parameters of `spec`.
llvm::ArrayRef<BuiltinParam> getParams(const BuiltinSpec &spec);

/// `name` with its parameters: "tl.load(pointer, mask=None, ...)".
std::string getSignature(const BuiltinSpec &spec);

/// The known name closest to `name` among the functions under its prefix
/// ("tl.laod" -> "tl.load"), if one is close enough to be a typo.
std::optional<std::string> suggestFunction(llvm::StringRef name);

/// The method of `receiver` closest to `method`, among `extra` names too
/// (attributes that are not calls, such as "shape"), if one is close.
std::optional<std::string>
suggestMethod(llvm::StringRef receiver, llvm::StringRef method,
              llvm::ArrayRef<llvm::StringRef> extra = {});

enum class BuiltinListFormat {
  /// One line per builtin: its signature, and how a tile calls it.
  Text,
  /// README.md's table.
  Markdown,
  /// libFuzzer dictionary entries: each name a kernel may write.
  Dict,
};

/// Prints the table in `format`.
void printBuiltins(llvm::raw_ostream &os, BuiltinListFormat format);

} // namespace tilec

#endif // TILEC_FRONTEND_BUILTINS_H
