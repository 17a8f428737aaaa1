//===- KernelCase.cpp - One generated kernel and its launch ---------------===//

#include "KernelCase.h"

#include <sstream>

using namespace difftest;

std::string difftest::describe(const KernelCase &c) {
  std::ostringstream s;
  s << "# seed " << c.seed << ": " << c.family << ", " << c.summary << "\n";
  s << "# grid (" << c.grid[0] << ", " << c.grid[1] << ", " << c.grid[2]
    << "), num_warps " << c.numWarps << ", num_stages " << c.numStages
    << ", arch " << c.arch;
  if (c.clusterSplitK != 1)
    s << ", cluster split " << c.clusterSplitK;
  s << "\n# arguments:";
  for (const Param &p : c.params) {
    if (p.isBuffer) {
      const Buffer &b = c.buffers[p.index];
      s << " " << b.name << "=*" << sigName(b.dtype) << "[" << b.size() << "]";
      if (b.offset)
        s << "(+" << b.offset << ")";
    } else {
      const Scalar &sc = c.scalars[p.index];
      s << " " << sc.name << "=";
      if (sc.isFloat)
        s << sc.f;
      else
        s << sc.i;
    }
  }
  for (const auto &[name, value] : c.constexprs)
    s << " " << name << "=" << value;
  s << "\n" << c.source;
  return s.str();
}
