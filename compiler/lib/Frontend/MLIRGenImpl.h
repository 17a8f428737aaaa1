//===- MLIRGenImpl.h - The generator behind mlirGen -------------*- C++ -*-===//
//
// Internal to the frontend. MLIRGen evaluates a kernel the way Triton's code
// generator does: constexprs (and dtypes, modules, functions) are folded at
// compile time, everything else becomes tile IR. Types, shapes and
// broadcasting are checked while emitting, so each error points at the
// expression that caused it.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_MLIRGENIMPL_H
#define TILEC_LIB_FRONTEND_MLIRGENIMPL_H

#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/Builtins.h"
#include "tilec/Frontend/HostScalar.h"
#include "tilec/Frontend/MLIRGen.h"
#include "tilec/Frontend/ModuleLoader.h"

#include "PythonScalar.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <set>

namespace tilec {

/// Thrown after an error has been reported, to unwind to mlirGen.
struct GenError {};

/// A value while generating code: folded at compile time, or an MLIR value.
/// Constexpr scalars are HostScalars, computed by Python's operators
/// (PythonScalar.h) as host code's are.
struct TValue {
  enum class Kind {
    // A Python scalar: `scalar` holds it, of the same kind.
    None,    // Python None
    Int,     // constexpr int
    Float,   // constexpr float
    Bool,    // constexpr bool
    String,  // constexpr str
    DType,   // a dtype such as tl.float32 or a pointer type
    Module,  // `triton`, `triton.language`, or one of the program's
    Builtin, // a library function, by qualified name: "tl.load"
    Method,  // a bound method (a table's row, by name); self in elements[0]
    Function,// a user @triton.jit function
    Tuple,   // a tuple or list of values
    Slice,   // `:` inside a subscript
    Runtime, // an MLIR value: scalar or tensor
    BlockPtr,   // tl.make_block_ptr's record (BlockPointers.cpp)
    TensorDesc, // tl.make_tensor_descriptor's record
  };
  Kind kind = Kind::None;
  /// Runtime: the integer elements (or the pointees of pointers) are
  /// unsigned. Triton's uint dtypes live only here: the tile IR is
  /// signless, as arith wants, and the ops chosen for a value (divui,
  /// cmpi ult, extui, uitofp...) say how its bits are read.
  bool isUnsigned = false;
  HostScalar scalar;
  std::string name; // Module, Builtin, Method, Function
  mlir::Type type;  // DType
  mlir::Value value;
  std::vector<TValue> elements;
  const ast::FunctionDef *function = nullptr;
  /// A Module of the program's (not Triton's).
  struct ModuleScope *module = nullptr;

  static TValue none() { return {}; }
  static TValue ofInt(int64_t v);
  static TValue ofFloat(double v);
  static TValue ofBool(bool v);
  static TValue ofString(std::string s);
  static TValue ofDType(mlir::Type t);
  static TValue named(Kind kind, std::string name);
  static TValue ofValue(mlir::Value v, bool isUnsigned = false);
  static TValue ofTuple(std::vector<TValue> elements);
  static TValue ofFunction(const ast::FunctionDef *function);
  /// A constexpr of a host scalar (None, int, float, bool or string).
  static TValue of(const HostScalar &scalar);

