# Where the shared fixtures are, and their zips unpacked for the tests.
# They sit in ../shared next to the checkout (the C, Python and interop
# tests all take them from there); a checkout elsewhere gets this message
# at configure time rather than every fixture test failing.
get_filename_component(HUDI_SHARED_DIR ${PROJECT_SOURCE_DIR}/../shared ABSOLUTE)
if(NOT IS_DIRECTORY ${HUDI_SHARED_DIR}/fixtures)
  message(FATAL_ERROR "The tests read the fixture tables in ${HUDI_SHARED_DIR}/fixtures, which does not exist: "
                      "put the checkout next to shared/ (as CI does), or configure with -DHUDI_BUILD_TESTS=OFF "
                      "to build the library alone.")
endif()

# The fixture tables are zips; tests read them unpacked. Each
# ../shared/fixtures/<path>/<name>.zip is extracted once, at configure time,
# into <build>/fixtures/<path>/<name>/ (the zip's own top folder inside it).
set(HUDI_UNZIPPED_DIR ${PROJECT_BINARY_DIR}/fixtures)
file(GLOB_RECURSE fixture_zips ${HUDI_SHARED_DIR}/fixtures/*.zip)
foreach(zip IN LISTS fixture_zips)
  file(RELATIVE_PATH rel ${HUDI_SHARED_DIR}/fixtures ${zip})
  string(REGEX REPLACE "\\.zip$" "" rel ${rel})
  set(dest ${HUDI_UNZIPPED_DIR}/${rel})
  if(NOT EXISTS ${dest}/.unzipped)
    file(ARCHIVE_EXTRACT INPUT ${zip} DESTINATION ${dest})
    file(REMOVE_RECURSE ${dest}/__MACOSX)
    file(TOUCH ${dest}/.unzipped)
  endif()
endforeach()
