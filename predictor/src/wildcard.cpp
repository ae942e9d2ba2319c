#include "wildcard.hpp"

#include <otf2/otf2.h>

#include <map>

#include "gridscope/trace/error.hpp"

namespace gs::predict {
namespace {

struct Found {
  std::map<uint32_t, std::string> strings;
  std::map<uint32_t, uint32_t> attributes;  // ref -> name string
};

OTF2_CallbackCode on_string(void* u, OTF2_StringRef ref, const char* s) {
  static_cast<Found*>(u)->strings[ref] = s;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_attribute(void* u, OTF2_AttributeRef ref, OTF2_StringRef name, OTF2_StringRef, OTF2_Type) {
  static_cast<Found*>(u)->attributes[ref] = name;
  return OTF2_CALLBACK_SUCCESS;
}

}  // namespace

// A second, definitions-only pass over the anchor: the trace library's Defs do not keep
// attributes, and only the predictor needs this one.
std::optional<uint32_t> any_source_attribute(const std::string& anchor) {
  OTF2_Reader* reader = OTF2_Reader_Open(anchor.c_str());
  if (!reader) throw Error(anchor, "cannot be opened");
  OTF2_Reader_SetSerialCollectiveCallbacks(reader);
  Found found;
  OTF2_GlobalDefReader* defs = OTF2_Reader_GetGlobalDefReader(reader);
  OTF2_GlobalDefReaderCallbacks* cb = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
  OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, on_attribute);
  OTF2_Reader_RegisterGlobalDefCallbacks(reader, defs, cb, &found);
  uint64_t read = 0;
  OTF2_ErrorCode rc = defs ? OTF2_Reader_ReadAllGlobalDefinitions(reader, defs, &read) : OTF2_ERROR_INVALID;
  OTF2_GlobalDefReaderCallbacks_Delete(cb);
  OTF2_Reader_Close(reader);
  if (rc != OTF2_SUCCESS) throw Error(anchor, "its definitions cannot be read");
  for (const auto& [ref, name] : found.attributes) {
    auto it = found.strings.find(name);
    if (it != found.strings.end() && it->second == kAnySourceAttribute) return ref;
  }
  return std::nullopt;
}

}  // namespace gs::predict
