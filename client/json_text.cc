#include "client/json_text.h"

namespace tuneforge::cli {

std::string JsonText(const nlohmann::ordered_json& json, int indent) {
  return json.dump(indent, ' ', /*ensure_ascii=*/false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace tuneforge::cli