  bool isRuntime() const { return kind == Kind::Runtime; }
  /// An int, float or bool constexpr.
  bool isNumber() const {
    return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool;
  }
  /// A number, a string or None.
  bool isScalar() const {
    return isNumber() || kind == Kind::String || kind == Kind::None;
  }
  /// An Int's or Bool's value.
  int64_t intValue() const { return scalar.intValue; }
  /// A String's text.
  const std::string &text() const { return scalar.text; }
  bool operator==(const TValue &other) const;
};

/// Whether `t` is an unsigned integer type (tl.uint8 ... tl.uint64).
bool isUnsignedInt(mlir::Type t);
/// The element type triton.language names `name` (tl.float16: "float16"),
/// or null (TypeNames.cpp).
mlir::Type dtypeNamed(mlir::MLIRContext *context, llvm::StringRef name);
/// Triton's dtype.name, what str() of a dtype gives: "int32", "uint8" and
/// "int1" for integers, "fp32", "bf16", "fp8e5" for floats; empty for a
/// type that is no dtype of the table. tritonDTypeByName is its inverse.
std::string tritonDTypeName(mlir::Type type);
mlir::Type tritonDTypeByName(mlir::MLIRContext *context, llvm::StringRef name);
/// Whether the elements of `t` (a scalar, pointer or tile type), or their
/// pointees, are unsigned integers.
bool hasUnsignedElements(mlir::Type t);
/// `t` with every unsigned integer in it made signless: the IR's form of a
/// dtype.
mlir::Type signless(mlir::Type t);

/// The shape of a tile; empty for a scalar.
inline llvm::ArrayRef<int64_t> shapeOf(mlir::Value v) {
  if (auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(v.getType()))
    return tensor.getShape();
  return {};
}

/// Names visible in a function body; Python scoping is per function.
using Scope = std::map<std::string, TValue>;

/// A module of the program (the kernel's file, or one it imports) as
/// MLIRGen reads it: its names are bound on first use, as Triton's code
/// generator reads a function's globals, so that only what kernels use is
/// evaluated and imported.
struct ModuleScope {
  SourceModule *source = nullptr;
  /// Names already evaluated: functions, constants, resolved imports.
  Scope globals;
  /// Module-level assignments not yet evaluated, by name (the last wins).
  llvm::StringMap<const ast::Expr *> pendingGlobals;
  /// One way a module-level name is bound: an import, a function, or an
  /// assignment (an alias `f = a.b` where it is inside an `if` or `try`).
  struct Binding {
    const ast::Import *import = nullptr;
    const ast::FunctionDef *function = nullptr;
    const ast::AssignStmt *alias = nullptr;
  };
  /// Names bound by imports or conditionally, not yet resolved, with their
  /// bindings: one import, or the alternatives of module-level `if`s and
  /// `try`s in source order, the first that resolves winning (Python takes
  /// a branch tilec cannot evaluate, such as a version check).
  std::map<std::string, std::vector<Binding>> pendingBindings;
  /// `from m import *`: modules searched for names found nowhere else.
  std::vector<const ast::Import *> wildcards;

  const ast::Module &ast() const { return *source->ast; }
};

/// A call's arguments bound to a function's parameters, in their order.
struct BoundArgs {
  /// The builtin called; null for a @triton.jit or libdevice function.
  const BuiltinSpec *spec = nullptr;
  /// How errors name the function: "tl.load".
  std::string function;
  /// Per parameter: the argument, its default, or null (not given, with a
  /// default of None). A variadic parameter's stays null.
  std::vector<std::optional<TValue>> values;
  /// Where each value was written (the call for a default).
  std::vector<ast::Location> locs;
  /// What the variadic parameter (`*dims`) took, with their locations.
  std::vector<TValue> varargs;
  std::vector<ast::Location> varargLocs;

  const TValue *get(unsigned i) const {
    return values[i] ? &*values[i] : nullptr;
  }
  /// Whether argument `i` is there and not None.
  bool given(unsigned i) const {
    return values[i] && values[i]->kind != TValue::Kind::None;
  }
};

class MLIRGenImpl {
public:
  MLIRGenImpl(mlir::MLIRContext &context, ModuleLoader &loader);
  mlir::OwningOpRef<mlir::ModuleOp> generate(const Specialization &spec);

  //===--------------------------------------------------------------------===//
  // Errors and locations
  //===--------------------------------------------------------------------===//
  mlir::Location loc(const ast::Location &l);
  [[noreturn]] void fail(const ast::Location &l, const llvm::Twine &message);
  /// "line 3" in the file of `from`, else "utils.py:3".
  static std::string describeLine(const ast::Location &l,
                                  const ast::Location &from);

