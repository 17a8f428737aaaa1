// A file the layering test checks as if it were part of the tile dialect
// (TilecTileIR): the dialect is below the frontend, so this include must
// fail the check (test/CMakeLists.txt, layering.*).
#include "tilec/Dialect/Tile/IR/Tile.h"
#include "tilec/Frontend/Parser.h"
