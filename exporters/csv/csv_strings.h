// The trace's strings as one writer of a CSV table reads them. The trace's
// string table takes a lock for each look-up, which every thread shares:
// rows that each name a string (a kernel's, a call's) would take it millions
// of times from every thread at once, one thread after the other. Each
// writer keeps the strings it looked up last instead, by id (a few thousand:
// a trace names a few strings millions of times), and reads the table for
// the others; with them, short ones as they are written as a field, so that
// a name repeated on every row is checked and quoted once.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "core/records.h"
#include "core/string_table.h"
#include "exporters/csv/csv_writer.h"

namespace cuptitrace {

class CsvStrings {
 public:
  explicit CsvStrings(const StringTable& strings) : strings_(strings), slots_(new Slot[kSlots]) {}

  // The text of string `id` (as StringTable::get).
  std::string_view get(StringId id) { return slot(id).text; }

  // Writes string `id` as a text field (as CsvWriter::text).
  void text(CsvWriter& w, StringId id) {
    Slot& s = slot(id);
    if (s.text.size() > kFieldBytes) return w.text(s.text);
    if (!s.made) {
      s.field = csvEscaped(s.text);
      s.field += ',';
      s.made = true;
    }
    w.fields(s.field, 1);
  }

 private:
  static constexpr size_t kSlots = 4096;  // a power of two
  // Longer strings (messages) are written from their text each time: what
  // a writer keeps stays within about a MiB.
  static constexpr size_t kFieldBytes = 256;
  struct Slot {
    StringId id = 0;
    bool filled = false;
    bool made = false;  // field holds the text as a field
    std::string_view text;
    std::string field;
  };
  Slot& slot(StringId id) {
    Slot& s = slots_[id & (kSlots - 1)];
    if (!s.filled || s.id != id) {
      s.id = id;
      s.filled = true;
      s.made = false;
      s.text = strings_.get(id);
    }
    return s;
  }

  const StringTable& strings_;
  std::unique_ptr<Slot[]> slots_;
};

}  // namespace cuptitrace
