# Include roots: how a target's include path reaches only the folders it may depend on.
#
# Every #include is written from the project root ("vocab/time.h", "models/system/system.h"),
# but the project root itself is on no include path: through it any file could include
# any other. Instead each folder gets an include root in the build tree, a directory of
# symlinks holding just that folder, and a target puts its own root on its include path.
# A target sees another folder only by linking that folder's target (include roots
# travel with target_link_libraries), so an include across a wrong boundary does not
# compile (tests/layering/ checks a few; hw/tests the hw layers).

set(NVMESIM_INCLUDE_ROOTS ${PROJECT_BINARY_DIR}/include)

# nvmesim_include_root(ROOT DIR...): ${NVMESIM_INCLUDE_ROOTS}/ROOT/DIR -> source DIR for
# each DIR (relative to the project root), so that ROOT resolves "DIR/file.h" only.
function(nvmesim_include_root root)
  foreach(dir ${ARGN})
    set(link ${NVMESIM_INCLUDE_ROOTS}/${root}/${dir})
    get_filename_component(parent ${link} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${dir} ${link} SYMBOLIC)
  endforeach()
endfunction()

# nvmesim_folder_includes(TARGET ROOT DIR...): TARGET's own headers, the folders DIR...,
# reachable as "DIR/..." by TARGET and by whatever links it.
function(nvmesim_folder_includes target root)
  nvmesim_include_root(${root} ${ARGN})
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    target_include_directories(${target} INTERFACE ${NVMESIM_INCLUDE_ROOTS}/${root})
  elseif(type MATCHES "LIBRARY$")
    target_include_directories(${target} PUBLIC ${NVMESIM_INCLUDE_ROOTS}/${root})
  else()
    target_include_directories(${target} PRIVATE ${NVMESIM_INCLUDE_ROOTS}/${root})
  endif()
endfunction()

# nvmesim_layering_probe(NAME TARGET HEADER): the ctest NAME that builds a one-line source
# including HEADER against TARGET (an object library outside `all`, built by the test).
function(nvmesim_layering_probe name target header)
  set(src ${PROJECT_BINARY_DIR}/layering/${name}.cc)
  file(CONFIGURE OUTPUT ${src} CONTENT "#include \"${header}\"\n")
  add_library(${name} OBJECT EXCLUDE_FROM_ALL ${src})
  target_link_libraries(${name} PRIVATE ${target})
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} --build ${PROJECT_BINARY_DIR} --target ${name})
endfunction()

# nvmesim_layering_case(NAME TARGET HEADER [LABEL...]): the probe proving that TARGET does
# not see HEADER. It passes only on the compiler's "No such file" for that header, not on
# any other failure.
function(nvmesim_layering_case name target header)
  nvmesim_layering_probe(${name} ${target} ${header})
  set_tests_properties(${name} PROPERTIES LABELS "layering;${ARGN}" TIMEOUT 300
                       PASS_REGULAR_EXPRESSION "${header}: No such file or directory")
endfunction()

# nvmesim_layering_control(NAME TARGET HEADER [LABEL...]): the probe for a header TARGET may
# include, which must build, so a case above fails for its boundary and not because
# the probes cannot compile at all.
function(nvmesim_layering_control name target header)
  nvmesim_layering_probe(${name} ${target} ${header})
  set_tests_properties(${name} PROPERTIES LABELS "layering;${ARGN}" TIMEOUT 300)
endfunction()
