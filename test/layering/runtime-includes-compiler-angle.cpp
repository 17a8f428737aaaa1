// Checked as part of the runtime (tile_runtime): an include in angle
// brackets, spaced after the #, is an include all the same.
# include <tilec/Compiler.h>