  //===--------------------------------------------------------------------===//
  // Types and values (MLIRGen.cpp)
  //===--------------------------------------------------------------------===//
  /// "fp32", "*fp32", "fp32[64, 64]": how errors name a type.
  std::string describe(mlir::Type type);
  std::string describe(const TValue &v);
  /// A constexpr as Python's str() (or repr()) writes it: 8, 'ieee', True,
  /// fp32 (a dtype's str is Triton's name, its repr triton.language.fp32),
  /// (2, 3).
  std::string pythonText(const TValue &v, bool repr);
  /// The dtype named by a Triton type string ("*fp32", "i32", "bf16").
  mlir::Type parseTypeString(llvm::StringRef text);
  /// A parameter's type in Triton's signature syntax, with its hint.
  struct TypedText {
    mlir::Type type;
    /// 16, 1, or 0 for none.
    unsigned hint = 0;
  };
  /// `text` (a --signature entry, a string annotation, a launch's argument
  /// type: "*fp32:16", "i32:1") as a type, read by the ABI's parser; none
  /// when it is not one. A malformed hint fails at `l`, `what` naming it.
  std::optional<TypedText> parseTypedText(llvm::StringRef text,
                                          const ast::Location &l,
                                          const llvm::Twine &what);
  /// A constexpr number as an MLIR scalar of its default type.
  mlir::Value materialize(const TValue &v, const ast::Location &l);
  /// A runtime value of `v`; numbers take their default types.
  mlir::Value toValue(const TValue &v, const ast::Location &l,
                      llvm::StringRef what);
  /// A runtime value or number converted to `elementType`.
  mlir::Value convertTo(const TValue &v, mlir::Type elementType,
                        const ast::Location &l, llvm::StringRef what);
  /// Casts a scalar or tensor to another element type (a dtype: unsigned
  /// ones give signless IR, converted as unsigned); `fromUnsigned` says how
  /// to read `v`'s integers.
  mlir::Value cast(mlir::Value v, mlir::Type elementType,
                   const ast::Location &l, bool fromUnsigned = false);
  /// `v` converted to the dtype `dtype`, keeping track of its signedness.
  TValue castTo(const TValue &v, mlir::Type dtype, const ast::Location &l);
  /// The dtype of a runtime value's elements as Triton sees them (tl.uint32
  /// where it is unsigned); `typeOf` the whole type (`x.type`).
  mlir::Type dtypeOf(const TValue &v);
  mlir::Type typeOf(const TValue &v);
  /// `v` with a dimension of extent 1 inserted at `axis` (a scalar becomes
  /// a tile of one element).
  mlir::Value expandDims(mlir::Value v, int64_t axis, const ast::Location &l);
  /// Broadcasts a scalar or tensor to `shape`; errors name `what`.
  mlir::Value broadcastTo(mlir::Value v, llvm::ArrayRef<int64_t> shape,
                          const ast::Location &l, llvm::StringRef what);
  /// The common shape of two shapes under numpy broadcasting.
  llvm::SmallVector<int64_t> broadcastShapes(llvm::ArrayRef<int64_t> a,
                                             llvm::ArrayRef<int64_t> b,
                                             const ast::Location &l);
  /// The element type two operands compute in (Triton's promotion rules,
  /// with Python numbers weakly typed).
  mlir::Type promote(const TValue &a, const TValue &b, const ast::Location &l);
  /// Converts both operands to one element type and shape.
  std::pair<mlir::Value, mlir::Value> unify(const TValue &a, const TValue &b,
                                            mlir::Type elementType,
                                            const ast::Location &l);
  TValue binary(ast::BinaryOp op, const TValue &a, const TValue &b,
                const ast::Location &l);
  /// The located error for computing `what` in fp8.
  [[noreturn]] void failFP8Arithmetic(const llvm::Twine &what,
                                      const ast::Location &l);
  TValue compare(ast::CompareOp op, const TValue &a, const TValue &b,
                 const ast::Location &l);
  /// tl.maximum / tl.minimum of two values, one of them runtime (Python's
  /// max() and min() on runtime values too, as in Triton); with
  /// `propagateNan`, a NaN operand gives NaN.
  TValue minMax(bool max, const TValue &a, const TValue &b,
                const ast::Location &l, bool propagateNan = false);
  /// A one-argument tl math function of `arg` (tl.exp, tl.rsqrt, ...).
  TValue callMath(const std::string &name, const TValue &arg,
                  const ast::Location &l);
  /// tl.abs of a runtime value (Python's abs() too).
  TValue absolute(const TValue &x, const ast::Location &l);

