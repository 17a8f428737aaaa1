//===- KernelReport.cpp - What ptxas and the SASS say of a kernel ---------===//

#include "tilec/Target/PTX/KernelReport.h"
#include "tilec/Target/PTX/PTXEmitter.h"

#include "tile/Metadata.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <nlohmann/json.hpp>

#include <sstream>
#include <vector>

using namespace llvm;
using namespace tilec;

namespace {

/// The first number `pattern`'s group 1 matches in `text`, else 0.
unsigned number(StringRef text, StringRef pattern) {
  SmallVector<StringRef, 2> groups;
  unsigned value = 0;
  if (Regex(pattern).match(text, &groups))
    groups[1].getAsInteger(10, value);
  return value;
}

/// The opcode groups the text report names, in its order: the tensor
/// cores, global memory (plain, cp.async, bulk tensor copies), shared
/// memory (ldmatrix included), barriers, and local memory (spills).
constexpr StringLiteral kMixGroups[] = {
    "HMMA", "HGMMA", "QGMMA", "LDG", "LDGSTS", "UTMALDG", "STG", "UTMASTG",
    "LDS",  "LDSM",  "STS",   "BAR", "SYNCS",  "LDL",     "STL"};

/// How often the SASS has `opcode`.
unsigned countOf(const KernelReport &report, StringRef opcode) {
  auto found = report.opcodes.find(opcode.str());
  return found == report.opcodes.end() ? 0 : found->second;
}

} // namespace

bool tilec::readPtxasInfo(StringRef log, StringRef kernel,
                          KernelReport &report) {
  // "Function properties for K" opens the kernel's lines: its stack frame
  // and spills, then "Used N registers, used M barriers, S bytes smem".
  // The line ends with the name: K's, not a longer name starting with it.
  std::string opening = ("Function properties for " + kernel + "\n").str();
  size_t start = log.find(opening);
  if (start == StringRef::npos)
    return false;
  StringRef section = log.substr(start + opening.size());
  // Up to the next function's lines.
  section = section.substr(0, section.find("Compiling entry function"));
  section = section.substr(0, section.find("Function properties for"));
  report.localBytes = number(section, "([0-9]+) bytes stack frame");
  report.spillStoreBytes = number(section, "([0-9]+) bytes spill stores");
  report.spillLoadBytes = number(section, "([0-9]+) bytes spill loads");
  report.registers = number(section, "Used ([0-9]+) registers");
  report.barriers = number(section, "used ([0-9]+) barriers");
  report.staticSharedBytes = number(section, "([0-9]+) bytes smem");
  return section.contains("Used ");
}

void tilec::countInstructions(StringRef sass, KernelReport &report) {
  // "  /*0a70*/   @!P0 HGMMA.64x128x16.F32 R24, gdesc[UR4], R24 ;": an
  // address comment, a predicate or none, then the opcode.
  Regex instruction(
      "/\\*[0-9a-f]+\\*/[[:space:]]+(@!?U?P[A-Z0-9]+[[:space:]]+)?"
      "([A-Z][A-Z0-9_]*)");
  SmallVector<StringRef, 3> groups;
  SmallVector<StringRef> lines;
  sass.split(lines, '\n');
  for (StringRef line : lines) {
    if (!instruction.match(line, &groups))
      continue;
    ++report.opcodes[groups[2].str()];
    ++report.instructions;
  }
  report.hasInstructionMix = true;
}

Expected<KernelReport> tilec::reportKernel(StringRef ptx,
                                           const tile::KernelMetadata &md) {
  KernelReport report;
  report.kernel = md.kernel;
  report.arch = md.arch;
  report.threadsPerBlock = md.threadsPerBlock;
  report.clusterDims = md.clusterDims;
  report.streamK = md.streamKPartialBytes > 0;
  report.clusterPrograms = md.clusterPrograms;
  report.persistent = md.persistent;
  report.dynamicSharedBytes = md.sharedBytes;
  std::string info;
  Expected<std::vector<char>> cubin = assembleCubin(ptx, md.arch, &info);
  if (!cubin)
    return cubin.takeError();
  if (!readPtxasInfo(info, md.kernel, report))
    return createStringError("ptxas -v says nothing of kernel '" + md.kernel +
                             "':\n" + info);
  SMLimits sm = smLimits(md.arch);
  report.occupancy =
      occupancy(sm, md.threadsPerBlock, report.registers,
                report.staticSharedBytes + report.dynamicSharedBytes);
  report.maxWarpsPerSM = sm.threads / 32;
  std::string tool;
  Expected<std::string> sass = disassembleCubin(*cubin, &tool);
  if (sass) {
    countInstructions(*sass, report);
    report.disassembler = sys::path::filename(tool).str();
  } else {
    report.disassembler = toString(sass.takeError());
  }
  return report;
}

