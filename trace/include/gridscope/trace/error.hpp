#pragma once
#include <stdexcept>
#include <string>

namespace gs {
// Bad input: printed as "gridscope-replay: WHERE: PROBLEM" and the job ends with exit 2.
struct Error : std::runtime_error {
  std::string where;
  Error(std::string w, const std::string& problem) : std::runtime_error(problem), where(std::move(w)) {}
};
}  // namespace gs
