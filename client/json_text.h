// JSON as the CLI prints it. Messages and fields may hold any bytes (a spec,
// a file name, a schedule field typed by the user); nlohmann's plain dump()
// throws on bytes that are not UTF-8, so every printed JSON goes through here
// and such bytes become U+FFFD.
#pragma once

#include <string>

#include "nlohmann/json.hpp"

namespace tuneforge::cli {

// indent < 0: one line.
std::string JsonText(const nlohmann::ordered_json& json, int indent = -1);

}  // namespace tuneforge::cli
