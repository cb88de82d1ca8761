# Install rules for the wheel (scikit-build-core sets SKBUILD): kbx/_home/ mirrors the source tree's
# layout (bin/kbx, suites/, prompts/, python/kbx_worker), so the binary finds its home the way
# build/kbx does (src/cli/locate.cpp). The Python package kbx (python/kbx) comes from wheel.packages.
set(kbx_home_dir kbx/_home)
install(TARGETS kbx RUNTIME DESTINATION ${kbx_home_dir}/bin)
if(TARGET kbx_cupti)  # next to the binary, where the runner looks for it
  install(TARGETS kbx_cupti LIBRARY DESTINATION ${kbx_home_dir}/bin)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/suites/kernelbenchx DESTINATION ${kbx_home_dir}/suites
        PATTERN __pycache__ EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/prompts/ DESTINATION ${kbx_home_dir}/prompts)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/kbx_worker DESTINATION ${kbx_home_dir}/python
        PATTERN __pycache__ EXCLUDE PATTERN "*.pyc" EXCLUDE)
