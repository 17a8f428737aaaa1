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
#include "tile/Grid.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <sstream>

using namespace tilec;

namespace {

/// The C type of a launch parameter of `type`.
std::string cType(const tile::ParamType &type) {
  return type.isPointer ? "CUdeviceptr"
                        : std::string(tile::info(type.dtype).cType);
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

/// The launcher's C parameters of a specialization: "type name" and the
/// names, a kernel parameter named as one of the launcher's own getting a
/// trailing underscore.
struct CParams {
  std::vector<std::string> types, names;
};

CParams getCParams(const tile::KernelMetadata &md) {
  CParams params;
  for (const tile::ParamInfo &param : md.params) {
    std::string type = cType(param.type);
    std::string cName = param.name;
    if (cName == "stream" || cName == "grid_x" || cName == "grid_y" ||
        cName == "grid_z" || cName.rfind("tl_", 0) == 0)
      cName += "_";
    params.types.push_back(type);
    params.names.push_back(cName);
  }
  return params;
}

std::string getSignature(const std::string &function, const CParams &params) {
  std::string text = "CUresult " + function +
                     "(CUstream stream, unsigned grid_x, unsigned grid_y, "
                     "unsigned grid_z";
  for (auto [type, name] : llvm::zip(params.types, params.names))
    text += ",\n    " + type + " " + name;
  return text + ")";
}

/// What a specialization was compiled for, for its comment in the header.
std::string describe(const tile::KernelMetadata &md, const CParams &params) {
  std::ostringstream os;
  os << md.arch << ", " << md.numWarps << " warps, " << md.sharedBytes
     << " bytes of shared memory";
  if (md.ctasPerCluster() > 1)
    os << ", each program a cluster of (" << md.clusterDims[0] << ", "
       << md.clusterDims[1] << ", " << md.clusterDims[2] << ") CTAs";
  if (md.streamKPartialBytes)
    os << ", stream-K (a partial last wave's programs shared out among CTAs)";
  if (md.persistent)
    os << ", persistent (the CTAs the device holds at once run the programs)";
  // The driver it needs: an older one refuses the PTX, though not the cubin.
  if (int driver = tile::getMinDriverVersion(md.ptxVersion))
    os << ", PTX ISA " << md.ptxVersion / 10 << "." << md.ptxVersion % 10
       << ": CUDA " << driver / 1000 << "." << driver % 1000 / 10
       << "+ drivers";
  if (!md.constexprs.empty()) {
    os << "), with";
    for (const auto &[key, value] : md.constexprs)
      os << " " << key << "=" << value;
    os << ".";
  } else {
    os << ").";
  }
  // The specialization's promises, which its launcher does not check.
  bool first = true;
  for (auto [param, cName] : llvm::zip(md.params, params.names))
    if (param.divisibility > 1) {
      os << (first ? "\n   Assumes " : ", ") << cName
         << (param.isPointer() ? " is " : " is a multiple of ")
         << param.divisibility << (param.isPointer() ? "-byte aligned" : "");
      first = false;
    }
  os << (first ? "" : ".");
  return os.str();
}

/// The code every launcher of a file shares: the driver's entry points,
/// resolved once, and the per-context loading of an image. `clusters`:
/// cuLaunchKernelEx is needed, or, with `clustersOptional` (only programs
/// that share copies use it), wanted where the driver has it.
void writeDriver(std::ostringstream &c, const std::string &name, bool maps,
                 bool scratch, bool zeroes, bool clusters,
                 bool clustersOptional, bool occupancy) {
  // A stream-K or persistent kernel's launcher also gets the CTAs its
  // device holds.
  const char *resident = occupancy ? ",\n    unsigned long long *resident" : "";
  c << "static struct {\n"
       "  CUresult status;\n"
       "  CUresult (*getCurrent)(CUcontext *);\n"
       "  CUresult (*setCurrent)(CUcontext);\n"
       "  CUresult (*getId)(CUcontext, unsigned long long *);\n"
       "  CUresult (*deviceGet)(CUdevice *, int);\n"
       "  CUresult (*retain)(CUcontext *, CUdevice);\n"
       "  CUresult (*loadData)(CUmodule *, const void *);\n"
       "  CUresult (*getFunction)(CUfunction *, CUmodule, const char *);\n"
       "  CUresult (*setAttribute)(CUfunction, CUfunction_attribute, int);\n"
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
  if (zeroes)
    c << "  CUresult (*memset)(CUdeviceptr, unsigned char, size_t, CUstream);\n";
  if (clusters)
    c << "  CUresult (*launchEx)(const CUlaunchConfig *, CUfunction, void **, "
         "void **);\n";
  if (occupancy)
    c << "  CUresult (*occupancy)(int *, CUfunction, int, size_t);\n";
  c << "  CUresult (*ctxDevice)(CUdevice *);\n"
       "  CUresult (*deviceAttribute)(int *, CUdevice_attribute, CUdevice);\n"
       "  CUresult (*errorName)(CUresult, const char **);\n"
    << "} " << name << "_driver;\n"
    << "static pthread_once_t " << name
    << "_driver_once = PTHREAD_ONCE_INIT;\n\n";

  c << "#define TILEC_SYM(lib, var, symbol)                                  \\\n"
       "  do {                                                             \\\n"
       "    *(void **)(&(var)) = dlsym((lib), (symbol));                   \\\n"
       "    if (!(var))                                                    \\\n"
       "      return CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND;            \\\n"
       "  } while (0)\n\n"
    << "static CUresult " << name << "_driver_init(void) {\n"
    << "  void *lib = dlopen(\"libcuda.so.1\", RTLD_NOW | RTLD_LOCAL);\n"
       "  if (!lib)\n    return CUDA_ERROR_SHARED_OBJECT_INIT_FAILED;\n"
       "  CUresult (*init)(unsigned);\n"
       "  TILEC_SYM(lib, init, \"cuInit\");\n";
  const std::pair<const char *, const char *> entryPoints[] = {
      {"getCurrent", "cuCtxGetCurrent"},
      {"setCurrent", "cuCtxSetCurrent"},
      {"getId", "cuCtxGetId"},
      {"deviceGet", "cuDeviceGet"},
      {"retain", "cuDevicePrimaryCtxRetain"},
      {"loadData", "cuModuleLoadData"},
      {"getFunction", "cuModuleGetFunction"},
      {"setAttribute", "cuFuncSetAttribute"},
      {"launch", "cuLaunchKernel"}};
  for (auto [field, symbol] : entryPoints)
    c << "  TILEC_SYM(lib, " << name << "_driver." << field << ", \"" << symbol
      << "\");\n";
  if (maps)
    c << "  TILEC_SYM(lib, " << name
      << "_driver.encode, \"cuTensorMapEncodeTiled\");\n";
  if (scratch)
    c << "  TILEC_SYM(lib, " << name << "_driver.alloc, \"cuMemAllocAsync\");\n"
      << "  TILEC_SYM(lib, " << name << "_driver.free, \"cuMemFreeAsync\");\n";
  if (zeroes)
    c << "  TILEC_SYM(lib, " << name
      << "_driver.memset, \"cuMemsetD8Async\");\n";
  if (clusters && clustersOptional)
    c << "  /* Optional: without it, programs that would share copies copy "
         "alone. */\n"
      << "  *(void **)(&(" << name
      << "_driver.launchEx)) = dlsym(lib, \"cuLaunchKernelEx\");\n";
  else if (clusters)
    c << "  TILEC_SYM(lib, " << name
      << "_driver.launchEx, \"cuLaunchKernelEx\");\n";
  if (occupancy)
    c << "  TILEC_SYM(lib, " << name
      << "_driver.occupancy, "
         "\"cuOccupancyMaxActiveBlocksPerMultiprocessor\");\n";
  c << "  TILEC_SYM(lib, " << name
    << "_driver.ctxDevice, \"cuCtxGetDevice\");\n"
    << "  TILEC_SYM(lib, " << name
    << "_driver.deviceAttribute, \"cuDeviceGetAttribute\");\n"
    << "  *(void **)(&(" << name
    << "_driver.errorName)) = dlsym(lib, \"cuGetErrorName\");\n";
  c << "  return init(0);\n}\n\n#undef TILEC_SYM\n\n"
    << "static void " << name << "_driver_once_init(void) {\n  " << name
    << "_driver.status = " << name << "_driver_init();\n}\n\n";

  // What went wrong, for NAME_last_error(): per thread, written only on
  // a failure, so that a launch that succeeds costs nothing more.
  c << "static __thread char " << name << "_error[512];\n\n"
    << "static CUresult " << name
    << "_fail(CUresult r, const char *format, ...) {\n"
    << "  va_list args;\n"
    << "  va_start(args, format);\n"
    << "  vsnprintf(" << name << "_error, sizeof " << name
    << "_error, format, args);\n"
    << "  va_end(args);\n"
    << "  return r;\n}\n\n"
    << "/* A driver call's failure: the call, the error's name, the kernel. "
       "*/\n"
    << "static CUresult " << name
    << "_driver_fail(CUresult r, const char *call) {\n"
    << "  const char *text = NULL;\n"
    << "  if (" << name << "_driver.errorName)\n"
    << "    " << name << "_driver.errorName(r, &text);\n"
    << "  return " << name << "_fail(r, \"kernel %s: %s failed: %s (%d)\", \""
    << name << "\", call,\n"
    << "      text ? text : \"unknown error\", (int)r);\n}\n\n"
    << "const char *" << name << "_last_error(void) { return " << name
    << "_error; }\n\n";

  // Modules are per context: an image is loaded into each context it is
  // launched in, once, and found again by the context's ID (unique for the
  // process's life, unlike its handle).
  c << "/* The contexts an image is loaded in; readers take `count` with\n"
       "   acquire and need no lock. */\n"
    << "#define " << name << "_MAX_CONTEXTS 64\n"
    << "struct " << name
    << "_image {\n"
       "  pthread_mutex_t lock;\n"
       "  int count;\n"
       "  struct {\n"
       "    unsigned long long id;\n"
       "    CUfunction function;\n"
    << (occupancy ? "    /* A stream-K or persistent kernel's CTAs the device "
                    "holds at once. */\n"
                    "    unsigned long long resident;\n"
                  : "")
    << "  } loaded[" << name
    << "_MAX_CONTEXTS];\n"
       "  const unsigned char *cubin, *ptx;\n"
       "  const char *entry;\n"
    << (occupancy ? "  int sharedBytes, threads, occupancy;\n"
                  : "  int sharedBytes;\n")
    << "};\n\n"
    << "static int " << name << "_find(const struct " << name
    << "_image *m, unsigned long long id,\n"
    << "    int n, CUfunction *function" << resident << ") {\n"
    << "  for (int i = 0; i < n; ++i)\n"
    << "    if (m->loaded[i].id == id) {\n"
    << "      *function = m->loaded[i].function;\n"
    << (occupancy ? "      *resident = m->loaded[i].resident;\n" : "")
    << "      return 1;\n"
    << "    }\n"
    << "  return 0;\n}\n\n"
    << "static CUresult " << name << "_function(struct " << name
    << "_image *m, CUfunction *function" << resident << ") {\n"
    << "  pthread_once(&" << name << "_driver_once, " << name
    << "_driver_once_init);\n"
    << "  CUresult r = " << name << "_driver.status;\n"
    << "  if (r == CUDA_ERROR_SHARED_OBJECT_INIT_FAILED ||\n"
    << "      r == CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND)\n"
    << "    return " << name
    << "_fail(r, \"kernel %s: no CUDA driver: "
       "libcuda.so.1 %s\", \""
    << name << "\",\n"
    << "        r == CUDA_ERROR_SHARED_OBJECT_INIT_FAILED ? \"is not found\"\n"
    << "            : \"lacks an entry point this launcher needs\");\n"
    << "  if (r != CUDA_SUCCESS)\n"
    << "    return " << name << "_driver_fail(r, \"cuInit\");\n"
    << "  /* The calling thread's context, else device 0's primary one. */\n"
    << "  CUcontext context = NULL;\n"
    << "  if ((r = " << name
    << "_driver.getCurrent(&context)) != CUDA_SUCCESS)\n"
    << "    return " << name << "_driver_fail(r, \"cuCtxGetCurrent\");\n"
    << "  if (!context) {\n"
    << "    CUdevice device;\n"
    << "    if ((r = " << name
    << "_driver.deviceGet(&device, 0)) != CUDA_SUCCESS)\n"
    << "      return " << name << "_driver_fail(r, \"cuDeviceGet\");\n"
    << "    if ((r = " << name
    << "_driver.retain(&context, device)) != CUDA_SUCCESS)\n"
    << "      return " << name
    << "_driver_fail(r, \"cuDevicePrimaryCtxRetain\");\n"
    << "    if ((r = " << name
    << "_driver.setCurrent(context)) != CUDA_SUCCESS)\n"
    << "      return " << name << "_driver_fail(r, \"cuCtxSetCurrent\");\n"
    << "  }\n"
    << "  unsigned long long id;\n"
    << "  if ((r = " << name
    << "_driver.getId(context, &id)) != CUDA_SUCCESS)\n"
    << "    return " << name << "_driver_fail(r, \"cuCtxGetId\");\n"
    << "  if (" << name
    << "_find(m, id, __atomic_load_n(&m->count, "
       "__ATOMIC_ACQUIRE), function"
    << (occupancy ? ",\n      resident" : "") << "))\n"
    << "    return CUDA_SUCCESS;\n"
    << "  pthread_mutex_lock(&m->lock);\n"
    << "  int n = m->count;\n"
    << "  if (" << name << "_find(m, id, n, function"
    << (occupancy ? ", resident" : "") << ")) {\n"
    << "    pthread_mutex_unlock(&m->lock);\n"
    << "    return CUDA_SUCCESS;\n"
    << "  }\n"
    << "  CUmodule module;\n"
    << "  if (n >= " << name << "_MAX_CONTEXTS) {\n"
    << "    pthread_mutex_unlock(&m->lock);\n"
    << "    return " << name
    << "_fail(CUDA_ERROR_OUT_OF_MEMORY, \"kernel %s: "
       "loaded in %d contexts, the most this launcher holds\", m->entry, n);\n"
    << "  }\n"
    << "  /* The cubin where it fits the device, else the PTX. */\n"
    << "  r = m->cubin ? " << name << "_driver.loadData(&module, m->cubin)\n"
    << "               : CUDA_ERROR_NO_BINARY_FOR_GPU;\n"
    << "  if (r != CUDA_SUCCESS)\n"
    << "    r = " << name << "_driver.loadData(&module, m->ptx);\n"
    << "  if (r != CUDA_SUCCESS)\n"
    << "    r = " << name << "_driver_fail(r, \"cuModuleLoadData\");\n"
    << "  else if ((r = " << name
    << "_driver.getFunction(function, module, m->entry)) != CUDA_SUCCESS)\n"
    << "    r = " << name << "_driver_fail(r, \"cuModuleGetFunction\");\n"
    << "  if (r == CUDA_SUCCESS && m->sharedBytes > 48 * 1024) {\n"
    << "    /* Beyond the device's opt-in limit the driver would only say\n"
       "       CUDA_ERROR_INVALID_VALUE. */\n"
    << "    CUdevice device;\n"
    << "    int limit = 0;\n"
    << "    if ((r = " << name
    << "_driver.ctxDevice(&device)) != CUDA_SUCCESS ||\n"
    << "        (r = " << name << "_driver.deviceAttribute(&limit,\n"
    << "             CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "
       "device)) !=\n"
    << "            CUDA_SUCCESS)\n"
    << "      r = " << name << "_driver_fail(r, \"cuDeviceGetAttribute\");\n"
    << "    else if (m->sharedBytes > limit)\n"
    << "      r = " << name << "_fail(CUDA_ERROR_INVALID_VALUE,\n"
    << "          \"kernel %s: %d bytes of shared memory per block, more than "
       "the \"\n"
    << "          \"device's limit of %d \"\n"
    << "          \"(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN): "
       "\"\n"
    << "          \"compile it with smaller blocks or fewer stages\",\n"
    << "          m->entry, m->sharedBytes, limit);\n"
    << "    else if ((r = " << name << "_driver.setAttribute(\n"
    << "                  *function, "
       "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,\n"
    << "                  m->sharedBytes)) != CUDA_SUCCESS)\n"
    << "      r = " << name << "_driver_fail(r, \"cuFuncSetAttribute\");\n"
    << "  }\n";
  if (occupancy)
    c << "  *resident = 0;\n"
      << "  if (r == CUDA_SUCCESS && m->occupancy) {\n"
      << "    /* tile::chooseStreamK's and tile::persistentCtas' CTAs at once:\n"
         "       SMs times those an SM holds; where the driver cannot say, 0\n"
         "       (a CTA a program). */\n"
      << "    CUdevice device;\n"
      << "    int perSM = 0, sms = 0;\n"
      << "    if (" << name << "_driver.occupancy(&perSM, *function, m->threads,\n"
      << "            (size_t)m->sharedBytes) == CUDA_SUCCESS &&\n"
      << "        " << name << "_driver.ctxDevice(&device) == CUDA_SUCCESS &&\n"
      << "        " << name << "_driver.deviceAttribute(\n"
      << "            &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device) ==\n"
      << "            CUDA_SUCCESS)\n"
      << "      *resident = (unsigned long long)perSM * (unsigned long long)sms;\n"
      << "  }\n";
  c << "  if (r == CUDA_SUCCESS) {\n"
    << "    m->loaded[n].id = id;\n"
    << "    m->loaded[n].function = *function;\n"
    << (occupancy ? "    m->loaded[n].resident = *resident;\n" : "")
    << "    __atomic_store_n(&m->count, n + 1, __ATOMIC_RELEASE);\n"
    << "  }\n"
    << "  pthread_mutex_unlock(&m->lock);\n"
    << "  return r;\n}\n\n";
}

/// NAME_stream_k: tile::chooseStreamK (abi/lib/Grid.cpp), the same steps
/// in C, for the launchers of stream-K kernels (CLauncherTest checks the
/// two agree).
void writeStreamKPlan(std::ostringstream &c, const std::string &name) {
  c << "/* tile::chooseStreamK: the CTAs a stream-K kernel runs `programs`\n"
       "   programs as on a device that holds `resident` of its CTAs at once,\n"
       "   the programs of the last wave it splits (where it leaves as many\n"
       "   slots idle), and the parts their K loops are cut into and the\n"
       "   heads' parts: the cut whose head or busiest piece CTA ends first, a\n"
       "   partial costing 1/32 of a K loop, where it saves a tenth of the\n"
       "   grid's time; else a CTA a program. */\n"
    << "static void " << name << "_stream_k(uint64_t programs, uint64_t resident,\n"
    << "    uint64_t *ctas, uint64_t *split, unsigned *parts, unsigned *head) {\n"
    << "  *ctas = programs;\n"
    << "  *split = 0;\n"
    << "  *parts = 0;\n"
    << "  *head = 0;\n"
    << "  if (!programs || !resident)\n    return;\n"
    << "  uint64_t waves = (programs + resident - 1) / resident;\n"
    << "  uint64_t last = programs - (waves - 1) * resident;\n"
    << "  uint64_t idle = resident - last;\n"
    << "  if (last > idle)\n    return;\n"
    << "  uint64_t best_time = 1, best_scale = 1, best_ctas = 0;\n"
    << "  unsigned best_parts = 0, best_head = 0;\n"
    << "  for (unsigned p = 2; p <= " << tile::kMaxStreamKParts << "; ++p)\n"
    << "    for (unsigned h = p > " << tile::kMaxStreamKPieces << " ? p - "
    << tile::kMaxStreamKPieces << " : 1; h < p; ++h) {\n"
    << "      uint64_t pieces = last * (p - h);\n"
    << "      uint64_t n = idle < pieces ? idle : pieces;\n"
    << "      if (!n)\n        continue;\n"
    << "      uint64_t busiest = (pieces + n - 1) / n * (32 + p);\n"
    << "      uint64_t head_time = 32 * (uint64_t)h + (uint64_t)(p - h) * p;\n"
    << "      uint64_t time = head_time > busiest ? head_time : busiest;\n"
    << "      if (time * best_scale < best_time * (32 * (uint64_t)p)) {\n"
    << "        best_time = time;\n"
    << "        best_scale = 32 * (uint64_t)p;\n"
    << "        best_ctas = programs + n;\n"
    << "        best_parts = p;\n"
    << "        best_head = h;\n"
    << "      }\n"
    << "    }\n"
    << "  if (10 * (best_scale - best_time) < waves * best_scale)\n    return;\n"
    << "  *ctas = best_ctas;\n"
    << "  *split = last;\n"
    << "  *parts = best_parts;\n"
    << "  *head = best_head;\n}\n\n";
}

/// The checks a launch makes before it loads or enqueues anything, as the
/// JIT's (tile::Kernel::check): the grid within CUDA's limits (in CTAs
/// where each program is a cluster), each argument against what the
/// specialization assumes (alignments, divisibilities), and no null
/// pointer that an access of the kernel touches at this launch (the
/// metadata's accesses, AccessInfo::reachesAny). Each failure returns
/// CUDA_ERROR_INVALID_VALUE with the JIT's message. They cost a few
/// compares; a null pointer's test evaluates the accesses only then.
void writeLaunchChecks(std::ostringstream &c, const std::string &name,
                       const tile::KernelMetadata &md, const CParams &params) {
  const std::string fail =
      "    return " + name + "_fail(CUDA_ERROR_INVALID_VALUE, ";
  const std::string kernel = "\"" + md.kernel + "\"";
  c << "  if (!grid_x || !grid_y || !grid_z)\n"
    << fail << "\"kernel %s: grid (%u, %u, %u) has a zero dimension\",\n"
    << "        " << kernel << ", grid_x, grid_y, grid_z);\n";
  const unsigned limits[] = {tile::kMaxGrid.x, tile::kMaxGrid.y,
                             tile::kMaxGrid.z};
  const std::array<unsigned, 3> &cluster = md.clusterDims;
  bool clustered = md.ctasPerCluster() > 1;
  for (unsigned d = 0; d < 3; ++d) {
    char axis = "xyz"[d];
    if (!clustered) {
      c << "  if (grid_" << axis << " > " << limits[d] << "u)\n"
        << fail << "\"kernel %s: grid (%u, %u, %u) has %u programs along "
        << axis << ", more than the limit of " << limits[d] << "\",\n"
        << "        " << kernel << ", grid_x, grid_y, grid_z, grid_" << axis
        << ");\n";
      continue;
    }
    c << "  if ((uint64_t)grid_" << axis << " * " << cluster[d] << " > "
      << limits[d] << "u)\n"
      << fail << "\"kernel %s: grid (%u, %u, %u) in clusters of (" << cluster[0]
      << ", " << cluster[1] << ", " << cluster[2]
      << ") CTAs starts %llu CTAs along " << axis << ", more than the limit of "
      << limits[d] << "\",\n"
      << "        " << kernel << ", grid_x, grid_y, grid_z, "
      << "(unsigned long long)grid_" << axis << " * " << cluster[d] << ");\n";
  }
  const char *assumption = ", as this kernel was compiled to assume";
  for (auto [i, param] : llvm::enumerate(md.params)) {
    const std::string &cName = params.names[i];
    std::string which =
        "\"kernel %s: argument " + std::to_string(i) + " (" + param.name + ")";
    unsigned div = param.divisibility;
    if (param.isPointer() && div > 1)
      c << "  if (" << cName << " % " << div << "u)\n"
        << fail << which << " = 0x%llx is not " << div << "-byte aligned"
        << assumption << "\",\n        " << kernel << ", (unsigned long long)"
        << cName << ");\n";
    else if (!param.isPointer() && div > 1)
      c << "  if (" << cName << " % " << div << " != 0)\n"
        << fail << which << " = "
        << (tile::isUnsigned(param.type.dtype) ? "%llu" : "%lld")
        << " is not divisible by " << div << assumption << "\",\n        "
        << kernel << ", ("
        << (tile::isUnsigned(param.type.dtype) ? "unsigned long long"
                                               : "long long")
        << ")" << cName << ");\n";
    if (!param.isPointer())
      continue;
    // Touched at this launch: an access each of whose terms takes a value.
    std::vector<std::string> reaches;
    for (const tile::AccessInfo &access : md.accesses) {
      if (access.param != i)
        continue;
      std::string all;
      for (const tile::AccessInfo::Term &term : access.terms) {
        all += (all.empty() ? "" : " && ") + cExpr(term.count) + " > 0";
        if (term.bounded)
          all += " && " + cExpr(term.bound) + " > 0";
      }
      reaches.push_back(all.empty() ? "1" : "(" + all + ")");
    }
    if (reaches.empty())
      continue;
    c << "  if (!" << cName << ") {\n"
      << "    const int64_t tl_args[] = {";
    for (auto [k, other] : llvm::enumerate(params.names))
      c << (k ? ", " : "") << "(int64_t)" << other;
    c << "};\n"
      << "    const int64_t tl_grid[3] = {grid_x, grid_y, grid_z};\n"
      << "    (void)tl_args;\n    (void)tl_grid;\n"
      << "    if (";
    for (auto [k, condition] : llvm::enumerate(reaches))
      c << (k ? " ||\n        " : "") << condition;
    c << ")\n  " << fail << which
      << " is null, and the kernel accesses it at this launch\",\n"
      << "          " << kernel << ");\n  }\n";
  }
}

/// One specialization's images, module table and launcher `function`.
void writeLauncher(std::ostringstream &c, const std::string &name,
                   const std::string &function, const CSpecialization &spec,
                   const CParams &params, bool anyOccupancy) {
  const tile::KernelMetadata &md = spec.metadata;
  if (!spec.cubin.empty()) {
    c << "static const unsigned char " << function << "_cubin[] = {\n";
    writeBytes(c, spec.cubin.data(), spec.cubin.size());
    c << "};\n\n";
  }
  // NUL-terminated: cuModuleLoadData reads PTX as a C string.
  c << "static const unsigned char " << function << "_ptx[] = {\n";
  std::string text = spec.ptx + '\0';
  writeBytes(c, text.data(), text.size());
  c << "};\n\n";
  c << "static struct " << name << "_image " << function << "_image = {\n"
    << "    PTHREAD_MUTEX_INITIALIZER, 0, {{0, NULL"
    << (anyOccupancy ? ", 0" : "") << "}},\n    "
    << (spec.cubin.empty() ? "NULL" : function + "_cubin") << ", " << function
    << "_ptx, \"" << md.kernel << "\", " << md.sharedBytes;
  if (anyOccupancy)
    c << ", " << md.threadsPerBlock << ", "
      << (md.streamKPartialBytes || md.persistent ? 1 : 0);
  c << "};\n\n";

  bool scratch = md.globalScratchBytes != 0, turnstiles = md.turnstiles;
  bool streamK = md.streamKPartialBytes != 0;
  std::array<unsigned, 3> cluster = md.clusterDims;
  bool clustered = md.ctasPerCluster() > 1;
  c << getSignature(function, params) << " {\n";
  writeLaunchChecks(c, name, md, params);
  c << "  CUfunction tl_function;\n";
  if (anyOccupancy)
    c << "  unsigned long long tl_resident;\n";
  c << "  CUresult tl_r = " << name << "_function(&" << function
    << "_image, &tl_function" << (anyOccupancy ? ", &tl_resident" : "")
    << ");\n"
    << "  if (tl_r != CUDA_SUCCESS)\n    return tl_r;\n"
    << "  /* The driver call a failure below names. */\n"
    << "  const char *tl_call = \"cuLaunchKernel\";\n";
  if (streamK)
    c << "  /* Stream-K: the programs of a partial last wave shared out among\n"
         "     CTAs ("
      << name << "_stream_k), within CUDA's limit along x. */\n"
      << "  uint64_t tl_grid_programs = (uint64_t)grid_x * grid_y * grid_z, "
         "tl_ctas, "
         "tl_split;\n"
      << "  unsigned tl_parts, tl_head;\n"
      << "  " << name
      << "_stream_k(tl_grid_programs, tl_resident, &tl_ctas, &tl_split,\n"
      << "      &tl_parts, &tl_head);\n"
      << "  if (tl_ctas > " << tile::kMaxGrid.x << "u)\n"
      << "    return " << name
      << "_fail(CUDA_ERROR_INVALID_VALUE, \"kernel %s: "
         "grid (%u, %u, %u) runs stream-K as %llu CTAs along x, more than "
         "the limit of %u\",\n"
      << "        \"" << md.kernel
      << "\", grid_x, grid_y, grid_z, "
         "(unsigned long long)tl_ctas, "
      << tile::kMaxGrid.x << "u);\n";
  else if (md.persistent)
    c << "  /* Persistent: the CTAs the device holds at once (a CTA a program\n"
         "     where it cannot say), each running the programs its number\n"
         "     apart, passed the grid. */\n"
      << "  uint64_t tl_grid_programs = (uint64_t)grid_x * grid_y * grid_z;\n"
      << "  if (tl_grid_programs > " << tile::kMaxPersistentPrograms << "u)\n"
      << "    return " << name
      << "_fail(CUDA_ERROR_INVALID_VALUE, \"kernel %s: "
         "grid (%u, %u, %u) has more programs than a persistent kernel's "
         "limit of %llu\",\n"
      << "        \"" << md.kernel
      << "\", grid_x, grid_y, grid_z, "
         "(unsigned long long)"
      << tile::kMaxPersistentPrograms << "u);\n"
      << "  uint64_t tl_ctas = tl_resident && tl_resident < tl_grid_programs\n"
      << "                         ? tl_resident : tl_grid_programs;\n"
      << "  unsigned tl_grid_xyz[3] = {grid_x, grid_y, grid_z};\n";
  else if (anyOccupancy)
    c << "  (void)tl_resident;\n";
  size_t slots = md.params.size() + md.tensorMaps.size() + (scratch ? 1 : 0) +
                 (turnstiles ? 1 : 0) + (streamK ? 7 : 0) +
                 (md.persistent ? 3 : 0);
  c << "  void *tl_params[" << std::max<size_t>(slots, 1) << "] = {";
  for (size_t i = 0; i < md.params.size(); ++i)
    c << (i ? ", " : "") << "&" << params.names[i];
  c << "};\n";
  if (!md.tensorMaps.empty()) {
    size_t count = md.tensorMaps.size();
    c << "  const int64_t tl_args[] = {";
    for (size_t i = 0; i < md.params.size(); ++i)
      c << (i ? ", " : "") << "(int64_t)" << params.names[i];
    c << "};\n"
      << "  const int64_t tl_grid[3] = {grid_x, grid_y, grid_z};\n"
      << "  (void)tl_args;\n  (void)tl_grid;\n"
      << "  /* The encoder wants maps 128-byte aligned, which C99 cannot\n"
         "     declare. */\n"
      << "  unsigned char tl_map_bytes[" << count
      << " * sizeof(CUtensorMap) + 128];\n"
      << "  CUtensorMap *tl_maps = (CUtensorMap *)(void *)(tl_map_bytes +\n"
      << "      (128 - (uintptr_t)tl_map_bytes % 128) % 128);\n";
    for (size_t m = 0; m < count; ++m) {
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
        << "    if (!empty && (tl_r = " << name << "_driver.encode(&tl_maps["
        << m << "], (CUtensorMapDataType)"
        << tile::getTensorMapDataType(info.elementBytes) << ", " << rank
        << ",\n"
        << "            (void *)(uintptr_t)" << cExpr(info.base)
        << ", dims, strides, box, unit,\n"
        << "            CU_TENSOR_MAP_INTERLEAVE_NONE, (CUtensorMapSwizzle)"
        << tile::getTensorMapSwizzle(info.swizzle) << ",\n"
        << "            CU_TENSOR_MAP_L2_PROMOTION_NONE, "
           "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)) != CUDA_SUCCESS)\n"
        << "      return " << name
        << "_driver_fail(tl_r, \"cuTensorMapEncodeTiled\");\n"
        << "    tl_params[" << md.params.size() + m << "] = &tl_maps[" << m
        << "];\n"
        << "  }\n";
    }
  }
  // Neighbouring programs as clusters that share copies, where grid_x
  // divides into them (any other launch is correct too).
  bool paired =
      !clustered && !streamK && !md.persistent && md.clusterPrograms > 1;
  if (paired)
    cluster = {md.clusterPrograms, 1, 1};
  if (clustered || paired) {
    c << (paired ? "  /* cuLaunchKernelEx where grid_x divides by "
                 : "  /* cuLaunchKernelEx: the grid's CTAs, in clusters of the "
                   "program's. */\n")
      << (paired ? std::to_string(md.clusterPrograms) +
                       ": neighbouring programs as\n     clusters of as many "
                       "CTAs, copying the tiles they share once. */\n"
                 : std::string())
      << "  CUlaunchAttribute tl_cluster;\n"
      << "  CUlaunchConfig tl_config;\n"
      << "  memset(&tl_cluster, 0, sizeof(tl_cluster));\n"
      << "  memset(&tl_config, 0, sizeof(tl_config));\n"
      << "  tl_cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;\n";
    for (unsigned d = 0; d < 3; ++d)
      c << "  tl_cluster.value.clusterDim." << "xyz"[d] << " = " << cluster[d]
        << ";\n";
    for (unsigned d = 0; d < 3; ++d) {
      c << "  tl_config.gridDim" << "XYZ"[d] << " = grid_" << "xyz"[d];
      if (clustered && cluster[d] != 1)
        c << " * " << cluster[d];
      c << ";\n";
    }
    c << "  tl_config.blockDimX = " << md.threadsPerBlock << ";\n"
      << "  tl_config.blockDimY = 1;\n"
      << "  tl_config.blockDimZ = 1;\n"
      << "  tl_config.sharedMemBytes = " << md.sharedBytes << ";\n"
      << "  tl_config.hStream = stream;\n"
      << "  tl_config.attrs = &tl_cluster;\n"
      << "  tl_config.numAttrs = 1;\n";
  }
  if (scratch || turnstiles) {
    if (streamK)
      c << "  /* Per CTA: a stream-K kernel's CTAs, not its programs. */\n"
        << "  size_t tl_programs = (size_t)tl_ctas;\n";
    else
      c << "  /* Per program: a cluster's CTAs share their program's. */\n"
        << "  size_t tl_programs = (size_t)grid_x * grid_y * grid_z;\n";
    c << "  CUdeviceptr tl_scratch = 0, tl_turnstiles = 0;\n";
  }
  size_t extra = md.params.size() + md.tensorMaps.size();
  if (scratch) {
    c << "  /* The programs' global scratch (tensor maps they build), in "
         "stream order. */\n"
      << "  if ((tl_r = " << name << "_driver.alloc(&tl_scratch, tl_programs * "
      << md.globalScratchBytes << ", stream)) != CUDA_SUCCESS)\n"
      << "    return " << name << "_driver_fail(tl_r, \"cuMemAllocAsync\");\n"
      << "  tl_params[" << extra++ << "] = &tl_scratch;\n";
  }
  if (turnstiles) {
    // On failure the scratch, if any, is freed on the way out.
    c << "  /* The turnstiles of deterministic atomics: 4 zeroed bytes per "
         "program. */\n"
      << "  tl_r = (tl_call = \"cuMemAllocAsync\", " << name
      << "_driver.alloc(&tl_turnstiles, tl_programs * 4, stream));\n"
      << "  if (tl_r == CUDA_SUCCESS)\n"
      << "    tl_r = (tl_call = \"cuMemsetD8Async\", " << name
      << "_driver.memset(tl_turnstiles, 0, tl_programs * 4, stream));\n"
      << "  tl_params[" << extra++ << "] = &tl_turnstiles;\n"
      << "  if (tl_r == CUDA_SUCCESS)\n  ";
  }
  if (streamK) {
    // After the scratch, if any (on failure freed on the way out).
    c << "  /* The grid asked for, the programs split, the parts and the "
         "heads'\n"
         "     parts, and the workspace: a zeroed flag a piece, padded to 128\n"
         "     bytes, then a partial accumulator of "
      << md.streamKPartialBytes << " bytes a piece. */\n"
      << "  unsigned tl_stream_k[6] = {grid_x, grid_y, grid_z, "
         "(unsigned)tl_split,\n"
      << "                             tl_parts, tl_head};\n"
      << "  uint64_t tl_pieces = tl_split * (tl_parts - tl_head);\n"
      << "  CUdeviceptr tl_workspace = 0;\n"
      << "  if (tl_r == CUDA_SUCCESS && tl_pieces) {\n"
      << "    tl_r = (tl_call = \"cuMemAllocAsync\", " << name
      << "_driver.alloc(&tl_workspace,\n"
      << "        (4 * tl_pieces + 127) / 128 * 128 + tl_pieces * "
      << md.streamKPartialBytes << "u, stream));\n"
      << "    if (tl_r == CUDA_SUCCESS)\n"
      << "      tl_r = (tl_call = \"cuMemsetD8Async\", " << name
      << "_driver.memset(tl_workspace, 0, 4 * tl_pieces, stream));\n"
      << "  }\n";
    for (unsigned i = 0; i < 6; ++i)
      c << "  tl_params[" << extra++ << "] = &tl_stream_k[" << i << "];\n";
    c << "  tl_params[" << extra++ << "] = &tl_workspace;\n"
      << "  if (tl_r == CUDA_SUCCESS)\n"
      << "    tl_r = (tl_call = \"cuLaunchKernel\", " << name
      << "_driver.launch(tl_function, (unsigned)tl_ctas, "
      << "1, 1, " << md.threadsPerBlock << ", 1, 1,\n        " << md.sharedBytes
      << ", stream, tl_params, NULL));\n";
  } else if (md.persistent) {
    for (unsigned i = 0; i < 3; ++i)
      c << "  tl_params[" << extra++ << "] = &tl_grid_xyz[" << i << "];\n";
    c << "  tl_r = (tl_call = \"cuLaunchKernel\", " << name
      << "_driver.launch(tl_function, (unsigned)tl_ctas, "
      << "1, 1, " << md.threadsPerBlock << ", 1, 1,\n    " << md.sharedBytes
      << ", stream, tl_params, NULL));\n";
  } else if (clustered) {
    c << "  tl_r = (tl_call = \"cuLaunchKernelEx\", " << name
      << "_driver.launchEx(&tl_config, tl_function, tl_params, NULL));\n";
  } else if (paired) {
    // Braced: a turnstiles' `if (tl_r == CUDA_SUCCESS)` may come before.
    c << "  {\n"
      << "    if (grid_x % " << md.clusterPrograms << "u == 0 && " << name
      << "_driver.launchEx)\n"
      << "      tl_r = (tl_call = \"cuLaunchKernelEx\", " << name
      << "_driver.launchEx(&tl_config, tl_function, tl_params, NULL));\n"
      << "    else\n"
      << "      tl_r = (tl_call = \"cuLaunchKernel\", " << name
      << "_driver.launch(tl_function, grid_x, grid_y, "
      << "grid_z, " << md.threadsPerBlock << ", 1, 1,\n          "
      << md.sharedBytes << ", stream, tl_params, NULL));\n"
      << "  }\n";
  } else {
    c << "  tl_r = (tl_call = \"cuLaunchKernel\", " << name
      << "_driver.launch(tl_function, grid_x, grid_y, "
      << "grid_z, " << md.threadsPerBlock << ", 1, 1,\n    " << md.sharedBytes
      << ", stream, tl_params, NULL));\n";
  }
  std::vector<const char *> buffers;
  if (scratch || turnstiles)
    buffers = {"tl_scratch", "tl_turnstiles"};
  if (streamK)
    buffers.push_back("tl_workspace");
  if (!buffers.empty()) {
    c << "  CUresult tl_freed = CUDA_SUCCESS;\n";
    for (const char *buffer : buffers)
      c << "  if (" << buffer << ") {\n"
        << "    CUresult tl_f = " << name << "_driver.free(" << buffer
        << ", stream);\n"
        << "    tl_freed = tl_freed != CUDA_SUCCESS ? tl_freed : tl_f;\n  }\n";
    c << "  if (tl_r == CUDA_SUCCESS && tl_freed != CUDA_SUCCESS)\n"
      << "    return " << name
      << "_driver_fail(tl_freed, \"cuMemFreeAsync\");\n";
  }
  c << "  return tl_r == CUDA_SUCCESS ? tl_r : " << name
    << "_driver_fail(tl_r, tl_call);\n";
  c << "}\n\n";
}

/// The test a dispatcher makes for `spec` over the dispatcher's parameters
/// `all`: every alignment, divisibility and value of one it was compiled
/// for. "1" where it assumes nothing.
std::string getCondition(const tile::KernelMetadata &spec,
                         const std::vector<tile::ParamInfo> &all,
                         const CParams &names) {
  std::vector<std::string> terms;
  for (auto [param, cName] : llvm::zip(all, names.names)) {
    const std::string &name = param.name;
    auto it = llvm::find_if(spec.params, [&](const tile::ParamInfo &p) {
      return p.name == name;
    });
    if (it == spec.params.end()) {
      terms.push_back(cName + " == 1");
      continue;
    }
    if (it->divisibility > 1)
      terms.push_back(std::string(param.isPointer() ? "" : "(uint64_t)") +
                      cName + " % " + std::to_string(it->divisibility) +
                      " == 0");
  }
  if (terms.empty())
    return "1";
  std::string text;
  for (const std::string &term : terms)
    text += (text.empty() ? "" : " && ") + term;
  return text;
}

/// How much a specialization assumes: log2 of each divisibility and
/// alignment, and more than any of them for an integer made the constant 1.
/// One whose assumptions imply another's scores higher.
unsigned getStrength(const tile::KernelMetadata &spec,
                     const std::vector<tile::ParamInfo> &all) {
  unsigned strength = 0;
  for (const tile::ParamInfo &param : all) {
    auto it = llvm::find_if(spec.params, [&](const tile::ParamInfo &p) {
      return p.name == param.name;
    });
    strength += it == spec.params.end() ? 8 : llvm::Log2_32(it->divisibility);
  }
  return strength;
}

/// The order a dispatcher tries the specializations in: the strongest
/// first, so that the arguments get the one that assumes the most they meet
/// (their real alignment, not the first listed); ties in the order given.
std::vector<size_t> getDispatchOrder(const std::vector<CSpecialization> &specs,
                                     const tile::KernelMetadata &dispatch) {
  std::vector<size_t> order(specs.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    unsigned x = getStrength(specs[a].metadata, dispatch.params);
    unsigned y = getStrength(specs[b].metadata, dispatch.params);
    return x != y ? x > y : a < b;
  });
  return order;
}

/// The dispatcher's parameters: those of the specialization with the most
/// (none of its integers specialized to 1); every other one's must be
/// among them, in order, with the same types, the missing ones integers
/// it has as the constant 1, and the same other constexprs.
const tile::KernelMetadata &
getDispatcherParams(const std::vector<CSpecialization> &specs) {
  const tile::KernelMetadata *widest = &specs.front().metadata;
  for (const CSpecialization &spec : specs)
    if (spec.metadata.params.size() > widest->params.size())
      widest = &spec.metadata;
  const std::string &kernel = widest->kernel;
  for (const CSpecialization &spec : specs) {
    const tile::KernelMetadata &md = spec.metadata;
    if (md.kernel != kernel)
      throw tile::Error("specializations of one launcher must share the "
                        "entry name: " + kernel + " and " + md.kernel);
    size_t next = 0;
    for (const tile::ParamInfo &param : widest->params) {
      if (next < md.params.size() && md.params[next].name == param.name) {
        if (md.params[next].type != param.type)
          throw tile::Error("kernel " + kernel + ": parameter " + param.name +
                            " is " + param.type.str() + " in one "
                            "specialization and " + md.params[next].type.str() +
                            " in another");
        ++next;
        continue;
      }
      auto one = llvm::find_if(md.constexprs, [&](const auto &entry) {
        return entry.first == param.name;
      });
      if (param.isPointer() || one == md.constexprs.end() || one->second != "1")
        throw tile::Error("kernel " + kernel + ": a specialization lacks "
                          "parameter " + param.name + " (only integers "
                          "specialized to 1 may be left out)");
    }
    if (next != md.params.size())
      throw tile::Error("kernel " + kernel + ": the specializations' "
                        "parameters differ beyond integers specialized to 1; "
                        "the one with the most must hold all the others'");
    for (const auto &binding : md.constexprs) {
      const std::string &key = binding.first, &value = binding.second;
      bool isParam = llvm::any_of(widest->params, [&](const auto &p) {
        return p.name == key;
      });
      auto other = llvm::find_if(widest->constexprs, [&](const auto &entry) {
        return entry.first == key;
      });
      if (!isParam && (other == widest->constexprs.end() || other->second != value))
        throw tile::Error("kernel " + kernel + ": the specializations differ "
                          "in constexpr " + key + " (a dispatcher picks by "
                          "the arguments alone; give each its own name)");
    }
  }
  return *widest;
}

} // namespace

