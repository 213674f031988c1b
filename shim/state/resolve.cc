// Copyright 2026 The numabind Authors. SPDX-License-Identifier: Apache-2.0
//
// Finding the real functions (shim/state/resolve.h): dlsym, and by hand through the loaded objects' ELF
// symbol tables where dlsym may not be called.

#include "shim/state/resolve.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>

#include "base/text.h"
#include "shim/state/state.h"

namespace numabind::shim {
namespace {

void* Next(const char* name);

template <typename T>
void Resolve(T* slot, const char* name) {
  *slot = reinterpret_cast<T>(Next(name));
}

/// One dlsym per real function of wrapped.def but the lazy ones (their wrappers find them).
void ResolveAll() {
#define NUMABIND_ENTRY(symbol, id, ret, params) Resolve(NUMABIND_SLOT(symbol));
#define NUMABIND_ENTRY_ONLY(symbol, id)
#define NUMABIND_EXPORT_ONLY(symbol, ret, params) Resolve(NUMABIND_SLOT(symbol));
#define NUMABIND_EXPORT_LAZY(symbol, ret, params)
#define NUMABIND_EXPORT_SPECIAL(symbol) Resolve(&numabind_real_##symbol, #symbol);
#define NUMABIND_EXPORT_EXIT(symbol)
#include "shim/state/wrapped.def"
}

/// ResolveSafe's question, and where it stands in the walk over the loaded objects.
struct NextQuery {
  const char* name;
  uintptr_t self;  ///< an address inside this library
  bool past_self;
  void* found;
  /// The second walk, for a library loaded with dlopen (nothing after it): every object but this one.
  bool any_but_self = false;
};

/// Whether `addr` lies in one of `info`'s loaded segments.
bool Contains(const dl_phdr_info* info, uintptr_t addr) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && addr >= start && addr - start < ph.p_memsz) return true;
  }
  return false;
}

/// `name`'s address in one object when it defines it as a function of its default version, or nullptr.
/// Reads the object's dynamic symbol table through its GNU hash table (or its System V one).
void* DefinedIn(const dl_phdr_info* info, const char* name) {
  const ElfW(Dyn)* dyn = nullptr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  }
  if (dyn == nullptr) return nullptr;
  // glibc has relocated the entries in place, musl (and glibc for the vDSO) has not.
  auto at = [&](ElfW(Addr) p) { return p < info->dlpi_addr ? info->dlpi_addr + p : p; };
  const ElfW(Sym)* syms = nullptr;
  const char* strs = nullptr;
  const uint32_t* gnu = nullptr;
  const uint32_t* sysv = nullptr;
  const ElfW(Half)* versym = nullptr;
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    ElfW(Addr) p = dyn->d_un.d_ptr;
    if (dyn->d_tag == DT_SYMTAB) syms = reinterpret_cast<const ElfW(Sym)*>(at(p));
    if (dyn->d_tag == DT_STRTAB) strs = reinterpret_cast<const char*>(at(p));
    if (dyn->d_tag == DT_GNU_HASH) gnu = reinterpret_cast<const uint32_t*>(at(p));
    if (dyn->d_tag == DT_HASH) sysv = reinterpret_cast<const uint32_t*>(at(p));
    if (dyn->d_tag == DT_VERSYM) versym = reinterpret_cast<const ElfW(Half)*>(at(p));
  }
  if (syms == nullptr || strs == nullptr) return nullptr;
  auto match = [&](uint32_t i) -> void* {
    const ElfW(Sym)& s = syms[i];
    int type = ELF64_ST_TYPE(s.st_info), bind = ELF64_ST_BIND(s.st_info);
    if (s.st_shndx == SHN_UNDEF || s.st_value == 0 || type != STT_FUNC) return nullptr;  // not ifuncs
    if (bind != STB_GLOBAL && bind != STB_WEAK) return nullptr;
    // 0: local; the hidden bit: an older version kept for old binaries (name@VERSION, not name@@VERSION).
    if (versym != nullptr && ((versym[i] & 0x8000) != 0 || (versym[i] & 0x7fff) == 0)) return nullptr;
    if (!base::StrEq(name, strs + s.st_name)) return nullptr;
    return reinterpret_cast<void*>(info->dlpi_addr + s.st_value);
  };
  if (gnu != nullptr) {
    uint32_t h = 5381;
    for (const char* c = name; *c != '\0'; ++c) h = h * 33 + static_cast<unsigned char>(*c);
    uint32_t nbuckets = gnu[0], symoffset = gnu[1], bloom_words = gnu[2], shift = gnu[3];
    const ElfW(Addr)* bloom = reinterpret_cast<const ElfW(Addr)*>(gnu + 4);
    const uint32_t* buckets = reinterpret_cast<const uint32_t*>(bloom + bloom_words);
    const uint32_t* chain = buckets + nbuckets;
    constexpr uint32_t kBits = sizeof(ElfW(Addr)) * 8;
    if (nbuckets == 0 || bloom_words == 0) return nullptr;
    ElfW(Addr) word = bloom[(h / kBits) % bloom_words];
    ElfW(Addr) mask = (ElfW(Addr){1} << (h % kBits)) | (ElfW(Addr){1} << ((h >> shift) % kBits));
    if ((word & mask) != mask) return nullptr;
    for (uint32_t i = buckets[h % nbuckets]; i >= symoffset && i != 0; ++i) {
      uint32_t hi = chain[i - symoffset];
      if ((hi | 1) == (h | 1)) {
        if (void* f = match(i)) return f;
      }
      if ((hi & 1) != 0) break;
    }
    return nullptr;
  }
  if (sysv != nullptr && sysv[0] != 0) {
    uint32_t h = 0;
    for (const char* c = name; *c != '\0'; ++c) {
      h = (h << 4) + static_cast<unsigned char>(*c);
      h ^= (h >> 24) & 0xf0;
      h &= 0x0fffffff;
    }
    const uint32_t* bucket = sysv + 2;
    const uint32_t* chain = bucket + sysv[0];
    for (uint32_t i = bucket[h % sysv[0]]; i != 0 && i < sysv[1]; i = chain[i]) {
      if (void* f = match(i)) return f;
    }
  }
  return nullptr;
}

