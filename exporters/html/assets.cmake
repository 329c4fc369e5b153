# Included by exporters/CMakeLists.txt (a custom command's output is seen by
# the targets of its own directory only). The HTML report's assets, compiled in: the chart library (third_party/echarts,
# pinned and checksummed there) and the page's own style, body and script.
# The page's script is the files of page/ in the order below, joined.
set(_page ${CMAKE_CURRENT_SOURCE_DIR}/html/page)
set(CUPTITRACE_HTML_SCRIPTS ${_page}/core.js ${_page}/tables.js ${_page}/charts.js ${_page}/overview.js
    ${_page}/operators.js ${_page}/kernels.js ${_page}/series.js ${_page}/ranks.js ${_page}/cuda.js
    ${_page}/perfetto.js ${_page}/main.js)
# Lists travel to the scripts joined by '|' (a ';' would split the argument).
string(REPLACE ";" "|" _scripts "${CUPTITRACE_HTML_SCRIPTS}")
set(_joined ${CMAKE_CURRENT_BINARY_DIR}/page.js)
set(_assets ${CMAKE_CURRENT_BINARY_DIR}/html_assets.cpp)
set(_echarts ${PROJECT_SOURCE_DIR}/third_party/echarts/echarts.common.min.js)
add_custom_command(
  OUTPUT ${_assets}
  COMMAND ${CMAKE_COMMAND} -DOUTPUT=${_joined} "-DINPUTS=${_scripts}"
          -P ${PROJECT_SOURCE_DIR}/cmake/join_files.cmake
  COMMAND ${CMAKE_COMMAND} -DOUTPUT=${_assets}
          "-DINPUTS=echarts_js=${_echarts}|page_css=${_page}/page.css|page_body=${_page}/body.html|page_js=${_joined}"
          -P ${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake
  DEPENDS ${_echarts} ${_page}/page.css ${_page}/body.html ${CUPTITRACE_HTML_SCRIPTS}
          ${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake ${PROJECT_SOURCE_DIR}/cmake/join_files.cmake
  COMMENT "Embedding the HTML report's assets"
  VERBATIM)
set(CUPTITRACE_HTML_ASSETS ${_assets})
