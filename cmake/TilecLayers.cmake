# The compiler's layers: one library per folder, each with its dependencies
# declared, and a check, run by every build, that no source includes a
# header of a library its own does not depend on (directly or through
# others). The layer map is what the libraries declare; docs/ARCHITECTURE.md
# draws it.
#
#   tilec_add_library(<name> <sources>... [DEPENDS <tilec libraries>...]
#                     [LINK_LIBS <other libraries>...] [TABLEGEN <targets>...])
#
# makes an object library of the current folder's sources; the folder's
# headers are compiler/include/tilec/<folder>/ and its own .h files.
# libTilecCompiler is their aggregate (compiler/lib/CMakeLists.txt).

function(tilec_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS;TABLEGEN" ${ARGN})
  add_library(${name} OBJECT ${ARG_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(${name} PUBLIC ${ARG_DEPENDS} ${ARG_LINK_LIBS})
  if(ARG_TABLEGEN)
    add_dependencies(${name} ${ARG_TABLEGEN})
  endif()
  file(RELATIVE_PATH folder ${PROJECT_SOURCE_DIR}/compiler/lib
       ${CMAKE_CURRENT_SOURCE_DIR})
  file(GLOB headers ${PROJECT_SOURCE_DIR}/compiler/include/tilec/${folder}/*.h
       ${CMAKE_CURRENT_SOURCE_DIR}/*.h)
  tilec_declare_layer(${name} DEPENDS ${ARG_DEPENDS} HEADER_DIR tilec/${folder}
                      FILES ${ARG_UNPARSED_ARGUMENTS} ${headers})
endfunction()

# Records a library for the check: its files (sources and headers, relative
# to the current folder or absolute), the include directory it owns
# (HEADER_DIR, as includes spell it) or the headers it owns one by one
# (HEADERS, as spelled: tile/Metadata.h), and the libraries it depends on.
function(tilec_declare_layer name)
  cmake_parse_arguments(ARG "" "HEADER_DIR" "DEPENDS;FILES;HEADERS" ${ARGN})
  set(files)
  foreach(file ${ARG_FILES})
    get_filename_component(file ${file} ABSOLUTE)
    list(APPEND files ${file})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY TILEC_LAYERS ${name})
  set_property(GLOBAL PROPERTY TILEC_LAYER_${name}_DEPENDS ${ARG_DEPENDS})
  set_property(GLOBAL PROPERTY TILEC_LAYER_${name}_FILES ${files})
  set_property(GLOBAL PROPERTY TILEC_LAYER_${name}_HEADER_DIR "${ARG_HEADER_DIR}")
  set_property(GLOBAL PROPERTY TILEC_LAYER_${name}_HEADERS ${ARG_HEADERS})
endfunction()

# The libraries `name` may include from: itself and everything it depends
# on, directly or not. A library that reaches itself is a circle between
# layers, refused here.
function(tilec_layer_closure name out)
  set(closure)
  set(queue ${name})
  while(queue)
    list(POP_FRONT queue current)
    get_property(deps GLOBAL PROPERTY TILEC_LAYER_${current}_DEPENDS)
    foreach(dep ${deps})
      if(dep STREQUAL name)
        message(FATAL_ERROR "layering: ${name} depends on itself through "
                "${current}: the layers must not form a circle")
      endif()
      get_property(known GLOBAL PROPERTY TILEC_LAYERS)
      if(NOT dep IN_LIST known)
        continue() # MLIR's or the system's
      endif()
      if(NOT dep IN_LIST closure)
        list(APPEND closure ${dep})
        list(APPEND queue ${dep})
      endif()
    endforeach()
  endwhile()
  set(${out} ${name} ${closure} PARENT_SCOPE)
endfunction()

# Writes the layer map and adds the check to every build: the target
# tilec-layers reruns it whenever a file of a layer changes, and the build
# fails on an include across the map.
function(tilec_check_layers)
  get_property(layers GLOBAL PROPERTY TILEC_LAYERS)
  set(manifest "")
  set(all_files)
  foreach(layer ${layers})
    tilec_layer_closure(${layer} allowed)
    string(REPLACE ";" "," allowed "${allowed}")
    string(APPEND manifest "ALLOWS ${layer} ${allowed}\n")
    get_property(dir GLOBAL PROPERTY TILEC_LAYER_${layer}_HEADER_DIR)
    if(dir)
      string(APPEND manifest "DIR ${dir} ${layer}\n")
    endif()
    get_property(headers GLOBAL PROPERTY TILEC_LAYER_${layer}_HEADERS)
    foreach(header ${headers})
      string(APPEND manifest "HEADER ${header} ${layer}\n")
    endforeach()
    get_property(files GLOBAL PROPERTY TILEC_LAYER_${layer}_FILES)
    foreach(file ${files})
      string(APPEND manifest "FILE ${file} ${layer}\n")
      list(APPEND all_files ${file})
    endforeach()
  endforeach()
  set(map ${PROJECT_BINARY_DIR}/layers.txt)
  file(WRITE ${map} "${manifest}")
  set(stamp ${PROJECT_BINARY_DIR}/layers.checked)
  add_custom_command(
    OUTPUT ${stamp}
    COMMAND ${CMAKE_COMMAND} -DMAP=${map}
            -P ${PROJECT_SOURCE_DIR}/cmake/CheckLayers.cmake
    COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
    DEPENDS ${all_files} ${map} ${PROJECT_SOURCE_DIR}/cmake/CheckLayers.cmake
    COMMENT "Checking the layers' includes"
    VERBATIM)
  add_custom_target(tilec-layers ALL DEPENDS ${stamp})
endfunction()
