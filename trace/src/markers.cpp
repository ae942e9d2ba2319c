// add_markers (markers.hpp): libotf2 writes markers through a reader opened on the archive.
#include "gridscope/trace/markers.hpp"

#include "gridscope/trace/error.hpp"

namespace gs {

void add_markers(const std::string& anchor, const std::vector<MarkerClass>& classes,
                 const std::vector<Marker>& markers) {
  OTF2_Reader* reader = OTF2_Reader_Open(anchor.c_str());
  if (!reader) throw Error(anchor, "cannot open OTF2 archive");
  auto fail = [&](const std::string& problem, OTF2_ErrorCode rc) {
    OTF2_Reader_Close(reader);
    throw Error(anchor, problem + ": " + OTF2_Error_GetName(rc));
  };
  OTF2_ErrorCode rc = OTF2_Reader_SetSerialCollectiveCallbacks(reader);
  if (rc != OTF2_SUCCESS) fail("cannot set serial mode", rc);
  OTF2_MarkerWriter* writer = OTF2_Reader_GetMarkerWriter(reader);
  if (!writer) fail("cannot create a marker writer", OTF2_ERROR_INVALID);
  for (const MarkerClass& c : classes) {
    rc = OTF2_MarkerWriter_WriteDefMarker(writer, c.id, c.group.c_str(), c.category.c_str(), c.severity);
    if (rc != OTF2_SUCCESS) fail("cannot write marker class " + std::to_string(c.id), rc);
  }
  for (const Marker& m : markers) {
    rc = OTF2_MarkerWriter_WriteMarker(writer, m.time, m.duration, m.class_id, OTF2_MARKER_SCOPE_LOCATION,
                                       m.location, m.text.c_str());
    if (rc != OTF2_SUCCESS) fail("cannot write marker", rc);
  }
  rc = OTF2_Reader_CloseMarkerWriter(reader, writer);
  if (rc != OTF2_SUCCESS) fail("cannot close marker writer", rc);
  rc = OTF2_Reader_Close(reader);
  if (rc != OTF2_SUCCESS) throw Error(anchor, std::string("cannot close archive: ") + OTF2_Error_GetName(rc));
}

}  // namespace gs
