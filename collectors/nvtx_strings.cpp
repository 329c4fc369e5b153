#include "collectors/nvtx_strings.h"

#include <atomic>
#include <memory>
#include <string>

namespace cuptitrace {
namespace {

constexpr size_t kSlots = 256;         // direct-mapped, by hash
constexpr size_t kMaxCachedBytes = 256; // longer names go to the table each time
// Interners a thread keeps a cache for at once (the NVTX handler and the scopes).
constexpr size_t kCachesPerThread = 2;

std::atomic<uint64_t> gNextSerial{1};

struct Slot {
  uint64_t hash = 0;
  StringId id = kNoString;
  bool used = false;
  std::string text;
};

struct Cache {
  uint64_t owner = 0;
  uint64_t lastUse = 0;
  std::unique_ptr<Slot[]> slots;
};

struct ThreadCaches {
  Cache caches[kCachesPerThread];
  uint64_t clock = 0;
};
thread_local ThreadCaches tCaches;

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

// The calling thread's cache for interner `owner`, made (or taken over from
// the least recently used interner) on first use.
Slot* slotsFor(uint64_t owner) {
  ThreadCaches& t = tCaches;
  ++t.clock;
  Cache* oldest = &t.caches[0];
  for (Cache& c : t.caches) {
    if (c.owner == owner) {
      c.lastUse = t.clock;
      return c.slots.get();
    }
    if (c.lastUse < oldest->lastUse) oldest = &c;
  }
  if (!oldest->slots) oldest->slots.reset(new Slot[kSlots]);
  else
    for (size_t i = 0; i < kSlots; ++i) oldest->slots[i] = Slot{};
  oldest->owner = owner;
  oldest->lastUse = t.clock;
  return oldest->slots.get();
}

}  // namespace

CachedInterner::CachedInterner(StringTable& strings) : serial_(gNextSerial.fetch_add(1)), strings_(strings) {}

StringId CachedInterner::intern(std::string_view s) {
  if (s.empty()) return kNoString;
  if (s.size() > kMaxCachedBytes) return strings_.intern(s);
  const uint64_t h = fnv1a(s);
  Slot& slot = slotsFor(serial_)[h % kSlots];
  if (slot.used && slot.hash == h && slot.text == s) return slot.id;
  const StringId id = strings_.intern(s);
  slot.hash = h;
  slot.id = id;
  slot.used = true;
  slot.text.assign(s.data(), s.size());
  return id;
}

}  // namespace cuptitrace