std::string tilec::formatReport(const KernelReport &r) {
  std::ostringstream os;
  const Occupancy &o = r.occupancy;
  os << "kernel " << r.kernel << " (" << r.arch << ", " << r.threadsPerBlock
     << " threads a block)\n";
  const std::array<unsigned, 3> &c = r.clusterDims;
  if (c[0] * c[1] * c[2] > 1)
    os << "  programs       clusters of (" << c[0] << ", " << c[1] << ", "
       << c[2] << ") CTAs that split the K loop\n";
  if (r.streamK)
    os << "  programs       stream-K: a last wave's K loops cut into parts\n";
  if (r.clusterPrograms > 1)
    os << "  programs       up to " << r.clusterPrograms
       << " along x run as a cluster sharing their bulk copies\n";
  if (r.persistent)
    os << "  programs       persistent: each CTA runs programs in turn\n";
  os << "  registers      " << r.registers << " a thread; spills "
     << r.spillStoreBytes << " bytes stored, " << r.spillLoadBytes
     << " loaded; local memory " << r.localBytes << " bytes a thread\n";
  os << "  shared memory  " << r.staticSharedBytes << " bytes static, "
     << r.dynamicSharedBytes << " dynamic a block; " << r.barriers
     << (r.barriers == 1 ? " barrier\n" : " barriers\n");
  os << "  occupancy      " << o.blocks
     << (o.blocks == 1 ? " block, " : " blocks, ") << o.warps << " of "
     << r.maxWarpsPerSM << " warps an SM; limited by ";
  for (auto [i, limit] : llvm::enumerate(o.limits))
    os << (i ? " and " : "") << describe(limit).str();
  os << "\n";
  if (!r.hasInstructionMix) {
    os << "  instructions   no listing: " << r.disassembler << "\n";
    return os.str();
  }
  os << "  instructions   " << r.instructions << " (" << r.disassembler << "):";
  for (StringRef group : kMixGroups)
    os << " " << group.str() << " " << countOf(r, group);
  os << "\n";
  return os.str();
}

std::string tilec::reportJSON(const KernelReport &r) {
  nlohmann::ordered_json json;
  json["kernel"] = r.kernel;
  json["arch"] = r.arch;
  json["threads_per_block"] = r.threadsPerBlock;
  json["cluster_dims"] = r.clusterDims;
  json["stream_k"] = r.streamK;
  json["cluster_programs"] = r.clusterPrograms;
  json["persistent"] = r.persistent;
  json["registers"] = r.registers;
  json["spill_store_bytes"] = r.spillStoreBytes;
  json["spill_load_bytes"] = r.spillLoadBytes;
  json["local_bytes"] = r.localBytes;
  json["shared_static_bytes"] = r.staticSharedBytes;
  json["shared_dynamic_bytes"] = r.dynamicSharedBytes;
  json["barriers"] = r.barriers;
  std::vector<std::string> limits;
  for (OccupancyLimit limit : r.occupancy.limits)
    limits.push_back(describe(limit).str());
  json["occupancy"] = {{"blocks_per_sm", r.occupancy.blocks},
                       {"warps_per_sm", r.occupancy.warps},
                       {"max_warps_per_sm", r.maxWarpsPerSM},
                       {"limited_by", limits}};
  if (r.hasInstructionMix) {
    nlohmann::ordered_json mix;
    mix["total"] = r.instructions;
    for (StringRef group : kMixGroups)
      mix[group.str()] = countOf(r, group);
    json["instructions"] = mix;
    json["opcodes"] = r.opcodes;
    json["disassembler"] = r.disassembler;
  } else {
    json["instructions"] = nullptr;
    json["disassembler"] = nullptr;
    json["no_instructions_because"] = r.disassembler;
  }
  return json.dump();
}
