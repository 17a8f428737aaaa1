//===- CLauncher.cpp - Kernels as C sources with typed launchers ----------===//
//
// The source holds, in this order: the images as byte arrays (a string
// literal of a large PTX would pass the length C compilers promise), the
// driver's entry points resolved once (pthread_once) with the module
// loaded into the current context, the arithmetic of the tensor maps'
// recipes (HostExpr's, 64-bit, wrapping), and the launcher.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/C/CLauncher.h"

#include "tile/Error.h"

#include "llvm/ADT/STLExtras.h"

#include <sstream>

using namespace tilec;

namespace {

/// The C type of a launch parameter of `type`, or "" where C has none.
std::string cType(const std::string &type) {
  if (!type.empty() && type[0] == '*')
    return "CUdeviceptr";
  if (type == "i32")
    return "int32_t";
  if (type == "i64")
    return "int64_t";
  if (type == "fp32")
    return "float";
  if (type == "i1")
    return "int8_t";
  return "";
}

/// `bytes` as the initializer of an unsigned char array, 16 to a line.
void writeBytes(std::ostringstream &os, const char *data, size_t size) {
  static const char *digits = "0123456789abcdef";
  for (size_t i = 0; i < size; ++i) {
    if (i % 16 == 0)
      os << (i ? "\n  " : "  ");
    auto byte = static_cast<unsigned char>(data[i]);
    os << "0x" << digits[byte >> 4] << digits[byte & 15] << ",";
  }
  os << "\n";
}

/// A recipe as a C expression over `args` (int64_t[]) and `grid`.
std::string cExpr(const tile::HostExpr &e) {
  using Op = tile::HostExpr::Op;
  auto binary = [&](const char *f) {
    return std::string(f) + "(" + cExpr(e.operands[0]) + ", " +
           cExpr(e.operands[1]) + ")";
  };
  switch (e.op) {
  case Op::Constant:
    return "INT64_C(" + std::to_string(e.value) + ")";
  case Op::Arg:
    return "tl_args[" + std::to_string(e.value) + "]";
  case Op::Grid:
    return "tl_grid[" + std::to_string(e.value) + "]";
  case Op::Add:
    return binary("tl_add");
  case Op::Sub:
    return binary("tl_sub");
  case Op::Mul:
    return binary("tl_mul");
  case Op::Div:
    return binary("tl_div");
  case Op::CeilDiv:
    return binary("tl_ceildiv");
  case Op::Rem:
    return binary("tl_rem");
  case Op::Min:
    return binary("tl_min");
  case Op::Max:
    return binary("tl_max");
  case Op::I32:
    return "tl_i32(" + cExpr(e.operands[0]) + ")";
  }
  return "0";
}

const char *kRecipeHelpers = R"(/* The recipes' arithmetic: 64-bit, wrapping; division rounds toward zero
   and gives 0 where it is undefined. */
static inline int64_t tl_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t tl_sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static inline int64_t tl_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static inline int64_t tl_div(int64_t a, int64_t b) {
  return b == 0 || (b == -1 && a == INT64_MIN) ? 0 : a / b;
}
static inline int64_t tl_ceildiv(int64_t a, int64_t b) {
  int64_t q = tl_div(a, b);
  if (b == 0 || (b == -1 && a == INT64_MIN))
    return 0;
  return q + ((a % b != 0) && ((a < 0) == (b < 0)) ? 1 : 0);
}
static inline int64_t tl_rem(int64_t a, int64_t b) { return b == 0 || b == -1 ? 0 : a % b; }
static inline int64_t tl_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t tl_max(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t tl_i32(int64_t a) { return (int64_t)(int32_t)(uint32_t)(uint64_t)a; }
)";

} // namespace

