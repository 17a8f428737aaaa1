# cmake -DMAP=<build>/layers.txt [-DEXTRA="<file> <library>"] -P CheckLayers.cmake
#
# Fails when a file of a layer includes a header of a library that its own
# does not depend on (tilec_check_layers in TilecLayers.cmake writes the
# map: which library owns which files and include directories, and which
# libraries each may include from). EXTRA checks one more file as if it
# belonged to a library (the check's own test).
cmake_minimum_required(VERSION 3.20)
file(STRINGS ${MAP} lines)
set(files)
foreach(line ${lines})
  string(REPLACE " " ";" fields "${line}")
  list(GET fields 0 kind)
  list(GET fields 1 key)
  list(GET fields 2 value)
  if(kind STREQUAL "ALLOWS")
    string(REPLACE "," ";" value "${value}")
    set(allows_${key} ${value})
  elseif(kind STREQUAL "DIR")
    list(APPEND dirs ${key})
    set(dir_${key} ${value})
  elseif(kind STREQUAL "HEADER")
    set(header_${key} ${value})
  elseif(kind STREQUAL "FILE")
    list(APPEND files ${key})
    set(owner_${key} ${value})
  endif()
endforeach()
if(EXTRA)
  string(REPLACE " " ";" extra "${EXTRA}")
  list(GET extra 0 file)
  list(GET extra 1 library)
  list(APPEND files ${file})
  set(owner_${file} ${library})
endif()

set(errors "")
foreach(file ${files})
  set(layer ${owner_${file}})
  # Either spelling of an include, with any spacing: #include "tile/X.h",
  # # include <tilec/Y.h>.
  set(pattern "^[ \t]*#[ \t]*include[ \t]*[<\"](tilec?/[^>\"]+)[>\"]")
  file(STRINGS ${file} includes REGEX "${pattern}")
  foreach(include ${includes})
    string(REGEX REPLACE "${pattern}.*" "\\1" header "${include}")
    set(owner "")
    if(DEFINED header_${header})
      set(owner ${header_${header}})
    else()
      # The library whose include directory is the longest prefix.
      get_filename_component(dir ${header} DIRECTORY)
      while(dir AND NOT owner)
        if(DEFINED dir_${dir})
          set(owner ${dir_${dir}})
        else()
          get_filename_component(dir ${dir} DIRECTORY)
        endif()
      endwhile()
    endif()
    if(NOT owner)
      string(APPEND errors "  ${file}: includes ${header}, which no library "
             "owns (a header of the ABI or the runtime not declared to "
             "tilec_declare_layer?)\n")
    elseif(NOT owner IN_LIST allows_${layer})
      string(APPEND errors "  ${file}: includes ${header} (${owner}), "
             "but ${layer} does not depend on ${owner}\n")
    endif()
  endforeach()
endforeach()
if(errors)
  message(FATAL_ERROR "layering: includes across the layer map "
          "(cmake/TilecLayers.cmake, docs/ARCHITECTURE.md):\n${errors}")
endif()