CLauncher tilec::emitCLauncher(const std::vector<CSpecialization> &specs,
                               const std::string &headerName,
                               const std::string &origin) {
  if (specs.empty())
    throw tile::Error("no kernel to write a launcher for");
  const tile::KernelMetadata &dispatch = getDispatcherParams(specs);
  const std::string &name = dispatch.kernel;
  CParams dispatchParams = getCParams(dispatch);
  bool single = specs.size() == 1;
  std::string guard = "TILEC_KERNEL_" + name + "_H";
  for (char &c : guard)
    c = char(std::toupper(static_cast<unsigned char>(c)));

  std::ostringstream h;
  h << "/* " << name << ": generated by tilec from " << origin
    << ". Do not edit. */\n"
    << "#ifndef " << guard << "\n#define " << guard << "\n\n"
    << "#include <cuda.h>\n#include <stdint.h>\n\n"
    << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  std::vector<std::string> functions;
  std::vector<CParams> cParams;
  for (auto [i, spec] : llvm::enumerate(specs)) {
    functions.push_back(single ? name : name + "_spec" + std::to_string(i));
    cParams.push_back(getCParams(spec.metadata));
    h << "/* Kernel " << name << " (" << describe(spec.metadata, cParams.back())
      << "\n   Enqueues grid_x x grid_y x grid_z programs on `stream` (0: the "
         "default\n   stream) in the current context; returns the driver's "
         "error, if any,\n   or CUDA_ERROR_INVALID_VALUE for a grid or "
         "argument it refuses\n   (an empty or too large grid, a pointer "
         "less aligned than assumed,\n   a null one the kernel touches), "
         "with the reason in " +
             name + "_last_error()."
      << (spec.metadata.ctasPerCluster() > 1
              ? "\n   The programs' CTAs start through cuLaunchKernelEx "
                "(CUDA 12+ drivers);\n   CUDA_ERROR_INVALID_VALUE where "
                "they pass CUDA's grid limits."
              : "")
      << (spec.metadata.ctasPerCluster() == 1 &&
                  !spec.metadata.streamKPartialBytes &&
                  spec.metadata.clusterPrograms > 1
              ? "\n   Where grid_x divides by " +
                    std::to_string(spec.metadata.clusterPrograms) +
                    ", neighbouring programs start as clusters\n   of as "
                    "many CTAs through cuLaunchKernelEx (CUDA 12+ drivers), "
                    "sharing\n   the copies of tiles they both read."
              : "")
      << " */\n"
      << getSignature(functions.back(), cParams.back()) << ";\n\n";
  }
  if (!single)
    h << "/* Kernel " << name << " through the one of " << name << "_spec0 to "
      << name << "_spec" << specs.size() - 1
      << "\n   that assumes the most the arguments meet (alignments, "
         "divisors, ones);\n   CUDA_ERROR_INVALID_VALUE where none's "
         "assumptions hold. */\n"
      << getSignature(name, dispatchParams) << ";\n\n";
  h << "/* The calling thread's message of its last failed call of these\n"
       "   launchers (\"\" before any): the grid or the argument refused, the\n"
       "   shared memory the device lacks, or the driver call that failed\n"
       "   and its error, each naming the kernel. */\n"
    << "const char *" << name << "_last_error(void);\n\n";
  h << "/* Loads the kernel" << (single ? "" : "s")
    << " into the current context now rather than at the first\n   launch. */\n"
    << "CUresult " << name << "_load(void);\n\n"
    << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";

  bool maps = false, scratch = false, zeroes = false, clusters = false,
       clustersNeeded = false, streamK = false, occupancy = false,
       accesses = false;
  for (const CSpecialization &spec : specs) {
    bool sharing = spec.metadata.streamKPartialBytes != 0;
    maps |= !spec.metadata.tensorMaps.empty();
    accesses |= !spec.metadata.accesses.empty();
    clusters |=
        spec.metadata.ctasPerCluster() > 1 || spec.metadata.clusterPrograms > 1;
    clustersNeeded |= spec.metadata.ctasPerCluster() > 1;
    scratch |= spec.metadata.globalScratchBytes != 0 ||
               spec.metadata.turnstiles || sharing;
    zeroes |= spec.metadata.turnstiles || sharing;
    streamK |= sharing;
    occupancy |= sharing || spec.metadata.persistent;
  }
  std::ostringstream c;
  c << "/* " << name << ": generated by tilec from " << origin
    << ". Do not edit. */\n"
    << "#include \"" << headerName << "\"\n\n"
    << "#include <dlfcn.h>\n#include <pthread.h>\n#include <stdarg.h>\n"
       "#include <stddef.h>\n#include <stdio.h>\n"
    << (clusters ? "#include <string.h>\n" : "") << "\n";
  writeDriver(c, name, maps, scratch, zeroes, clusters, !clustersNeeded,
              occupancy);
  // The recipes' arithmetic: tensor maps', and the accesses' that a null
  // pointer's test evaluates.
  if (maps || accesses)
    c << kRecipeHelpers << "\n";
  if (streamK)
    writeStreamKPlan(c, name);
  for (auto [i, spec] : llvm::enumerate(specs))
    writeLauncher(c, name, functions[i], spec, cParams[i], occupancy);

  if (!single) {
    c << getSignature(name, dispatchParams) << " {\n";
    for (size_t i : getDispatchOrder(specs, dispatch)) {
      const CSpecialization &spec = specs[i];
      c << "  if (" << getCondition(spec.metadata, dispatch.params, dispatchParams)
        << ")\n    return " << functions[i] << "(stream, grid_x, grid_y, grid_z";
      for (const std::string &param : cParams[i].names)
        c << ", " << param;
      c << ");\n";
    }
    c << "  return " << name
      << "_fail(CUDA_ERROR_INVALID_VALUE, \"kernel %s: "
         "the arguments meet no specialization's assumptions (alignments, "
         "divisibilities, ones)\", \""
      << name << "\");\n}\n\n";
  }
  c << "CUresult " << name << "_load(void) {\n"
    << "  CUfunction function;\n"
    << (occupancy ? "  unsigned long long resident;\n" : "")
    << "  CUresult r = CUDA_SUCCESS;\n";
  for (const std::string &function : functions)
    c << "  if (r == CUDA_SUCCESS)\n    r = " << name << "_function(&"
      << function << "_image, &function"
      << (occupancy ? ",\n        &resident" : "") << ");\n";
  c << "  return r;\n}\n";
  return {h.str(), c.str()};
}
