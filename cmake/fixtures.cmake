# Where the shared fixtures are, and their zips unpacked for the tests.
get_filename_component(HUDI_SHARED_DIR ${PROJECT_SOURCE_DIR}/../shared ABSOLUTE)

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
