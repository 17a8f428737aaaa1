//===- TensorMapRecipe.cpp - A host tensor map's recipe -------------------===//

#include "tilec/Dialect/TileGPU/IR/TensorMapRecipe.h"

using namespace mlir;
using ::tile::HostExpr;

namespace {

/// A HostExpr from its attribute: an integer, or [op name, operands...].
FailureOr<HostExpr> readExpr(Attribute attr, std::string &error) {
  HostExpr expr;
  if (auto integer = dyn_cast<IntegerAttr>(attr)) {
    expr.value = integer.getInt();
    return expr;
  }
  auto array = dyn_cast<ArrayAttr>(attr);
  auto name = array && !array.empty() ? dyn_cast<StringAttr>(array[0])
                                      : StringAttr();
  std::optional<HostExpr::Op> op =
      name ? HostExpr::parseOp(name.getValue().str()) : std::nullopt;
  if (!op || array.size() != HostExpr::numOperands(*op) + 1) {
    error = "malformed expression";
    return failure();
  }
  expr.op = *op;
  if (expr.op == HostExpr::Op::Arg || expr.op == HostExpr::Op::Grid) {
    auto index = dyn_cast<IntegerAttr>(array[1]);
    if (!index) {
      error = "malformed expression";
      return failure();
    }
    expr.value = index.getInt();
    return expr;
  }
  for (Attribute operand : array.getValue().drop_front()) {
    FailureOr<HostExpr> read = readExpr(operand, error);
    if (failed(read))
      return failure();
    expr.operands.push_back(std::move(*read));
  }
  return expr;
}

LogicalResult readExprs(DictionaryAttr recipe, StringRef key,
                        std::vector<HostExpr> &out, std::string &error) {
  auto array = recipe.getAs<ArrayAttr>(key);
  if (!array) {
    error = ("no " + key).str();
    return failure();
  }
  for (Attribute element : array) {
    FailureOr<HostExpr> expr = readExpr(element, error);
    if (failed(expr))
      return failure();
    out.push_back(std::move(*expr));
  }
  return success();
}

} // namespace

FailureOr<::tile::TensorMapInfo>
mlir::tilegpu::readTensorMapRecipe(DictionaryAttr recipe, size_t numParams,
                                   std::string &error) {
  ::tile::TensorMapInfo info;
  Attribute base = recipe.get("base");
  auto box = recipe.getAs<ArrayAttr>("box");
  auto elementBytes = recipe.getAs<IntegerAttr>("element_bytes");
  auto swizzle = recipe.getAs<IntegerAttr>("swizzle");
  if (!base || !box || !elementBytes || !swizzle) {
    error = "a field is missing";
    return failure();
  }
  FailureOr<HostExpr> baseExpr = readExpr(base, error);
  if (failed(baseExpr) || failed(readExprs(recipe, "dims", info.dims, error)) ||
      failed(readExprs(recipe, "strides", info.strides, error)))
    return failure();
  info.base = std::move(*baseExpr);
  for (Attribute extent : box) {
    auto integer = dyn_cast<IntegerAttr>(extent);
    if (!integer) {
      error = "a box extent is not an integer";
      return failure();
    }
    info.box.push_back(unsigned(integer.getInt()));
  }
  info.elementBytes = unsigned(elementBytes.getInt());
  info.swizzle = unsigned(swizzle.getInt());
  error = info.verify(numParams);
  if (!error.empty())
    return failure();
  return info;
}