/// dl_iterate_phdr's callback: the objects after this library, in load order (RTLD_NEXT's order).
/// With any_but_self, every object but this library, in load order (RTLD_DEFAULT's order less itself).
int NextDefinition(dl_phdr_info* info, size_t, void* data) {
  NextQuery* q = static_cast<NextQuery*>(data);
  if (Contains(info, q->self)) {
    q->past_self = true;
    return 0;
  }
  if (!q->past_self && !q->any_but_self) return 0;
  q->found = DefinedIn(info, q->name);
  return q->found != nullptr ? 1 : 0;
}

/// dl_iterate_phdr's callback for InSelf: whether q->found is in this library's object.
int FindSelf(dl_phdr_info* info, size_t, void* data) {
  NextQuery* q = static_cast<NextQuery*>(data);
  if (!Contains(info, q->self)) return 0;
  q->past_self = Contains(info, reinterpret_cast<uintptr_t>(q->found));
  return 1;
}

/// Whether `f` is this library's own definition.
bool InSelf(void* f) {
  NextQuery q{nullptr, reinterpret_cast<uintptr_t>(&g_real), false, f};
  dl_iterate_phdr(FindSelf, &q);
  return q.past_self;
}

/// The C library's `name` after this library: RTLD_NEXT. Loaded with dlopen, nothing comes after it in the
/// lookup order (RTLD_NEXT finds nothing: every wrapper returned ENOSYS, system called address 0), so the
/// global scope's definition is taken then, unless it is this library's own (preloaded, it would be).
void* Next(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f != nullptr) return f;
  f = dlsym(RTLD_DEFAULT, name);
  return f != nullptr && !InSelf(f) ? f : nullptr;
}

}  // namespace

void* ResolveOne(const char* name) {
  int e = errno;
  void* f = Next(name);
  errno = e;
  return f;
}

void* ResolveSafe(const char* name) {
  NextQuery q{name, reinterpret_cast<uintptr_t>(&g_real), false, nullptr};
  dl_iterate_phdr(NextDefinition, &q);
  if (q.found == nullptr) {  // loaded with dlopen: nothing after this library
    q.any_but_self = true;
    dl_iterate_phdr(NextDefinition, &q);
  }
  return q.found != nullptr ? q.found : ResolveOne(name);  // not found by hand (no symbol table?): dlsym
}

void EnsureResolved() {
  static bool resolved;  // plain bool: resolving twice at once writes the same values
  if (__atomic_load_n(&resolved, __ATOMIC_ACQUIRE)) return;
  int e = errno;
  ResolveAll();
  errno = e;
  __atomic_store_n(&resolved, true, __ATOMIC_RELEASE);
}

}  // namespace numabind::shim
