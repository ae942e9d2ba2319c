// Shared helpers of gridscope-tracetool: error reporting and JSON string escaping.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace gs {

// One line "gridscope-tracetool: WHERE: PROBLEM" on stderr, exit 2 (bad input).
[[noreturn]] inline void fail(const std::string& where, const std::string& problem) {
  std::fprintf(stderr, "gridscope-tracetool: %s: %s\n", where.c_str(), problem.c_str());
  std::exit(2);
}

// JSON string literal; bytes >= 0x80 pass through (Python decodes them with 'replace').
inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

int run_dump(int argc, char** argv);
int run_markers(int argc, char** argv);

}  // namespace gs
