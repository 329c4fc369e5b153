// A Chrome JSON event's "args": the record's arguments as record_args.h lists
// them, written by a sink of that header's kind straight into the file's
// text. Everything here is inlined into the slice writers: an argument's key
// is then a constant copy there.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/trace.h"
#include "timeline/external_ids.h"
#include "exporters/json/json_object.h"
#include "exporters/json/json_strings.h"
#include "core/json_text.h"
#include "timeline/nccl_names.h"
#include "timeline/record_args.h"

namespace cuptitrace {

#define JSON_ARGS_FN inline __attribute__((always_inline)) void

class JsonArgs {
 public:
  JsonArgs(const Trace& trace, JsonStrings& strings)
      : strings_(strings), externalIds_(trace), nccl_(trace) {}

  // ,"args":{...} with what `describe` (one of record_args.h's functions)
  // lists, then "clamped_ns" when the layout cut `clampedNs` off the slice
  // (only past kMaxLanes lanes: track_layout.h).
  template <typename Describe>
  JSON_ARGS_FN write(JsonText& b, uint64_t clampedNs, Describe&& describe) {
    b.lit(",\"args\":");
    JsonObject args(b);
    Sink sink{*this, args};
    describe(sink);
    if (clampedNs != 0) args.u("clamped_ns", clampedNs);
    args.close();
  }

  // The sink record_args.h's functions write to: members of "args".
  struct Sink {
    JsonArgs& w;
    JsonObject& o;
    JSON_ARGS_FN u(Arg a, uint64_t v) {
      o.key(a);
      o.out().uint(v);
    }
    JSON_ARGS_FN i(Arg a, int64_t v) {
      o.key(a);
      o.out().sint(v);
    }
    JSON_ARGS_FN b(Arg a, bool v) {
      o.key(a);
      v ? o.out().lit("true") : o.out().lit("false");
    }
    JSON_ARGS_FN real(Arg a, double v, int digits) {
      o.key(a);
      digits == 0 ? o.out().dbl(v) : o.out().dblDigits(v, digits);
    }
    JSON_ARGS_FN single(Arg a, float v) {
      o.key(a);
      o.out().flt(v);
    }
    JSON_ARGS_FN string(Arg a, StringId id) {
      o.key(a);
      o.out().put(w.strings_.quoted(id));
    }
    JSON_ARGS_FN text(Arg a, std::string_view v) {  // ours: nothing to escape
      o.key(a);
      o.out().put('"');
      o.out().put(v);
      o.out().put('"');
    }
    JSON_ARGS_FN label(Arg a, Label, uint8_t, const char* name) { text(a, name); }
    JSON_ARGS_FN dim3(Arg a, int64_t x, int64_t y, int64_t z) {
      o.key(a);
      o.out().lit("\"[");
      o.out().sint(x);
      o.out().put(',');
      o.out().sint(y);
      o.out().put(',');
      o.out().sint(z);
      o.out().lit("]\"");
    }
    JSON_ARGS_FN nccl(StringId kernelName) {
      if (const NcclKernelInfo* c = w.nccl_.find(kernelName)) ncclArgs(o, *c);
    }
    JSON_ARGS_FN externalIds(uint32_t correlationId) { w.externalIdArgs(o, correlationId); }
    JSON_ARGS_FN where(Arg a, uint64_t v) { u(a, v); }
    // PyTorch's sizes as a JSON value when they are one (digits, brackets, commas,
    // spaces), else as text.
    JSON_ARGS_FN json(Arg a, std::string_view v) {
      o.key(a);
      if (isPlainArray(v)) {
        o.out().put(v);
      } else {
        o.out().quoted(v);
      }
    }
  };

 private:
  // What the program had pushed (cuptitrace.h) when the call was made.
  void externalIdArgs(JsonObject& args, uint32_t correlationId) {
    const ExternalIdEntry* e = externalIds_.find(correlationId);
    if (e == nullptr) return;
    if (e->hasId) {
      args.key(Arg::ExternalId);
      args.out().uint(e->id);
    }
    if (e->hasScope) {
      args.raw("scope", strings_.quoted(e->scopeName));
      args.u("scope_id", e->scopeId);
    }
    if (e->python != kNoString) args.raw("python", strings_.quoted(e->python));
  }
  // Whether `v` is an array of arrays of integers ("[[64], [64, 128], []]").
  static bool isPlainArray(std::string_view v) {
    if (v.size() < 2 || v.front() != '[' || v.back() != ']') return false;
    int level = 0;
    bool empty = true;  // no value yet at this level, or just after a comma
    for (const char c : v) {
      if (c == '[') {
        ++level;
        empty = true;
      } else if (c == ']') {
        if (--level < 0) return false;
        empty = false;
      } else if (c == ',') {
        if (empty) return false;
        empty = true;
      } else if (c >= '0' && c <= '9') {
        empty = false;
      } else if (c != ' ') {
        return false;
      }
    }
    return level == 0;
  }
  // An NCCL kernel's collective, as its name says (core/nccl_kernel.h): parts it leaves out are
  // left out.
  static void ncclArgs(JsonObject& args, const NcclKernelInfo& c) {
    args.plain("nccl_collective", c.collective);
    if (!c.op.empty()) args.plain("nccl_op", c.op);
    if (!c.dtype.empty()) args.plain("nccl_dtype", c.dtype);
    if (!c.algo.empty()) args.plain("nccl_algo", c.algo);
    if (!c.proto.empty()) args.plain("nccl_proto", c.proto);
  }

  JsonStrings& strings_;
  const ExternalIdIndex externalIds_;
  NcclNames nccl_;  // which kernels are NCCL's collectives
};

#undef JSON_ARGS_FN

}  // namespace cuptitrace
