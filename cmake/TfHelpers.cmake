# tf_glob_library(<target> <glob...> LINK <deps...>): a static library of the
# files the globs find, or an interface library while a folder is still
# empty (a layer being written), so the tree always configures.
function(tf_glob_library target)
  cmake_parse_arguments(ARG "" "" "GLOBS;EXCLUDE;LINK" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${ARG_GLOBS})
  if(ARG_EXCLUDE)
    list(REMOVE_ITEM srcs ${ARG_EXCLUDE})
  endif()
  if(srcs)
    add_library(${target} STATIC ${srcs})
    target_link_libraries(${target} PUBLIC ${ARG_LINK})
  else()
    add_library(${target} INTERFACE)
    target_link_libraries(${target} INTERFACE ${ARG_LINK})
  endif()
endfunction()

# tf_executable(<name> <main.cc> LINK <deps...>): only once main.cc exists.
function(tf_executable name main)
  cmake_parse_arguments(ARG "" "" "LINK" ${ARGN})
  if(EXISTS ${main})
    add_executable(${name} ${main})
    target_link_libraries(${name} PRIVATE ${ARG_LINK})
  endif()
endfunction()
