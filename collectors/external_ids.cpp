#include "collectors/external_ids.h"

#include <cupti.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collectors/cupti_check.h"
#include "collectors/cupti_detach.h"

namespace cuptitrace {
namespace {

// Scope ids a thread takes at once from the shared counter.
constexpr uint64_t kScopeBlock = 1024;

std::atomic<uint64_t> gNextSerial{1};

struct ScopeIds {
  uint64_t owner = 0;
  uint64_t next = 0;
  uint64_t end = 0;
};
thread_local ScopeIds tScopeIds;

uint32_t currentThreadId() {
  thread_local const auto tid = static_cast<uint32_t>(::syscall(SYS_gettid));
  return tid;
}

uint64_t now() { return traceClockNs(); }

constexpr auto kIdKind = static_cast<CUpti_ExternalCorrelationKind>(ExternalKind::Id);
constexpr auto kScopeKind = static_cast<CUpti_ExternalCorrelationKind>(ExternalKind::Scope);
static_assert(kIdKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 &&
              kScopeKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1);

}  // namespace

ExternalIds::ExternalIds(NvtxRecorder& recorder, StringTable& strings)
    : recorder_(recorder),
      strings_(strings),
      domain_(strings.intern(kScopeNvtxDomain)),
      pythonDomain_(strings.intern(kPythonNvtxDomain)),
      serial_(gNextSerial.fetch_add(1)) {}

bool ExternalIds::enable() {
  // Once CUPTI is being detached, a call to it would attach it again.
  if (cuptiBarred()) return false;
  if (enabled_.load(std::memory_order_acquire)) return true;
  if (stopped_.load(std::memory_order_acquire)) return false;
  // Only programs that use the API pay for the records, from their first push.
  std::call_once(enableOnce_, [this] {
    if (CUPTI_CHECK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)) == CUPTI_SUCCESS)
      enabled_.store(true, std::memory_order_release);
  });
  return enabled_.load(std::memory_order_acquire);
}

PublicStatus ExternalIds::push(uint64_t id) {
  if (stopped_.load(std::memory_order_acquire) || cuptiBarred()) return PublicStatus::NotTraced;
  if (!enable()) return PublicStatus::Error;
  if (cuptiActivityPushExternalCorrelationId(kIdKind, id) != CUPTI_SUCCESS) {
    errors_.fetch_add(1, std::memory_order_relaxed);
    return PublicStatus::Error;
  }
  return PublicStatus::Ok;
}

PublicStatus ExternalIds::pop(uint64_t* id) {
  if (stopped_.load(std::memory_order_acquire) || cuptiBarred()) return PublicStatus::NotTraced;
  uint64_t last = 0;
  if (!enabled_.load(std::memory_order_acquire) ||
      cuptiActivityPopExternalCorrelationId(kIdKind, &last) != CUPTI_SUCCESS) {
    errors_.fetch_add(1, std::memory_order_relaxed);
    return PublicStatus::Error;
  }
  if (id != nullptr) *id = last;
  return PublicStatus::Ok;
}

uint64_t ExternalIds::pushScope(const char* name) {
  if (stopped_.load(std::memory_order_acquire)) return 0;
  ScopeIds& ids = tScopeIds;
  if (ids.owner != serial_ || ids.next == ids.end) {
    const uint64_t first = nextScopeBlock_.fetch_add(1, std::memory_order_relaxed) * kScopeBlock + 1;
    ids = {serial_, first, first + kScopeBlock};
  }
  const uint64_t id = ids.next++;
  NvtxAttributes a;
  a.message = strings_.intern(name);
  a.domain = domain_;
  a.payloadType = static_cast<uint8_t>(NvtxPayload::U64);
  a.payload = id;
  recorder_.push(currentThreadId(), now(), a);
  // The range is drawn even when CUPTI will not correlate (no API calls get the id).
  if (enable() && cuptiActivityPushExternalCorrelationId(kScopeKind, id) != CUPTI_SUCCESS)
    errors_.fetch_add(1, std::memory_order_relaxed);
  return id;
}

PublicStatus ExternalIds::popScope() {
  if (stopped_.load(std::memory_order_acquire)) return PublicStatus::NotTraced;
  PublicStatus status = PublicStatus::Ok;
  uint64_t last = 0;
  if (enabled_.load(std::memory_order_acquire) && !cuptiBarred() &&
      cuptiActivityPopExternalCorrelationId(kScopeKind, &last) != CUPTI_SUCCESS) {
    errors_.fetch_add(1, std::memory_order_relaxed);
    status = PublicStatus::Error;
  }
  recorder_.pop(currentThreadId(), now(), domain_);
  return status;
}

PublicStatus ExternalIds::pushPython(const char* frames) {
  if (stopped_.load(std::memory_order_acquire)) return PublicStatus::NotTraced;
  if (frames == nullptr) return PublicStatus::Error;
  NvtxAttributes a;
  a.message = strings_.intern(frames);
  a.domain = pythonDomain_;
  recorder_.push(currentThreadId(), now(), a);
  return PublicStatus::Ok;
}

PublicStatus ExternalIds::popPython() {
  if (stopped_.load(std::memory_order_acquire)) return PublicStatus::NotTraced;
  recorder_.pop(currentThreadId(), now(), pythonDomain_);
  return PublicStatus::Ok;
}

void ExternalIds::stop() {
  stopped_.store(true, std::memory_order_release);
  if (enabled_.load(std::memory_order_acquire) && !cuptiBarred())
    CUPTI_CHECK(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION));
}

void ExternalIds::publish(Trace& trace) const {
  const uint64_t errors = errors_.load(std::memory_order_relaxed);
  if (enabled_.load(std::memory_order_acquire) || errors != 0) trace.counters["external_ids.refused"] = errors;
}

}  // namespace cuptitrace
