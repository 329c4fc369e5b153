// Names of the OpenACC tools interface's event kinds and construct kinds, as OpenACC users know them from nvprof and the specification.
#include "core/records.h"

namespace cuptitrace {

const char* openAccTypeName(uint8_t type) {
  switch (static_cast<OpenAccType>(type)) {
    case OpenAccType::Data: return "data";
    case OpenAccType::Launch: return "launch";
    case OpenAccType::Other: return "other";
  }
  return "unknown";
}

const char* openAccEventName(uint8_t event) {
  switch (static_cast<OpenAccEvent>(event)) {
    case OpenAccEvent::DeviceInit: return "acc_device_init";
    case OpenAccEvent::DeviceShutdown: return "acc_device_shutdown";
    case OpenAccEvent::RuntimeShutdown: return "acc_runtime_shutdown";
    case OpenAccEvent::EnqueueLaunch: return "acc_enqueue_launch";
    case OpenAccEvent::EnqueueUpload: return "acc_enqueue_upload";
    case OpenAccEvent::EnqueueDownload: return "acc_enqueue_download";
    case OpenAccEvent::Wait: return "acc_wait";
    case OpenAccEvent::ImplicitWait: return "acc_implicit_wait";
    case OpenAccEvent::ComputeConstruct: return "acc_compute_construct";
    case OpenAccEvent::Update: return "acc_update";
    case OpenAccEvent::EnterData: return "acc_enter_data";
    case OpenAccEvent::ExitData: return "acc_exit_data";
    case OpenAccEvent::Create: return "acc_create";
    case OpenAccEvent::Delete: return "acc_delete";
    case OpenAccEvent::Alloc: return "acc_alloc";
    case OpenAccEvent::Free: return "acc_free";
    case OpenAccEvent::Invalid: break;
  }
  return "acc_unknown";
}

const char* openAccConstructName(uint8_t construct) {
  switch (construct) {
    case 1: return "parallel";
    case 2: return "kernels";
    case 3: return "loop";
    case 4: return "data";
    case 5: return "enter data";
    case 6: return "exit data";
    case 7: return "host_data";
    case 8: return "atomic";
    case 9: return "declare";
    case 10: return "init";
    case 11: return "shutdown";
    case 12: return "set";
    case 13: return "update";
    case 14: return "routine";
    case 15: return "wait";
    case 16: return "runtime api";
    default: return "";
  }
}

}  // namespace cuptitrace
