# The CMake package that `cmake --install` writes under
# lib/cmake/Tilec: find_package(Tilec) in another project gives
# Tilec::runtime (the runtime alone, no LLVM/MLIR needed), and, where the
# compiler was built, Tilec::jit, the tools (Tilec::tilec for
# ahead-of-time compiles) and the COMPONENTS runtime and jit.
include(CMakePackageConfigHelpers)
set(TILEC_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Tilec)

install(EXPORT TilecRuntimeTargets NAMESPACE Tilec::
        DESTINATION ${TILEC_PACKAGE_DIR})
if(TARGET tile_jit)
  install(EXPORT TilecTargets NAMESPACE Tilec::
          DESTINATION ${TILEC_PACKAGE_DIR})
  install(FILES ${PROJECT_SOURCE_DIR}/cmake/TilecKernels.cmake
          DESTINATION ${TILEC_PACKAGE_DIR})
endif()

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/TilecConfig.cmake.in
  ${PROJECT_BINARY_DIR}/TilecConfig.cmake
  INSTALL_DESTINATION ${TILEC_PACKAGE_DIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/TilecConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/TilecConfig.cmake
              ${PROJECT_BINARY_DIR}/TilecConfigVersion.cmake
        DESTINATION ${TILEC_PACKAGE_DIR})
