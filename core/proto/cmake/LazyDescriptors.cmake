# kw_lazy_descriptors(OUT_VAR var BASE_DIR dir GENERATED files...)
#
# For each protoc-generated .pb.cc among `files`, a build-time copy without its static
# descriptor registration (see lazy_descriptors.cmake), under <current binary dir>/lazy/ at
# its path relative to BASE_DIR. The copies' paths go to `var`, to compile in place of the
# originals; other files (headers) are left out.
function(kw_lazy_descriptors)
  cmake_parse_arguments(ARG "" "OUT_VAR;BASE_DIR" "GENERATED" ${ARGN})
  set(script ${CMAKE_SOURCE_DIR}/core/proto/cmake/lazy_descriptors.cmake)
  set(copies "")
  foreach(generated IN LISTS ARG_GENERATED)
    if(NOT generated MATCHES "\\.pb\\.cc$")
      continue()
    endif()
    file(RELATIVE_PATH relative ${ARG_BASE_DIR} ${generated})
    set(lazy ${CMAKE_CURRENT_BINARY_DIR}/lazy/${relative})
    add_custom_command(OUTPUT ${lazy}
      COMMAND ${CMAKE_COMMAND} -DIN=${generated} -DOUT=${lazy} -P ${script}
      DEPENDS ${generated} ${script}
      COMMENT "Making the descriptor registration of ${relative} lazy"
      VERBATIM)
    list(APPEND copies ${lazy})
  endforeach()
  set(${ARG_OUT_VAR} ${copies} PARENT_SCOPE)
endfunction()
