// The parts of a trace's description that the native format's METADATA
// section and the spill journal's METADATA and INFO blocks both hold, in the
// one encoding they share (binary_io.h): the metadata's fixed head, the
// devices' original fields, the contexts, and an id-to-name map. Reads only
// add entries as they are read, so a corrupt count cannot allocate much;
// each returns false when a field runs past the data.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/binary_io.h"
#include "core/trace.h"
#include "core/trace_metadata_fields.h"

namespace cuptitrace::binary_io {

// The metadata's scalar fields of one place in the native METADATA section,
// in the order of their table (core/trace_metadata_fields.h).
void writeMetadataFields(ByteWriter& w, const TraceMetadata& meta, NativePlace place);
bool readMetadataFields(ByteReader& r, TraceMetadata& meta, NativePlace place);

// The fields of the head (tool version, host, pid, names, clock, timestamps,
// versions), then the configuration.
void writeMetadataHead(ByteWriter& w, const TraceMetadata& meta);
bool readMetadataHead(ByteReader& r, TraceMetadata& meta);

// Id, name, compute capability, SMs, memory, clock and UUID of each device
// (the details added later are written apart, after everything else).
void writeDevices(ByteWriter& w, const std::vector<DeviceInfo>& devices);
bool readDevices(ByteReader& r, std::vector<DeviceInfo>& devices);

void writeContexts(ByteWriter& w, const std::vector<ContextInfo>& contexts);
bool readContexts(ByteReader& r, std::vector<ContextInfo>& contexts);

// The rank (TraceMetadata::rank, localRank, worldSize, rankSource), written
// after everything else by both the native format and the journal.
void writeRank(ByteWriter& w, const TraceMetadata& meta);
bool readRank(ByteReader& r, TraceMetadata& meta);

void writeNames(ByteWriter& w, const std::map<uint32_t, std::string>& names);
bool readNames(ByteReader& r, std::map<uint32_t, std::string>& names);

}  // namespace cuptitrace::binary_io
