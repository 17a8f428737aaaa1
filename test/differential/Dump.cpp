//===- Dump.cpp - A generated kernel as files tile-run takes --------------===//

#include "Dump.h"

#include "Runner.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace difftest;

namespace {

/// NumPy's descr of a dtype's storage.
const char *npyDescr(DType dt) {
  switch (dt) {
  case DType::F32:
    return "<f4";
  case DType::F16:
    return "<f2";
  case DType::BF16:
    return "<u2";
  case DType::I32:
    return "<i4";
  default:
    return "|i1";
  }
}

bool writeNpy(const std::string &path, DType dt,
              const std::vector<double> &values) {
  std::ostringstream header;
  header << "{'descr': '" << npyDescr(dt) << "', 'fortran_order': False, "
         << "'shape': (" << values.size() << ",), }";
  std::string h = header.str();
  // Magic, version 1.0, the header length, the header padded with spaces
  // and a newline to a multiple of 64 bytes.
  size_t total = 10 + h.size() + 1;
  h.append((64 - total % 64) % 64, ' ');
  h += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t length = uint16_t(h.size());
  out.put(char(length & 0xff)).put(char(length >> 8));
  out << h;
  std::vector<char> bytes(values.size() * bytesOf(dt));
  for (size_t i = 0; i < values.size(); ++i)
    encode(dt, values[i], &bytes[i * bytesOf(dt)]);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  return bool(out);
}

} // namespace

std::string difftest::dumpCase(const KernelCase &c,
                               const std::string &directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error)
    return "cannot create " + directory + ": " + error.message();
  std::ofstream(directory + "/kernel.tl") << describe(c);
  std::ostringstream run;
  run << "#!/bin/sh\n# seed " << c.seed << ": add --backend cuda for the "
      << "GPU, -o DIR for the outputs.\ncd \"$(dirname \"$0\")\"\n"
      << "tile-run kernel.tl --kernel " << c.kernel << " --grid " << c.grid[0]
      << "," << c.grid[1] << "," << c.grid[2] << " --num-warps " << c.numWarps
      << " --num-stages " << c.numStages << " --arch " << c.arch
      << " --cluster-split-k " << c.clusterSplitK;
  // The GPU's specialization: integers equal to 1 are constants, and
  // tile-run takes no argument for them.
  std::vector<std::string> types = argTypes(c, /*ones=*/true);
  std::string signature;
  for (const std::string &type : types)
    signature += (signature.empty() ? "" : ", ") + type;
  for (const auto &[name, value] : c.constexprs)
    signature += ", " + std::to_string(value);
  run << " --signature \"" << signature << "\"";
  for (size_t k = 0; k < c.params.size(); ++k) {
    const Param &p = c.params[k];
    if (types[k].size() > 2 &&
        types[k].compare(types[k].size() - 2, 2, ":1") == 0)
      continue;
    if (p.isBuffer) {
      const Buffer &b = c.buffers[p.index];
      if (!writeNpy(directory + "/" + b.name + ".npy", b.dtype, b.init))
        return "cannot write " + directory + "/" + b.name + ".npy";
      if (b.output && !b.expected.empty())
        writeNpy(directory + "/" + b.name + ".reference.npy", b.dtype,
                 b.expected);
      run << " " << b.name << ".npy";
    } else {
      const Scalar &s = c.scalars[p.index];
      run << " ";
      if (s.isFloat) {
        char text[32];
        std::snprintf(text, sizeof text, "%.9g", double(s.f));
        std::string number = text;
        if (number.find_first_of(".e") == std::string::npos)
          number += ".0"; // a real number: tile-run passes it as fp32
        run << number;
      } else {
        run << s.i;
      }
    }
  }
  run << " \"$@\"\n";
  std::string script = directory + "/run.sh";
  std::ofstream(script) << run.str();
  std::filesystem::permissions(script, std::filesystem::perms::owner_exec,
                               std::filesystem::perm_options::add, error);
  return "";
}
