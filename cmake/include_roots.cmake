# Include roots: how a target's include path reaches only the folders it may depend on.
#
# Every #include is written from the project root ("vocab/time.h", "models/system.h"),
# but the project root itself is on no include path: through it any file could include
# any other. Instead each folder gets an include root in the build tree, a directory of
# symlinks holding just that folder, and a target puts its own root on its include path.
# A target sees another folder only by linking that folder's target (include roots
# travel with target_link_libraries), so an include across a wrong boundary does not
# compile.

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

