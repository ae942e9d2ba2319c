// Whose rules the analysis follows where gridscope and Scalasca's scout differ on purpose
// (docs/root-causes.md, "Rules: scalasca or gridscope"). Scalasca's are the default, so a
// Cube user sees scout's numbers; `--rules gridscope` selects ours.
#pragma once

#include <cstdint>
#include <string>

namespace gs {

enum class Rules : uint8_t { Scalasca, Gridscope };

inline const char* rules_name(Rules r) { return r == Rules::Scalasca ? "scalasca" : "gridscope"; }

// false when TEXT names no rule set
inline bool parse_rules(const std::string& text, Rules& out) {
  if (text == "scalasca") out = Rules::Scalasca;
  else if (text == "gridscope") out = Rules::Gridscope;
  else return false;
  return true;
}

}  // namespace gs
