//===- ASTDump.h - Textual dump of a .tl syntax tree -----------*- C++ -*-===//
//
// Prints the tree one node per line, children indented by two spaces, each
// node with its `@line:col`. The format is what `tilec --emit=ast` prints
// and what the Frontend lit tests check:
//
//   Module
//     Import triton.language as tl @1:1
//     ImportFrom triton.language import constexpr as constexpr @2:1
//     Assign @3:1                       (a module-level global)
//       Target
//         Name BLOCK @3:1
//       Int 128 @3:9
//     FunctionDef add_kernel @5:1
//       Decorator
//         Attribute jit @4:9
//           Name triton @4:2
//       Param x_ptr @5:16
//       Param BLOCK_SIZE @5:23
//         Annotation
//           ...
//         Default
//           ...
//       Returns                         (only with `-> T`)
//         ...
//       <statements of the body>
//
// Statements: `Expr`, `Assign` (Target per target, Annotation, then the
// value), `AugAssign +=` (target, value), `If` (cond, Then, Else),
// `For` (target, iter, Body), `While` (cond, Body), `Return` [value],
// `Pass`, `Break`, `Continue`, `Assert` (cond [, message]).
//
// Expressions: `Name x`, `Int 42`, `Float 1.5`, `Bool True`, `None`,
// `String "escaped"`, `Attribute attr` (base), `Call` (callee, args,
// `Keyword name` per keyword), `Subscript` (base, indices), `Slice` (Lower,
// Upper, Step, each only when present), `Tuple`/`List` (elements),
// `Unary -` / `Unary not`, `Binary +`, `Compare not in`, `BoolOp and`,
// `IfExp` (cond, then value, else value).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_ASTDUMP_H
#define TILEC_FRONTEND_ASTDUMP_H

#include "tilec/Frontend/AST.h"

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace tilec {

/// Prints `module` as an indented tree, one node per line.
void dumpAST(const ast::Module &module, llvm::raw_ostream &os);

/// Prints one expression subtree, starting at `indent` levels of two spaces.
void dumpAST(const ast::Expr &expr, llvm::raw_ostream &os,
             unsigned indent = 0);

/// Prints one statement subtree, starting at `indent` levels of two spaces.
void dumpAST(const ast::Stmt &stmt, llvm::raw_ostream &os,
             unsigned indent = 0);

} // namespace tilec

#endif // TILEC_FRONTEND_ASTDUMP_H
