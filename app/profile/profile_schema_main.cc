// nvmesim_profile_schema --write|--check SCHEMA: regenerates the profile tables' entries of
// scenarios/schema.json (app/profile/profile_schema.h). --check exits 1 when the file differs.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "app/profile/profile_schema.h"

int main(int argc, char** argv) {
  const std::string mode = argc == 3 ? argv[1] : "";
  if (mode != "--write" && mode != "--check") {
    std::cerr << "usage: nvmesim_profile_schema --write|--check scenarios/schema.json\n";
    return 2;
  }
  std::stringstream text;
  text << std::ifstream(argv[2]).rdbuf();
  const auto shipped = nlohmann::ordered_json::parse(text.str(), nullptr, false);
  if (shipped.is_discarded()) {
    std::cerr << argv[2] << ": not JSON\n";
    return 2;
  }
  const std::string generated = nvmesim::with_generated_profile_entries(shipped).dump(2) + "\n";
  if (mode == "--check") {
    if (generated == text.str()) return 0;
    std::cerr << argv[2] << " differs from what the profile tables generate: run with --write\n";
    return 1;
  }
  std::ofstream out(argv[2]);
  out << generated;
  return out.flush() ? 0 : 1;
}
