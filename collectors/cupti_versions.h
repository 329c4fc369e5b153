// The one place that names the CUPTI record struct versions we read.
// CUPTI 13.0 (CUPTI_API_VERSION 130001). When a newer toolkit adds a version,
// change the alias here and the decoder's field reads if needed, and the
// table of releases that write these layouts (cupti_layouts.cpp): the loaded
// libcupti is checked against it at start.
#pragma once

#include <cupti.h>

namespace cuptitrace::cupti {

using KernelActivity = CUpti_ActivityKernel10;
using MemcpyActivity = CUpti_ActivityMemcpy6;
using MemcpyPtoPActivity = CUpti_ActivityMemcpyPtoP4;
using MemsetActivity = CUpti_ActivityMemset4;
using ApiActivity = CUpti_ActivityAPI;
using SyncActivity = CUpti_ActivitySynchronization2;
using OverheadActivity = CUpti_ActivityOverhead3;
using DeviceActivity = CUpti_ActivityDevice5;
using ContextActivity = CUpti_ActivityContext3;
using NameActivity = CUpti_ActivityName;
using MemoryActivity = CUpti_ActivityMemory4;                  // CUPTI_ACTIVITY_KIND_MEMORY2
using MemoryPoolActivity = CUpti_ActivityMemoryPool3;          // CUPTI_ACTIVITY_KIND_MEMORY_POOL
using UvmActivity = CUpti_ActivityUnifiedMemoryCounter3;       // CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER
using GraphActivity = CUpti_ActivityGraphTrace2;               // CUPTI_ACTIVITY_KIND_GRAPH_TRACE
using ExternalCorrelationActivity = CUpti_ActivityExternalCorrelation;  // CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION
using OpenAccDataActivity = CUpti_ActivityOpenAccData;         // CUPTI_ACTIVITY_KIND_OPENACC_DATA
using OpenAccLaunchActivity = CUpti_ActivityOpenAccLaunch;     // CUPTI_ACTIVITY_KIND_OPENACC_LAUNCH
using OpenAccOtherActivity = CUpti_ActivityOpenAccOther;       // CUPTI_ACTIVITY_KIND_OPENACC_OTHER

}  // namespace cuptitrace::cupti
