include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS reconsume EXPORT reconsumeTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/reconsume DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT reconsumeTargets NAMESPACE reconsume::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/reconsume)
configure_package_config_file(cmake/reconsumeConfig.cmake.in
        ${CMAKE_CURRENT_BINARY_DIR}/reconsumeConfig.cmake
        INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/reconsume)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/reconsumeConfigVersion.cmake
        COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/reconsumeConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/reconsumeConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/reconsume)
# pkg-config, for builds that do not use CMake. The prefix is found from where the file lies
# (${pcfiledir}), so the file is right whatever `cmake --install --prefix` says.
file(RELATIVE_PATH RECONSUME_PC_TO_PREFIX "/root/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/root")
configure_file(cmake/reconsume.pc.in ${CMAKE_CURRENT_BINARY_DIR}/reconsume.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/reconsume.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
