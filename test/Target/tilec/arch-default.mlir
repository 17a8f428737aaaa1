// tilec's --arch, when not given: TILEC_ARCH (the tests set sm_90), else the
// GPU present's (sm_90a on Hopper: gpuArchForDevice), else sm_90. --verbose
// says which and why; the metadata records it. With no GPU to be found
// (CUDA_VISIBLE_DEVICES empty), the default is sm_90 and native is a usage
// error that says why.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tilec %s --verbose -o %t/env.ptx 2>&1 | FileCheck %s --check-prefix=ENV
// RUN: FileCheck %s --check-prefix=JSON90 < %t/env.json
// RUN: tilec %s --verbose --arch sm_80 -o %t/given.ptx 2>&1 | FileCheck %s --check-prefix=GIVEN
// RUN: env -u TILEC_ARCH CUDA_VISIBLE_DEVICES= tilec %s --verbose -o %t/none.ptx 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: FileCheck %s --check-prefix=JSON90 < %t/none.json
// RUN: sh -c 'CUDA_VISIBLE_DEVICES= tilec %s --arch native -o %t/native.ptx; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NATIVE-NONE
// RUN: sh -c 'TILEC_ARCH=sm_70 tilec %s -o %t/bad.ptx; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=BAD
// On a GPU: the default and native are the device's.
// RUN: %if gpu %{ env -u TILEC_ARCH tilec %s --verbose -o %t/gpu.ptx 2>&1 | FileCheck %s --check-prefix=DEVICE %}
// RUN: %if gpu %{ tilec %s --arch native --verbose -o %t/native.ptx 2>&1 | FileCheck %s --check-prefix=DEVICE-NATIVE %}

// ENV: tilec: --arch sm_90 (TILEC_ARCH)
// GIVEN: tilec: --arch sm_80 (--arch)
// NONE: tilec: --arch sm_90 (the default: no GPU,
// JSON90: "arch":"sm_90"
// NATIVE-NONE: tilec: error: --arch native needs a GPU:
// NATIVE-NONE: exit=2
// BAD: tilec: error: TILEC_ARCH=sm_70: tilec compiles for sm_80, sm_90 or sm_90a, or native
// BAD: exit=2
// DEVICE: tilec: --arch sm_{{[0-9]+a?}} (the GPU present, {{.*}}, compute capability
// DEVICE-NATIVE: tilec: --arch sm_{{[0-9]+a?}} (--arch native: the GPU present,

func.func @noop() {
  return
}
