#include "injection/got_patch.h"

#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cuptitrace {
namespace {

#if defined(__x86_64__)
constexpr uint32_t kJumpSlot = R_X86_64_JUMP_SLOT;
constexpr uint32_t kGlobDat = R_X86_64_GLOB_DAT;
#elif defined(__aarch64__)
constexpr uint32_t kJumpSlot = R_AARCH64_JUMP_SLOT;
constexpr uint32_t kGlobDat = R_AARCH64_GLOB_DAT;
#else
#error "no relocation types for this architecture"
#endif

struct Walk {
  const GotRedirect* redirects;
  size_t count;
  uintptr_t self;  // an address inside the object that holds the replacements
  GotPatchResult result;
};

bool endsWithLibrary(const char* path, const char* stem) {
  const char* base = std::strrchr(path, '/');
  base = base != nullptr ? base + 1 : path;
  return std::strncmp(base, stem, std::strlen(stem)) == 0;
}

bool holds(const dl_phdr_info* info, uintptr_t address) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    if (p.p_type != PT_LOAD) continue;
    const uintptr_t start = info->dlpi_addr + p.p_vaddr;
    if (address >= start && address < start + p.p_memsz) return true;
  }
  return false;
}

// The object holding the replacements calls the real functions. The C
// library and the loader call them internally (no table entry of theirs
// needs them); the tracer's preloaded helpers are its own.
bool skipped(const dl_phdr_info* info, uintptr_t self) {
  if (self != 0 && holds(info, self)) return true;
  const char* name = info->dlpi_name;
  if (name == nullptr || name[0] == '\0') return false;  // the main program
  return endsWithLibrary(name, "libc.so") || endsWithLibrary(name, "ld-linux") ||
         endsWithLibrary(name, "ld64.so") || endsWithLibrary(name, "linux-vdso") ||
         endsWithLibrary(name, "linux-gate") || endsWithLibrary(name, "libcuptitrace");
}

// Where glibc has already relocated a dynamic entry it holds the address;
// otherwise (a read-only .dynamic) the offset from the load address.
uintptr_t dynamicAddress(uintptr_t value, uintptr_t base) { return value < base ? value + base : value; }

bool inRelro(const dl_phdr_info* info, uintptr_t address) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    if (p.p_type != PT_GNU_RELRO) continue;
    const uintptr_t start = info->dlpi_addr + p.p_vaddr;
    if (address >= start && address < start + p.p_memsz) return true;
  }
  return false;
}

// The protection of the page at `page`, as /proc/self/maps says; -1 when
// it cannot be read.
int mappedProtection(uintptr_t page) {
  FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr) return -1;
  char* line = nullptr;
  size_t capacity = 0;
  int protection = -1;
  while (::getline(&line, &capacity, maps) > 0) {
    unsigned long start = 0, end = 0;
    char perms[5] = {};
    if (std::sscanf(line, "%lx-%lx %4s", &start, &end, perms) != 3) continue;
    if (page < start || page >= end) continue;
    protection = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
                 (perms[2] == 'x' ? PROT_EXEC : 0);
    break;
  }
  std::free(line);
  std::fclose(maps);
  return protection;
}

// The loader's own rounding: it makes read-only the pages of RELRO up to its
// end rounded down, and leaves the last, partial one writable.
int loaderProtection(const dl_phdr_info* info, uintptr_t page, uintptr_t pageSize) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    if (p.p_type != PT_GNU_RELRO) continue;
    const uintptr_t end = (info->dlpi_addr + p.p_vaddr + p.p_memsz) & ~(pageSize - 1);
    return page < end ? PROT_READ : PROT_READ | PROT_WRITE;
  }
  return PROT_READ | PROT_WRITE;
}

bool writeEntry(const dl_phdr_info* info, void** slot, void* value) {
  if (*slot == value) return true;
  if (!inRelro(info, reinterpret_cast<uintptr_t>(slot))) {
    // A writable table (lazy binding): one aligned store, atomic for readers.
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    return true;
  }
  const uintptr_t pageSize = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t page = reinterpret_cast<uintptr_t>(slot) & ~(pageSize - 1);
  int protection = mappedProtection(page);
  if (protection < 0) protection = loaderProtection(info, page, pageSize);
  if (protection & PROT_WRITE) {  // the last, partial page: writable as it is
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    return true;
  }
  void* start = reinterpret_cast<void*>(page);
  // Sealed (mseal) or otherwise refused: this entry stays as it is.
  if (::mprotect(start, pageSize, protection | PROT_WRITE) != 0) return false;
  __atomic_store_n(slot, value, __ATOMIC_RELEASE);
  ::mprotect(start, pageSize, protection);  // exactly as the loader left it
  return true;
}

