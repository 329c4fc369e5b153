#include "exporters/pftrace/pftrace_interning.h"

#include <string>
#include <utility>

namespace cuptitrace::pftrace {

Interner::Interner(const StringTable& strings) : strings_(strings) {
  const size_t n = strings.size();
  rawNameIid_.assign(n, 0);
  kernelNameIid_.assign(n, 0);
  stringValueIid_.assign(n, 0);
  names_.emplace_back();  // iid 0 is "none"
  values_.emplace_back();
}

void Interner::intern(uint32_t field, uint64_t iid, std::string_view name) {
  const size_t len = 1 + varintSize(iid) + bytesFieldSize(2, name.size());
  interned_.tag(field, WireType::LengthDelimited);
  interned_.varint(len);
  interned_.byte(0x08);
  interned_.varint(iid);
  interned_.bytesField(2, name);
}

uint32_t Interner::dynamicArgIid(const std::string& name) {
  const auto [it, added] = dynamicArgIid_.try_emplace(name, 0);
  if (added) {
    it->second = nextDynamicArgIid_++;
    intern(kInternedAnnotationNames, it->second, validUtf8(name));
  }
  return it->second;
}

uint32_t Interner::newName(std::string name) {
  names_.push_back(std::move(name));
  return static_cast<uint32_t>(names_.size() - 1);
}

uint32_t Interner::newValue(std::string value) {
  values_.push_back(std::move(value));
  return static_cast<uint32_t>(values_.size() - 1);
}

std::string Interner::dim3Text(int64_t x, int64_t y, int64_t z) {
  return "[" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + "]";
}

void Interner::clearNotes() {
  newKeys_.clear();
  uses_.clear();
}

void Interner::dropProvisional() {
  for (const NewKey& k : newKeys_) place(k, 0);
}

uint32_t Interner::met(NewKey k) {
  if (!speculative_) {
    const uint32_t iid = commit(k);
    return k.isName() ? useName(iid) : useValue(iid);
  }
  const auto index = static_cast<uint32_t>(newKeys_.size());
  const uint32_t iid = kProvisional + index;
  k.event = event_;
  place(k, iid);  // met again, it is found like any other
  uses_.push_back(Use{k.isName() ? Use::Name : Use::Value, true, index});
  newKeys_.push_back(std::move(k));
  return iid;
}

uint32_t Interner::metString(NewKey::Kind kind, StringId id) {
  NewKey k(kind, id);
  k.text = kind == NewKey::KernelName ? validUtf8(demangle(strings_.get(id))) : validUtf8(strings_.get(id));
  return met(std::move(k));
}

uint32_t Interner::metLabel(Label l, uint8_t code, const char* text) {
  NewKey k(l == Label::CopyKind ? NewKey::CopyKind : l == Label::MemoryKind ? NewKey::MemoryKind : NewKey::LaunchType,
           code);
  k.text = text;
  return met(std::move(k));
}

uint32_t Interner::metDim3(bool grid, int64_t x, int64_t y, int64_t z) {
  NewKey k(grid ? NewKey::Grid : NewKey::Block);
  k.x = x;
  k.y = y;
  k.z = z;
  k.text = dim3Text(x, y, z);
  return met(std::move(k));
}

uint32_t Interner::commit(const NewKey& k) {
  const uint32_t iid = k.isName() ? newName(k.text) : newValue(k.text);
  place(k, iid);
  return iid;
}

void Interner::place(const NewKey& k, uint32_t iid) {
  auto map = [&](auto& table, const auto& key) {
    if (iid == 0) table.erase(key);
    else table[key] = iid;
  };
  switch (k.kind) {
    case NewKey::RawName: slot(rawNameIid_, k.id) = iid; break;
    case NewKey::KernelName: slot(kernelNameIid_, k.id) = iid; break;
    case NewKey::ComposedName: map(composedNameIid_, k.id); break;
    case NewKey::LabelName: map(labelNameIid_, k.key); break;
    case NewKey::StringValue: slot(stringValueIid_, k.id) = iid; break;
    case NewKey::LaunchType: launchTypeIid_[k.id & 255] = iid; break;
    case NewKey::CopyKind: copyKindIid_[k.id & 255] = iid; break;
    case NewKey::MemoryKind: memoryKindIid_[k.id & 255] = iid; break;
    case NewKey::TextValue: map(textValueIid_, k.key); break;
    case NewKey::NcclValue: map(ncclValueIid_, k.key); break;
    case NewKey::Grid:
    case NewKey::Block: {
      Dim3Cache& cache = k.kind == NewKey::Grid ? grids_ : blocks_;
      if (iid == 0) cache.erase(k.x, k.y, k.z);
      else cache.add(k.x, k.y, k.z, iid);
      break;
    }
  }
}

}  // namespace cuptitrace::pftrace
