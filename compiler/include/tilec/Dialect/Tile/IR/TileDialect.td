//===- TileDialect.td - The tile dialect -------------------*- tablegen -*-===//

#ifndef TILEC_DIALECT_TILE_IR_TILEDIALECT_TD
#define TILEC_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Tile programs: ranked tensors of scalars and pointers";
  let description = [{
    The tile dialect is the IR the frontend emits for a Triton-style kernel.
    Values are scalars or ranked tensors of scalars and `!tile.ptr`s;
    arithmetic uses `arith` and `math` on tensors, control flow `scf`, and a
    kernel is a `func.func`. This dialect adds what those lack: program ids,
    index ranges, broadcasting, pointer arithmetic and masked memory access.
  }];
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Kernel argument attribute (string): the parameter's name in the
    /// source, which the metadata and error messages use.
    static constexpr ::llvm::StringLiteral getParamNameAttrName() {
      return "tile.name";
    }
    /// Kernel argument attribute (unit): an integer parameter (or a
    /// pointer's elements) the source declares unsigned, which the IR's
    /// signless integers cannot say.
    static constexpr ::llvm::StringLiteral getUnsignedAttrName() {
      return "tile.unsigned";
    }
    /// Kernel argument attribute (i64): the divisibility of an integer
    /// argument, or the alignment in bytes of a pointer, that the kernel
    /// was specialized on (Triton's `:16`).
    static constexpr ::llvm::StringLiteral getDivisibilityAttrName() {
      return "tile.divisibility";
    }
    /// Kernel attribute (dictionary): the constexprs the kernel was
    /// specialized on, by name, for its metadata.
    static constexpr ::llvm::StringLiteral getConstexprsAttrName() {
      return "tile.constexprs";
    }
    /// Module and loop attribute (i32): how many stages the software
    /// pipeliner may give a loop whose loads feed a dot (Triton's
    /// num_stages). On the module, the kernel's default (--num-stages); on
    /// an scf.for, that loop's own (`tl.range(..., num_stages=N)`), which
    /// takes precedence. The frontend writes both (tilec the module's where
    /// tile IR from a file lacks it); tilegpu-pipeline reads them.
    static constexpr ::llvm::StringLiteral getNumStagesAttrName() {
      return "tile.num_stages";
    }
    /// Loop attribute (bool): `tl.range(..., warp_specialize=)`, whether the
    /// loop's copies should be issued by producer warps of their own and
    /// attention's second dot an iteration late (true) or never (false);
    /// absent, the compiler decides. The frontend writes it. On the module,
    /// the same for loops without one (tilec --warp-specialize on|off).
    /// tilegpu-pipeline and tilegpu-overlap-dots read it
    /// (askedWarpSpecialization).
    static constexpr ::llvm::StringLiteral getWarpSpecializeAttrName() {
      return "tile.warp_specialize";
    }
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::func::FuncDialect",
  ];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TILEC_DIALECT_TILE_IR_TILEDIALECT_TD
