// The console's page, compiled into the binary (tools/console/assets/, embedded by
// embed_assets.cmake at build time): no CDN, nothing fetched from elsewhere, works offline.
//
// Thread safety: constant data.
#pragma once

#include <string_view>

namespace reconsume::tools {

struct ConsoleAsset {
  std::string_view contentType;
  std::string_view content;
};

// The asset served at `path` ("/index.html", "/app.js", "/app.css"); null for any other.
const ConsoleAsset* consoleAsset(std::string_view path);

}  // namespace reconsume::tools
