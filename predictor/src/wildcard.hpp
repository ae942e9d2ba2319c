// Receives posted with MPI_ANY_SOURCE: the collector marks each with an OTF2 attribute
// (collector/src/events.c, GS_ATTR_ANY_SOURCE_NAME); OTF2's receive events hold only the
// source matched. Score-P records no such mark: its receives replay from the source matched.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace gs::predict {

inline constexpr const char* kAnySourceAttribute = "gridscope::mpi_any_source";

// The ref of the archive's attribute named kAnySourceAttribute, if it defines one.
std::optional<uint32_t> any_source_attribute(const std::string& anchor);

}  // namespace gs::predict