CLauncher tilec::emitCLauncher(const tile::KernelMetadata &md,
                               const std::string &ptx,
                               const std::vector<char> &cubin,
                               const std::string &headerName,
                               const std::string &origin) {
  const std::string &name = md.kernel;
  std::string guard = "TILEC_KERNEL_" + name + "_H";
  for (char &c : guard)
    c = char(std::toupper(static_cast<unsigned char>(c)));

  // The launcher's C parameters, as "type name"; a kernel parameter named
  // as one of the launcher's own gets a trailing underscore.
  std::vector<std::string> params, names;
  for (const tile::ParamInfo &param : md.params) {
    std::string type = cType(param.type);
    if (type.empty())
      throw tile::Error("kernel " + name + ": parameter " + param.name +
                        " of type " + param.type +
                        " cannot be passed from C");
    std::string cName = param.name;
    if (cName == "stream" || cName == "grid_x" || cName == "grid_y" ||
        cName == "grid_z" || cName.rfind("tl_", 0) == 0)
      cName += "_";
    names.push_back(cName);
    params.push_back(type + " " + cName);
  }
  std::ostringstream signature;
  signature << "CUresult " << name
            << "(CUstream stream, unsigned grid_x, unsigned grid_y, "
               "unsigned grid_z";
  for (const std::string &param : params)
    signature << ",\n    " << param;
  signature << ")";

  std::ostringstream h;
  h << "/* " << name << ": generated by tilec from " << origin
    << ". Do not edit. */\n"
    << "#ifndef " << guard << "\n#define " << guard << "\n\n"
    << "#include <cuda.h>\n#include <stdint.h>\n\n"
    << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
    << "/* Kernel " << name << " (" << md.arch << ", " << md.numWarps
    << " warps, " << md.sharedBytes << " bytes of shared memory)";
  if (!md.constexprs.empty()) {
    h << ", with";
    for (const auto &[key, value] : md.constexprs)
      h << " " << key << "=" << value;
  }
  h << ".";
  // The specialization's promises, which the launcher does not check.
  bool first = true;
  for (auto [param, cName] : llvm::zip(md.params, names))
    if (param.divisibility > 1) {
      h << (first ? "\n   Assumes " : ", ") << cName
        << (param.isPointer() ? " is " : " is a multiple of ")
        << param.divisibility << (param.isPointer() ? "-byte aligned" : "");
      first = false;
    }
  h << (first ? "" : ".")
    << "\n   Enqueues grid_x x grid_y x grid_z programs on `stream` (0: the "
       "default\n   stream) in the current context; returns the driver's "
       "error, if any. */\n"
    << signature.str() << ";\n\n"
    << "/* Loads the module into the current context now rather than at the "
       "first\n   launch. */\nCUresult " << name << "_load(void);\n\n"
    << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";

  std::ostringstream c;
  c << "/* " << name << ": generated by tilec from " << origin
    << ". Do not edit. */\n"
    << "#include \"" << headerName << "\"\n\n"
    << "#include <dlfcn.h>\n#include <pthread.h>\n#include <stddef.h>\n\n";
  if (!cubin.empty()) {
    c << "static const unsigned char " << name << "_cubin[] = {\n";
    writeBytes(c, cubin.data(), cubin.size());
    c << "};\n\n";
  }
  // NUL-terminated: cuModuleLoadData reads PTX as a C string.
  c << "static const unsigned char " << name << "_ptx[] = {\n";
  std::string text = ptx + '\0';
  writeBytes(c, text.data(), text.size());
  c << "};\n\n";

  bool maps = !md.tensorMaps.empty();
  bool scratch = md.globalScratchBytes != 0;
  c << "static pthread_once_t " << name << "_once_flag = PTHREAD_ONCE_INIT;\n"
    << "static struct {\n"
       "  CUresult status;\n"
       "  CUfunction function;\n"
       "  CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, "
       "unsigned,\n"
       "                     unsigned, unsigned, unsigned, CUstream, void **, "
       "void **);\n";
  if (maps)
    c << "  CUresult (*encode)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, "
         "void *,\n"
         "                     const cuuint64_t *, const cuuint64_t *, const "
         "cuuint32_t *,\n"
         "                     const cuuint32_t *, CUtensorMapInterleave,\n"
         "                     CUtensorMapSwizzle, CUtensorMapL2promotion,\n"
         "                     CUtensorMapFloatOOBfill);\n";
  if (scratch)
    c << "  CUresult (*alloc)(CUdeviceptr *, size_t, CUstream);\n"
         "  CUresult (*free)(CUdeviceptr, CUstream);\n";
  c << "} " << name << "_state;\n\n";

  // The one-time load.
  c << "#define TILEC_SYM(lib, var, symbol)                                  \\\n"
       "  do {                                                             \\\n"
       "    *(void **)(&(var)) = dlsym((lib), (symbol));                   \\\n"
       "    if (!(var))                                                    \\\n"
       "      return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;            \\\n"
       "  } while (0)\n\n";
  c << "static CUresult " << name << "_init(void) {\n"
    << "  void *lib = dlopen(\"libcuda.so.1\", RTLD_NOW | RTLD_LOCAL);\n"
       "  if (!lib)\n    return CUDA_ERROR_SHARED_OBJECT_INIT_FAILED;\n"
       "  CUresult (*init)(unsigned);\n"
       "  CUresult (*getCurrent)(CUcontext *);\n"
       "  CUresult (*setCurrent)(CUcontext);\n"
       "  CUresult (*deviceGet)(CUdevice *, int);\n"
       "  CUresult (*retain)(CUcontext *, CUdevice);\n"
       "  CUresult (*loadData)(CUmodule *, const void *);\n"
       "  CUresult (*getFunction)(CUfunction *, CUmodule, const char *);\n"
       "  CUresult (*setAttribute)(CUfunction, CUfunction_attribute, int);\n"
       "  TILEC_SYM(lib, init, \"cuInit\");\n"
       "  TILEC_SYM(lib, getCurrent, \"cuCtxGetCurrent\");\n"
       "  TILEC_SYM(lib, setCurrent, \"cuCtxSetCurrent\");\n"
       "  TILEC_SYM(lib, deviceGet, \"cuDeviceGet\");\n"
       "  TILEC_SYM(lib, retain, \"cuDevicePrimaryCtxRetain\");\n"
       "  TILEC_SYM(lib, loadData, \"cuModuleLoadData\");\n"
       "  TILEC_SYM(lib, getFunction, \"cuModuleGetFunction\");\n"
       "  TILEC_SYM(lib, setAttribute, \"cuFuncSetAttribute\");\n"
    << "  TILEC_SYM(lib, " << name << "_state.launch, \"cuLaunchKernel\");\n";
  if (maps)
    c << "  TILEC_SYM(lib, " << name
      << "_state.encode, \"cuTensorMapEncodeTiled\");\n";
  if (scratch)
    c << "  TILEC_SYM(lib, " << name << "_state.alloc, \"cuMemAllocAsync\");\n"
      << "  TILEC_SYM(lib, " << name << "_state.free, \"cuMemFreeAsync\");\n";
  c << "  CUresult r = init(0);\n"
       "  if (r != CUDA_SUCCESS)\n    return r;\n"
       "  CUcontext context = NULL;\n"
       "  if ((r = getCurrent(&context)) != CUDA_SUCCESS)\n    return r;\n"
       "  if (!context) {\n"
       "    CUdevice device;\n"
       "    if ((r = deviceGet(&device, 0)) != CUDA_SUCCESS ||\n"
       "        (r = retain(&context, device)) != CUDA_SUCCESS ||\n"
       "        (r = setCurrent(context)) != CUDA_SUCCESS)\n"
       "      return r;\n"
       "  }\n"
       "  CUmodule module;\n";
  if (!cubin.empty())
    c << "  /* The cubin where it fits the device, else the PTX. */\n"
      << "  r = loadData(&module, " << name << "_cubin);\n"
      << "  if (r != CUDA_SUCCESS)\n"
      << "    r = loadData(&module, " << name << "_ptx);\n";
  else
    c << "  r = loadData(&module, " << name << "_ptx);\n";
  c << "  if (r != CUDA_SUCCESS)\n    return r;\n"
    << "  if ((r = getFunction(&" << name << "_state.function, module, \""
    << name << "\")) != CUDA_SUCCESS)\n    return r;\n";
  if (md.sharedBytes > 48 * 1024)
    c << "  r = setAttribute(" << name
      << "_state.function,\n"
         "                   CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, "
      << md.sharedBytes << ");\n";
  c << "  return r;\n}\n\n"
    << "#undef TILEC_SYM\n\n"
    << "static void " << name << "_once(void) {\n  " << name
    << "_state.status = " << name << "_init();\n}\n\n"
    << "CUresult " << name << "_load(void) {\n"
    << "  pthread_once(&" << name << "_once_flag, " << name << "_once);\n"
    << "  return " << name << "_state.status;\n}\n\n";
  if (maps)
    c << kRecipeHelpers << "\n";

  // The launcher.
  c << signature.str() << " {\n"
    << "  CUresult tl_r = " << name << "_load();\n"
    << "  if (tl_r != CUDA_SUCCESS)\n    return tl_r;\n";
  size_t slots = md.params.size() + md.tensorMaps.size() + (scratch ? 1 : 0);
  c << "  void *tl_params[" << std::max<size_t>(slots, 1) << "] = {";
  for (size_t i = 0; i < md.params.size(); ++i)
    c << (i ? ", " : "") << "&" << names[i];
  c << "};\n";
  if (maps) {
    c << "  const int64_t tl_args[] = {";
    for (size_t i = 0; i < md.params.size(); ++i)
      c << (i ? ", " : "") << "(int64_t)" << names[i];
    c << "};\n"
      << "  const int64_t tl_grid[3] = {grid_x, grid_y, grid_z};\n"
      << "  (void)tl_args;\n  (void)tl_grid;\n"
      << "  CUtensorMap tl_maps[" << md.tensorMaps.size() << "];\n";
    for (size_t m = 0; m < md.tensorMaps.size(); ++m) {
      const tile::TensorMapInfo &info = md.tensorMaps[m];
      size_t rank = info.dims.size();
      c << "  { /* tensor map " << m << ": an empty tensor gets a zero map */\n"
        << "    const int64_t extents[" << rank << "] = {";
      for (size_t d = 0; d < rank; ++d)
        c << (d ? ", " : "") << cExpr(info.dims[d]);
      c << "};\n    cuuint64_t dims[" << rank << "], strides["
        << std::max<size_t>(rank - 1, 1) << "];\n"
        << "    const cuuint32_t box[" << rank << "] = {";
      for (size_t d = 0; d < rank; ++d)
        c << (d ? ", " : "") << info.box[d];
      c << "}, unit[" << rank << "] = {";
      for (size_t d = 0; d < rank; ++d)
        c << (d ? ", " : "") << 1;
      c << "};\n    int empty = 0;\n"
        << "    for (int d = 0; d < " << rank << "; ++d) {\n"
        << "      empty |= extents[d] <= 0;\n"
        << "      dims[d] = (cuuint64_t)extents[d];\n    }\n";
      for (size_t d = 0; d + 1 < rank; ++d)
        c << "    strides[" << d << "] = (cuuint64_t)tl_mul("
          << cExpr(info.strides[d]) << ", " << info.elementBytes << ");\n";
      c << "    char *bytes = (char *)&tl_maps[" << m << "];\n"
        << "    for (size_t i = 0; i < sizeof(CUtensorMap); ++i)\n"
        << "      bytes[i] = 0;\n"
        << "    if (!empty && (tl_r = " << name << "_state.encode(&tl_maps[" << m
        << "], (CUtensorMapDataType)" << tile::getTensorMapDataType(info.elementBytes)
        << ", " << rank << ",\n"
        << "            (void *)(uintptr_t)" << cExpr(info.base)
        << ", dims, strides, box, unit,\n"
        << "            CU_TENSOR_MAP_INTERLEAVE_NONE, (CUtensorMapSwizzle)"
        << tile::getTensorMapSwizzle(info.swizzle) << ",\n"
        << "            CU_TENSOR_MAP_L2_PROMOTION_NONE, "
           "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)) != CUDA_SUCCESS)\n"
        << "      return tl_r;\n"
        << "    tl_params[" << md.params.size() + m << "] = &tl_maps[" << m << "];\n"
        << "  }\n";
    }
  }
  if (scratch) {
    c << "  /* The programs' global scratch (tensor maps they build), in "
         "stream order. */\n"
      << "  CUdeviceptr tl_scratch = 0;\n"
      << "  size_t tl_programs = (size_t)grid_x * grid_y * grid_z;\n"
      << "  if ((tl_r = " << name << "_state.alloc(&tl_scratch, tl_programs * "
      << md.globalScratchBytes << ", stream)) != CUDA_SUCCESS)\n"
      << "    return tl_r;\n"
      << "  tl_params[" << slots - 1 << "] = &tl_scratch;\n";
  }
  c << "  tl_r = " << name << "_state.launch(" << name
    << "_state.function, grid_x, grid_y, grid_z, " << md.threadsPerBlock
    << ", 1, 1,\n    " << md.sharedBytes << ", stream, tl_params, NULL);\n";
  if (scratch)
    c << "  CUresult tl_freed = " << name
      << "_state.free(tl_scratch, stream);\n"
      << "  return tl_r != CUDA_SUCCESS ? tl_r : tl_freed;\n";
  else
    c << "  return tl_r;\n";
  c << "}\n";
  return {h.str(), c.str()};
}