  //===--------------------------------------------------------------------===//
  // Expressions and statements (MLIRGen.cpp)
  //===--------------------------------------------------------------------===//
  TValue gen(const ast::Expr &e);
  void gen(const ast::Block &block);
  void gen(const ast::Stmt &s);
  void genWhile(const ast::WhileStmt &loop);
  /// Statements `first`.. of `block`.
  void genStatements(const ast::Block &block, size_t first);
  void genEarlyReturn(const ast::IfStmt &branch, const ast::Block &block,
                      size_t rest);
  /// Names a loop body assigns that exist before it (the loop carries
  /// them), but `exclude` (a for loop's variable).
  std::vector<std::string> loopCarried(const ast::Block &body,
                                       llvm::StringRef exclude);
  llvm::SmallVector<mlir::Value> loopYields(llvm::ArrayRef<std::string> carried,
                                            llvm::ArrayRef<TValue> entering,
                                            mlir::TypeRange types,
                                            const ast::Location &l);
  /// The runtime values a loop carries for `v`: itself (a number in its
  /// default type), or a block pointer's base and offsets.
  void carriedValues(const TValue &v, llvm::SmallVector<mlir::Value> &out,
                     const ast::Location &l, llvm::StringRef what);
  /// `like` remade from the front of `values`, which it consumes.
  TValue fromCarried(const TValue &like, mlir::ValueRange &values);
  /// A constexpr int argument, or an error naming `what`.
  int64_t constInt(const TValue &v, const ast::Location &l,
                   llvm::StringRef what);
  /// A runtime or constexpr condition as a truth value.
  bool isTrue(const TValue &v, const ast::Location &l);
  /// What an import of `path` in Triton's namespace binds
  /// ("triton.language.extra.libdevice", "triton.language.math.exp2"), as
  /// kernels' attribute chains resolve it; nothing for another module or a
  /// name tilec lacks.
  std::optional<TValue> tritonImport(llvm::StringRef path);
  /// A dotted name (a decorator, called or not; an annotation) with its
  /// root resolved through the module's imports and re-exports, without
  /// evaluating it: "triton.jit" for `@jit` or `@triton.jit()`. Empty where
  /// the root is no module or builtin, or does not resolve.
  std::string resolvedName(const ast::Expr &e);
  /// Whether `decorator` is @triton.jit, @triton.autotune or
  /// @triton.heuristics (called or not, under any import alias).
  bool isJitDecorator(const ast::Expr &decorator);
  /// A parameter's annotation as Triton reads it: tl.constexpr, a dtype or a
  /// type string. Anything else is no annotation (the launch's argument
  /// gives the type), as in Triton.
  TValue parameterAnnotation(const ast::Expr &annotation);
  /// What `evaluate` gives, its diagnostics swallowed; nothing if it fails,
  /// and then the generator as it was before.
  std::optional<TValue>
  tryQuietly(llvm::function_ref<std::optional<TValue>()> evaluate);
  /// What a failed evaluation may leave half changed, unwinding through
  /// code that switches module, scope and call frame by hand: taken before
  /// an evaluation whose GenError is caught, restored in the catch.
  struct Snapshot {
    explicit Snapshot(MLIRGenImpl &g);
    void restore();
    MLIRGenImpl &g;
    mlir::OpBuilder::InsertionGuard insertion;
    ModuleScope *current;
    std::map<std::string, TValue> scope;
    size_t resolving;
    std::optional<TValue> returned;
    std::vector<std::pair<const ast::Block *, size_t>> followers;
    size_t callSites;
  };
  /// A decorator as spelled, called or not: "triton.jit", "my_cache".
  static std::string decoratorName(const ast::Expr &decorator);

