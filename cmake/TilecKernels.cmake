# tilec_add_kernel(<target> FILE <kernel.tl> SIGNATURE "<types>" ["<types>"...]
#                  [KERNEL <function>] [NAME <launcher>] [NUM_WARPS <n>]
#                  [NUM_STAGES <n>] [ARCH <sm_XY>] [DEFINES <NAME=VALUE>...])
#
# Compiles a kernel ahead of time, at build time, with `tilec --emit=c`,
# and adds the C launcher to <target>: `#include "<launcher>.h"` and call
# `<launcher>(stream, grid_x, grid_y, grid_z, args...)`. NAME (default: the
# kernel's function name) names the launcher and its files; SIGNATURE is
# tilec's --signature (Triton's AOT syntax). Several signatures make one
# launcher that dispatches to the first specialization whose alignment,
# divisibility and ":1" assumptions the arguments meet. The launcher needs the CUDA
# headers to build and the CUDA driver (loaded at run time) to run.
include_guard(GLOBAL)
find_package(Threads REQUIRED)
# CUDA's headers, if any (the launchers' <cuda.h>); only tilec_add_kernel
# needs them.
find_package(CUDAToolkit QUIET)

function(tilec_add_kernel target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG ""
    "FILE;KERNEL;NAME;NUM_WARPS;NUM_STAGES;ARCH" "SIGNATURE;DEFINES")
  if(NOT ARG_FILE OR NOT DEFINED ARG_SIGNATURE)
    message(FATAL_ERROR "tilec_add_kernel(${target}): FILE and SIGNATURE are required")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tilec_add_kernel(${target}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(source "${ARG_FILE}" ABSOLUTE)
  set(name "${ARG_NAME}")
  if(NOT name)
    set(name "${ARG_KERNEL}")
  endif()
  if(NOT name)
    get_filename_component(name "${ARG_FILE}" NAME_WE)
  endif()
  set(options)
  foreach(signature IN LISTS ARG_SIGNATURE)
    list(APPEND options --signature "${signature}")
  endforeach()
  if(ARG_KERNEL)
    list(APPEND options --kernel ${ARG_KERNEL})
  endif()
  if(ARG_NAME)
    list(APPEND options --name ${ARG_NAME})
  endif()
  if(ARG_NUM_WARPS)
    list(APPEND options --num-warps ${ARG_NUM_WARPS})
  endif()
  if(ARG_NUM_STAGES)
    list(APPEND options --num-stages ${ARG_NUM_STAGES})
  endif()
  if(ARG_ARCH)
    list(APPEND options --arch ${ARG_ARCH})
  endif()
  foreach(define IN LISTS ARG_DEFINES)
    list(APPEND options -D ${define})
  endforeach()

  set(dir "${CMAKE_CURRENT_BINARY_DIR}/tilec_kernels")
  add_custom_command(
    OUTPUT "${dir}/${name}.c" "${dir}/${name}.h"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${dir}"
    COMMAND Tilec::tilec "${source}" --emit=c -o "${dir}/${name}" ${options}
    DEPENDS "${source}" Tilec::tilec
    COMMENT "tilec: ${name} from ${ARG_FILE}"
    VERBATIM)
  # The launcher is C that also compiles as C++.
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "C" IN_LIST languages)
    set_source_files_properties("${dir}/${name}.c" PROPERTIES LANGUAGE CXX)
  endif()
  target_sources(${target} PRIVATE "${dir}/${name}.c" "${dir}/${name}.h")
  target_include_directories(${target} PRIVATE "${dir}")

  if(NOT CUDAToolkit_INCLUDE_DIRS)
    message(FATAL_ERROR "tilec_add_kernel(${target}): the launcher includes "
            "<cuda.h>, but no CUDA toolkit was found (set CUDAToolkit_ROOT)")
  endif()
  target_include_directories(${target} PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
  target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)
endfunction()
