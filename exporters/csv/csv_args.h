// The CSV tables' columns that are record arguments, read from record_args.h:
// a table's row runs its kind's function there (kernelArgs, memcpyArgs, ...)
// with a CsvArgRow as the sink, which keeps the text of each argument the
// table has a column for; the row then writes those columns in the table's
// order. A table lists its columns once (csv_columns.cpp), each either a
// column of its own, written by its row's code, or an argument with the
// text it holds when the function leaves the argument out: the timeline
// leaves out usual values (a graph id of 0, a Regular launch) that a table
// still shows.
//
// Arguments a table has no column for (a copy's bandwidth, external ids on
// copies and sets) are not formatted. The text of an argument is the one
// the table always had: integers in decimal, a flag as 1, names and strings
// as they are (quoted where RFC 4180 wants), a payload in its shortest form.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/trace.h"
#include "exporters/csv/csv_strings.h"
#include "exporters/csv/csv_writer.h"
#include "timeline/external_ids.h"
#include "timeline/nccl_names.h"
#include "timeline/record_args.h"

namespace cuptitrace {

struct CsvColumn {
  const char* name;
  Arg arg = Arg::None;      // Arg::None: a column of the table's own
  uint8_t part = 0;         // of a dim3 argument: 0 x, 1 y, 2 z
  std::string_view absent;  // the text when the function leaves the argument out (never quoted)
};
// A column of the table's own.
constexpr CsvColumn ownColumn(const char* name) { return {name, Arg::None, 0, ""}; }
// An argument, under its own name or another (`name`).
constexpr CsvColumn argColumn(Arg a, std::string_view absent = {}) {
  return {kArgNames[static_cast<uint32_t>(a)], a, 0, absent};
}
constexpr CsvColumn argColumn(const char* name, Arg a, std::string_view absent = {}) {
  return {name, a, 0, absent};
}
// One of a dim3 argument's three values.
constexpr CsvColumn dimColumn(const char* name, Arg a, uint8_t part) { return {name, a, part, ""}; }

struct CsvColumns {
  const CsvColumn* columns;
  size_t count;
  const CsvColumn* begin() const { return columns; }
  const CsvColumn* end() const { return columns + count; }
};

#define CSV_ARG_FN inline __attribute__((always_inline)) void

class CsvArgRow {
 public:
  // `externalIds`: the index of the trace's external ids, when the table's
  // writers share one (made here when the columns want it and none is given).
  CsvArgRow(const Trace& trace, CsvColumns columns, std::shared_ptr<const ExternalIdIndex> externalIds = nullptr)
      : strings_(trace.strings), columns_(columns) {
    for (const CsvColumn& c : columns) wanted_[static_cast<uint32_t>(c.arg)] = true;
    wanted_[static_cast<uint32_t>(Arg::None)] = false;
    if (wants(Arg::ExternalId) || wants(Arg::Scope))
      externalIds_ = externalIds != nullptr ? std::move(externalIds) : std::make_shared<const ExternalIdIndex>(trace);
    if (wants(Arg::NcclCollective)) nccl_ = std::make_unique<NcclNames>(trace);
  }

  // The trace's strings, as this writer reads them (csv_strings.h).
  CsvStrings& strings() { return strings_; }

  // Forgets the previous record's arguments.
  void next() {
    ++row_;
    owned_.clear();
  }
  // Writes the argument columns from the writer's next column up to the
  // next column of the table's own (or the row's end).
  void fill(CsvWriter& w) const {
    for (size_t c = w.fields(); c < columns_.count && columns_.columns[c].arg != Arg::None; ++c) {
      const CsvColumn& column = columns_.columns[c];
      const Slot& s = slots_[static_cast<uint32_t>(column.arg)];
      if (s.row != row_) {
        w.plain(column.absent);
        continue;
      }
      switch (s.type) {
        case Type::Unsigned:
          integer(w, s.value[column.part]);
          break;
        case Type::Signed:
          integer(w, static_cast<int64_t>(s.value[column.part]));
          break;
        case Type::Double:
          w.number(s.real);
          break;
        case Type::Float:
          w.number(s.single);
          break;
        case Type::Text:
          w.text(s.text);
          break;
        case Type::Owned:
          w.text(std::string_view(owned_).substr(s.value[0], s.value[1]));
          break;
      }
    }
  }