  //===--------------------------------------------------------------------===//
  // Modules and imports (Imports.cpp)
  //===--------------------------------------------------------------------===//
  /// `module`'s scope, its functions and pending names bound on first use.
  ModuleScope &scopeOf(SourceModule &module);
  /// The value `current` binds to `name`: an evaluated global, an import
  /// resolved now, a module-level assignment evaluated now, or a name of a
  /// wildcard import's module; nothing where none binds it. `use` is where
  /// a kernel reads it, for the errors of an import that does not resolve.
  std::optional<TValue> lookupGlobal(const std::string &name,
                                     const ast::Location &use);
  /// `module`'s attribute `name` (`utils.helper`, `from utils import
  /// helper`): a name it binds, or a submodule of a package.
  std::optional<TValue> moduleAttribute(ModuleScope &module,
                                        const std::string &name,
                                        const ast::Location &use);
  /// A module of the program as a value, found and parsed; nothing where
  /// the search path has none. A module that fails to parse is an error at
  /// its syntax error, with a note at `importedAt`.
  std::optional<TValue> loadModule(const std::string &name,
                                   const ast::Location &importedAt);
  /// Why an import binds nothing: what the name is ("is module 'torch'"),
  /// and, where one is known, which reason ("is not on tilec's search
  /// path (...)"), read around the import's line.
  struct ImportFailure {
    std::string what, which;
  };
  /// What `import` binds, or why it binds nothing.
  /// One of a name's bindings (ModuleScope::pendingBindings), or why not.
  std::optional<TValue> resolveBinding(const ModuleScope::Binding &binding,
                                       const ast::Location &use,
                                       std::string &why);
  static ast::Location bindingLoc(const ModuleScope::Binding &binding);
  std::optional<TValue> resolveImport(const ast::Import &import,
                                      ImportFailure &why);
  /// The spelled path of an absolute import's binding: "triton.language"
  /// for `import triton.language as tl`, "triton" for `import
  /// triton.language`, "a.b.c" for `from a.b import c`.
  static std::string importedPath(const ast::Import &import);
  /// The imported names being resolved ("pkg.mod.name"), outermost first:
  /// Python's circular imports show as a name that needs itself.
  std::vector<std::string> resolving;
  /// A constexpr given from outside the source (-D, --signature, the JIT's
  /// constexprs): a string that spells a dtype as Triton code writes one
  /// ("tl.float32", "triton.language.float32") is that dtype.
  TValue constexprOf(const HostScalar &value);
  /// A constexpr from outside written as Python writes a tuple or a
  /// function ("(2, 3)", "helper"): its value, or nothing for other text.
  std::optional<TValue> constexprExpression(llvm::StringRef text);
  /// The parses of those, which their values may point into.
  std::vector<std::unique_ptr<ast::Module>> constexprSources;
  /// A --signature constant: a literal (HostScalar::parseLiteral) or a
  /// dtype ("tl.float16"); nothing for other text.
  std::optional<TValue> parseConstant(llvm::StringRef text);
  /// "tl.float32", "tl.uint8": how Triton code spells a dtype.
  std::string describeDType(mlir::Type dtype);
  /// `v` as an assignment binds it: numbers (in tuples too) become scalar
  /// tensors of their default types, as Triton's code generator makes them.
  TValue tensorize(const TValue &v, const ast::Location &l);
  /// A folded constexpr operation's value, or its error at `l`.
  TValue fold(const python::Result &r, const ast::Location &l);

