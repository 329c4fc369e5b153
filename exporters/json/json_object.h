// The members of one JSON object, written straight into a JsonText with the
// commas between them: the Chrome JSON writer's events, arguments and
// metadata are built of these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/json_text.h"
#include "timeline/record_args.h"

namespace cuptitrace {
// The members of one JSON object, with the commas between them. Keys are
// string literals of the writer's own (nothing to escape, length known at
// compile time); escapedKey() takes any other. Inlined whatever the size of
// the writer using them: each is a few stores once the key's length is known.
#define JSON_MEMBER_FN \
  template <size_t N>  \
  inline __attribute__((always_inline)) void
class JsonObject {
 public:
  explicit JsonObject(JsonText& b) : b_(b) { b_.put('{'); }
  JSON_MEMBER_FN key(const char (&name)[N]) {
    if (first_) {
      first_ = false;
      b_.put('"');
    } else {
      b_.lit(",\"");
    }
    b_.lit(name);
    b_.lit("\":");
  }
  // A record argument's key (record_args.h).
  inline __attribute__((always_inline)) void key(Arg a) {
    if (first_) {
      first_ = false;
    } else {
      b_.put(',');
    }
    // A switch, not a table lookup: with `a` known where it is inlined, the
    // key's bytes are too.
    switch (a) {
#define JSON_ARG_CASE(id, name) \
  case Arg::id:                 \
    b_.lit("\"" name "\":");    \
    return;
      CUPTITRACE_TIMELINE_ARGS(JSON_ARG_CASE)
#undef JSON_ARG_CASE
      case Arg::None:
      case Arg::Count:
        break;
    }
  }
  void escapedKey(std::string_view name) {
    if (!first_) b_.put(',');
    first_ = false;
    b_.quoted(name);
    b_.put(':');
  }
  JSON_MEMBER_FN u(const char (&name)[N], uint64_t v) {
    key(name);
    b_.uint(v);
  }
  JSON_MEMBER_FN i(const char (&name)[N], int64_t v) {
    key(name);
    b_.sint(v);
  }
  JSON_MEMBER_FN s(const char (&name)[N], std::string_view v) {
    key(name);
    b_.quoted(v);
  }
  // Text of our own (enum names): nothing to escape.
  JSON_MEMBER_FN plain(const char (&name)[N], std::string_view v) {
    key(name);
    b_.put('"');
    b_.put(v);
    b_.put('"');
  }
  JSON_MEMBER_FN b(const char (&name)[N], bool v) {
    key(name);
    v ? b_.lit("true") : b_.lit("false");
  }
  // `json` is already JSON text (a quoted, escaped string from a cache).
  JSON_MEMBER_FN raw(const char (&name)[N], std::string_view json) {
    key(name);
    b_.put(json);
  }
  void close() { b_.put('}'); }
  // Where the members go: values are written here after their key.
  JsonText& out() { return b_; }

 private:
  JsonText& b_;
  bool first_ = true;
};
#undef JSON_MEMBER_FN

}  // namespace cuptitrace