  // The sink (record_args.h).
  CSV_ARG_FN u(Arg a, uint64_t v) {
    if (wants(a)) slot(a, Type::Unsigned).value[0] = v;
  }
  CSV_ARG_FN i(Arg a, int64_t v) {
    if (wants(a)) slot(a, Type::Signed).value[0] = static_cast<uint64_t>(v);
  }
  CSV_ARG_FN b(Arg a, bool v) {
    if (wants(a)) slot(a, Type::Unsigned).value[0] = v ? 1 : 0;
  }
  CSV_ARG_FN real(Arg a, double v, int) {
    if (wants(a)) slot(a, Type::Double).real = v;  // its shortest text
  }
  CSV_ARG_FN single(Arg a, float v) {
    if (wants(a)) slot(a, Type::Float).single = v;
  }
  CSV_ARG_FN string(Arg a, StringId id) {
    if (wants(a)) slot(a, Type::Text).text = strings_.get(id);
  }
  // Text that may not outlive the call (a color): kept in the row.
  CSV_ARG_FN text(Arg a, std::string_view v) {
    if (!wants(a)) return;
    Slot& s = slot(a, Type::Owned);
    s.value[0] = owned_.size();
    s.value[1] = v.size();
    owned_.append(v);
  }
  CSV_ARG_FN label(Arg a, Label, uint8_t, const char* name) {
    if (wants(a)) slot(a, Type::Text).text = name;
  }
  CSV_ARG_FN dim3(Arg a, int64_t x, int64_t y, int64_t z) {
    if (!wants(a)) return;
    Slot& s = slot(a, Type::Signed);
    s.value[0] = static_cast<uint64_t>(x);
    s.value[1] = static_cast<uint64_t>(y);
    s.value[2] = static_cast<uint64_t>(z);
  }
  // Every part of an NCCL kernel's collective, empty where its name has none.
  void nccl(StringId kernelName) {
    if (nccl_ == nullptr) return;
    const NcclKernelInfo* c = nccl_->find(kernelName);
    if (c == nullptr) return;
    slot(Arg::NcclCollective, Type::Text).text = c->collective;
    slot(Arg::NcclOp, Type::Text).text = c->op;
    slot(Arg::NcclDtype, Type::Text).text = c->dtype;
    slot(Arg::NcclAlgo, Type::Text).text = c->algo;
    slot(Arg::NcclProto, Type::Text).text = c->proto;
  }
  CSV_ARG_FN where(Arg, uint64_t) {}  // the device and stream columns say it
  CSV_ARG_FN json(Arg a, std::string_view v) { text(a, v); }
  void externalIds(uint32_t correlationId) {
    if (externalIds_ == nullptr) return;
    const ExternalIdEntry* e = externalIds_->find(correlationId);
    if (e == nullptr) return;
    if (e->hasId) u(Arg::ExternalId, e->id);
    if (e->hasScope) string(Arg::Scope, e->scopeName);
  }

 private:
  enum class Type : uint8_t { Unsigned, Signed, Double, Float, Text, Owned };
  // An argument's value, when it was given for this row.
  struct Slot {
    uint64_t row = 0;
    Type type = Type::Unsigned;
    uint64_t value[3] = {};  // an integer (three for a dim3); Owned: where in owned_, and how long
    double real = 0;
    float single = 0;
    std::string_view text;  // Text: the trace's strings and our names, which outlive the row
  };

  // Most values are 32-bit ids and sizes, whose text is quicker to make as such.
  static void integer(CsvWriter& w, uint64_t v) {
    if (v <= UINT32_MAX) {
      w.integer(static_cast<uint32_t>(v));
    } else {
      w.integer(v);
    }
  }
  static void integer(CsvWriter& w, int64_t v) {
    if (v >= INT32_MIN && v <= INT32_MAX) {
      w.integer(static_cast<int32_t>(v));
    } else {
      w.integer(v);
    }
  }
  bool wants(Arg a) const { return wanted_[static_cast<uint32_t>(a)]; }
  Slot& slot(Arg a, Type type) {
    Slot& s = slots_[static_cast<uint32_t>(a)];
    s.row = row_;
    s.type = type;
    return s;
  }

  CsvStrings strings_;
  const CsvColumns columns_;
  bool wanted_[kArgCount] = {};
  std::shared_ptr<const ExternalIdIndex> externalIds_;  // only for tables with its columns
  std::unique_ptr<NcclNames> nccl_;
  uint64_t row_ = 1;
  std::string owned_;
  Slot slots_[kArgCount];
};

#undef CSV_ARG_FN

}  // namespace cuptitrace