  //===--------------------------------------------------------------------===//
  // Calls (Builtins.cpp)
  //===--------------------------------------------------------------------===//
  /// Binds a call's arguments, after a method's receiver `self`, to
  /// `params` by position and keyword; unbound parameters stay null.
  /// Errors name `function`.
  BoundArgs bindArgs(const ast::CallExpr &call, llvm::StringRef function,
                     llvm::ArrayRef<BuiltinParam> params,
                     const TValue *self = nullptr);
  /// Reports a required parameter `args` lacks; gives the others their
  /// defaults (a None default stays null: absent and None read alike).
  void completeArgs(BoundArgs &args, llvm::ArrayRef<BuiltinParam> params,
                    const ast::CallExpr &call);
  /// The value of a default written in a BuiltinSpec's parameters.
  TValue defaultValue(llvm::StringRef text, const ast::Location &l);
  TValue call(const ast::CallExpr &call);
  /// Calls the builtin `spec`, as a method of `self` if given.
  TValue callBuiltin(const BuiltinSpec &spec, const ast::CallExpr &call,
                     const TValue *self);
  TValue callFunction(const ast::FunctionDef &function,
                      const ast::CallExpr &call);
  /// The default of `function`'s `param`, evaluated in its module.
  TValue defaultArgument(const ast::FunctionDef &function,
                         const ast::Param &param);
  /// The value of `function` called with `args` in order (its defaults
  /// for the rest), generated in place.
  TValue inlineCall(const ast::FunctionDef &function,
                    llvm::ArrayRef<TValue> args, const ast::Location &l);
  TValue attribute(const TValue &base, const std::string &attr,
                   const ast::Location &l);
  /// The atomics (tl.atomic_add ... tl.atomic_cas; Memory.cpp).
  TValue genAtomic(const BoundArgs &args, const ast::CallExpr &call);
  /// tl.rand, tl.randint, tl.randint4x: Triton's Philox (Random.cpp).
  TValue genRandom(const BoundArgs &args, const ast::CallExpr &call);
  /// tl.extra.cuda.libdevice's functions (Libdevice.cpp).
  TValue genLibdevice(const ast::CallExpr &call, const std::string &name);
  /// Whether tilec offers tl.extra.cuda.libdevice's `name`.
  static bool isLibdeviceFunction(llvm::StringRef name);
  /// `tl.dot` (Dot.cpp).
  TValue genDot(const BoundArgs &args, const ast::CallExpr &call);
  TValue genDotScaled(const BoundArgs &args, const ast::CallExpr &call);
  mlir::Value scaledOperand(const TValue &x, const TValue *scale,
                            llvm::StringRef format, bool isLhs,
                            const ast::Location &l,
                            const ast::Location &scaleLoc);
  /// acc + a @ b of fp32 tiles as `parts` (3 or 6) products of their
  /// bfloat16 parts: input_precision bf16x3 and bf16x6.
  mlir::Value bf16SplitDot(mlir::Value a, mlir::Value b, mlir::Value acc,
                           unsigned parts, const ast::Location &l);
  /// tl.trans, tl.reshape, tl.join, tl.split and the other shape functions
  /// (Shapes.cpp).
  TValue genShape(const BoundArgs &args, const ast::CallExpr &call);
  /// A dtype argument, or an error.
  mlir::Type dtypeArg(const TValue &v, const ast::Location &l,
                      llvm::StringRef what);