void noteRefused(GotPatchResult& result, const char* name) {
  char* list = result.refusedObjects;
  const size_t used = std::strlen(list);
  if (name == nullptr || name[0] == '\0') name = "the program";
  if (std::strstr(list, name) != nullptr) return;
  std::snprintf(list + used, sizeof(result.refusedObjects) - used, "%s%s", used != 0 ? ", " : "", name);
}

void patchRelocations(const dl_phdr_info* info, const ElfW(Rela)* rela, size_t bytes, const ElfW(Sym)* symbols,
                      const char* strings, Walk& walk, int& rewritten) {
  const size_t n = bytes / sizeof(ElfW(Rela));
  for (size_t i = 0; i < n; ++i) {
    const uint32_t type = ELF64_R_TYPE(rela[i].r_info);
    if (type != kJumpSlot && type != kGlobDat) continue;
    const uint32_t index = ELF64_R_SYM(rela[i].r_info);
    if (index == 0) continue;
    const char* name = strings + symbols[index].st_name;
    for (size_t r = 0; r < walk.count; ++r) {
      if (std::strcmp(name, walk.redirects[r].symbol) != 0) continue;
      void** slot = reinterpret_cast<void**>(info->dlpi_addr + rela[i].r_offset);
      if (writeEntry(info, slot, walk.redirects[r].replacement)) ++rewritten;
      else {
        ++walk.result.refused;
        noteRefused(walk.result, info->dlpi_name);
      }
      break;
    }
  }
}

int visitObject(dl_phdr_info* info, size_t, void* data) {
  Walk& walk = *static_cast<Walk*>(data);
  if (skipped(info, walk.self)) return 0;
  const ElfW(Dyn)* dynamic = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dynamic = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (dynamic == nullptr) return 0;
  const uintptr_t base = info->dlpi_addr;
  uintptr_t symtab = 0, strtab = 0, jmprel = 0, rela = 0;
  size_t pltBytes = 0, relaBytes = 0;
  int64_t pltKind = DT_RELA;
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB: symtab = dynamicAddress(d->d_un.d_ptr, base); break;
      case DT_STRTAB: strtab = dynamicAddress(d->d_un.d_ptr, base); break;
      case DT_JMPREL: jmprel = dynamicAddress(d->d_un.d_ptr, base); break;
      case DT_PLTRELSZ: pltBytes = d->d_un.d_val; break;
      case DT_PLTREL: pltKind = static_cast<int64_t>(d->d_un.d_val); break;
      case DT_RELA: rela = dynamicAddress(d->d_un.d_ptr, base); break;
      case DT_RELASZ: relaBytes = d->d_un.d_val; break;
      default: break;
    }
  }
  if (symtab == 0 || strtab == 0) return 0;
  const auto* symbols = reinterpret_cast<const ElfW(Sym)*>(symtab);
  const auto* strings = reinterpret_cast<const char*>(strtab);
  int rewritten = 0;
  if (jmprel != 0 && pltKind == DT_RELA)
    patchRelocations(info, reinterpret_cast<const ElfW(Rela)*>(jmprel), pltBytes, symbols, strings, walk, rewritten);
  if (rela != 0)
    patchRelocations(info, reinterpret_cast<const ElfW(Rela)*>(rela), relaBytes, symbols, strings, walk, rewritten);
  if (rewritten > 0) {
    ++walk.result.objects;
    walk.result.entries += rewritten;
  }
  return 0;
}

}  // namespace

GotPatchResult redirectImports(const GotRedirect* redirects, size_t count, const void* self) {
  Walk walk{redirects, count, reinterpret_cast<uintptr_t>(self), {}};
  ::dl_iterate_phdr(visitObject, &walk);
  return walk.result;
}

}  // namespace cuptitrace