  mlir::MLIRContext &context;
  ModuleLoader &loader;
  mlir::OpBuilder builder;
  Scope scope;
  /// The program's modules read so far, by their loader's record.
  std::map<const SourceModule *, std::unique_ptr<ModuleScope>> modules;
  /// The module whose code is being generated: the kernel's, or that of
  /// the helper being inlined.
  ModuleScope *current = nullptr;
  /// The module each @triton.jit function was defined in.
  std::map<const ast::FunctionDef *, ModuleScope *> ownerOf;
  /// Host functions kernels may call at compile time (`@tl.constexpr`,
  /// `@triton.constexpr_function`): run as helpers, their results
  /// constexprs.
  std::set<const ast::FunctionDef *> constexprFunctions;
  /// `function`'s module (ownerOf), whose globals its body and defaults
  /// read.
  ModuleScope *definingModule(const ast::FunctionDef &function);
  /// The calls of the helpers being inlined, outermost first: each
  /// helper's name and where it was called from (a location of the
  /// caller's, itself a call site inside another helper). Their ops' loc()
  /// is a CallSiteLoc, so that the PTX's line info keeps the helper's own
  /// file and line and errors inside a helper say where it was called.
  std::vector<std::pair<mlir::StringAttr, mlir::Location>> callSites;
  /// The value of `return` in the function being inlined.
  std::optional<TValue> returned;
  /// Whether device asserts are compiled in (Specialization::debug).
  bool debug = false;
  /// Specialization::computeCapability.
  unsigned computeCapability = 90;
  /// Specialization::numWarps.
  unsigned numWarps = 4;
  /// A located error unless the target converts and multiplies fp8
  /// (sm_89 and newer).
  void checkFP8Target(const ast::Location &l);
  /// arange(0, n) laid along dimension `dim` of a rank-`rank` tile (1
  /// elsewhere), for index arithmetic.
  mlir::Value rangeAlong(int64_t n, int64_t dim, int64_t rank,
                         const ast::Location &l);
  /// tl.sum, max, min, xor_sum, argmax, argmin (Reductions.cpp).
  TValue genReduction(const BoundArgs &args, const ast::CallExpr &call);
  /// tl.reduce, tl.associative_scan, tl.cumsum, tl.cumprod: combine
  /// regions (Combine.cpp).
  TValue genCombine(const BoundArgs &args, const ast::CallExpr &call);
  /// tl.sort, tl.topk, tl.flip: bitonic networks of tile.butterfly
  /// (Sort.cpp).
  TValue genSort(const BoundArgs &args, const ast::CallExpr &call);
  /// tl.histogram (Reductions.cpp).
  TValue genHistogram(const BoundArgs &args, const ast::CallExpr &call);
  /// tl.make_block_ptr, tl.advance, tl.make_tensor_descriptor
  /// (BlockPointers.cpp).
  TValue genBlockPointer(const BoundArgs &args, const ast::CallExpr &call);
  /// A tensor descriptor's record (as tl.make_tensor_descriptor's): `base`
  /// (a pointer), one shape and stride per dimension, the block's shape,
  /// zero padding.
  TValue descriptorRecord(const TValue &base, std::vector<TValue> shape,
                          std::vector<TValue> strides,
                          llvm::ArrayRef<int64_t> blockShape);
  /// The pointers, mask and padding of a load or store through a block
  /// pointer or descriptor (`offsets` given for a descriptor's).
  struct BlockAccess {
    mlir::Value ptr, mask, other;
  };
  BlockAccess blockAccess(const TValue &record, const TValue *offsets,
                          const TValue *boundaryCheck, const TValue *padding,
                          const ast::Location &l);
  /// tl.device_print and print (Debug.cpp).
  TValue genDevicePrint(const BoundArgs &args, const ast::CallExpr &call);
  /// tl.device_assert (Debug.cpp).
  TValue genDeviceAssertCall(const BoundArgs &args, const ast::CallExpr &call);
  /// A tile.assert of `cond` (with `mask`'s false elements exempt), in
  /// debug builds.
  void genDeviceAssert(const TValue &cond, const TValue *mask,
                       const std::string &message, const ast::Location &l);
  /// The statements of the kernel and of the functions it calls, and the
  /// branches of the `if`s among them that return early: an `if` in one of
  /// these may return early.
  llvm::SmallPtrSet<const ast::Block *, 8> kernelFlow;
  /// While generating inside an `if` that returns early: the statements
  /// that follow it and each enclosing such `if`, innermost last.
  std::vector<std::pair<const ast::Block *, size_t>> followers;
  /// Generates `followers`, innermost first, until a path returns.
  void genFollowers();
};

/// The BuiltinHandler that calls the member `F`, for a table's rows.
template <TValue (MLIRGenImpl::*F)(const BoundArgs &, const ast::CallExpr &)>
TValue member(MLIRGenImpl &gen, const BoundArgs &args,
              const ast::CallExpr &call) {
  return (gen.*F)(args, call);
}

//===----------------------------------------------------------------------===//
// The builtin families: each file's rows of the table (Builtins.cpp joins
// them).
//===----------------------------------------------------------------------===//
llvm::ArrayRef<BuiltinSpec> getCoreBuiltins();         // Core.cpp
llvm::ArrayRef<BuiltinSpec> getMathBuiltins();         // Math.cpp
llvm::ArrayRef<BuiltinSpec> getMemoryBuiltins();       // Memory.cpp
llvm::ArrayRef<BuiltinSpec> getReductionBuiltins();    // Reductions.cpp
llvm::ArrayRef<BuiltinSpec> getCombineBuiltins();      // Combine.cpp
llvm::ArrayRef<BuiltinSpec> getShapeBuiltins();        // Shapes.cpp
llvm::ArrayRef<BuiltinSpec> getSortBuiltins();         // Sort.cpp
llvm::ArrayRef<BuiltinSpec> getDotBuiltins();          // Dot.cpp
llvm::ArrayRef<BuiltinSpec> getRandomBuiltins();       // Random.cpp
llvm::ArrayRef<BuiltinSpec> getDebugBuiltins();        // Debug.cpp
llvm::ArrayRef<BuiltinSpec> getBlockPointerBuiltins(); // BlockPointers.cpp

} // namespace tilec

#endif // TILEC_LIB_FRONTEND_MLIRGENIMPL_H
