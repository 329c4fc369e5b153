// Traces for the HTML report's browser tests, built by hand (no GPU):
//   html_fixtures cpp PATH.native       a C++ CUDA program: an iterative solver's
//                                       copies, kernels (one on Tensor Cores), sets,
//                                       API calls, NVTX ranges and memory; no PyTorch
//   html_fixtures pytorch PATH.native   a PyTorch training loop of 8 steps as --pytorch shapes
//                                       records it: operators with input shapes, backward
//                                       nodes, the optimizer, the data loader, Tensor Cores
//   html_fixtures metrics PATH.native   GPU metrics sampled at 10 kHz while four kernels
//                                       of known character run (tests/unit's fixture)
//   html_fixtures launch-loop N PATH.html
//                                       N records of a launch loop (kernels and their
//                                       launches) in memory, the page written from them:
//                                       prints the page's size and the seconds it took
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "exporters/html/html_report.h"
#include "exporters/native/native.h"
#include "gpu_metrics_fixture.h"
#include "memory_fixture.h"

namespace {

using namespace cuptitrace;

void device(Trace& t) {
  DeviceInfo d{0, "NVIDIA H100 80GB HBM3", 9, 0, 132, 80ull << 30, 1980000, "GPU-5e1f"};
  d.threadsPerWarp = 32;
  d.maxWarpsPerSm = 64;
  d.maxBlocksPerSm = 32;
  d.registersPerSm = 65536;
  d.registersPerBlock = 65536;
  d.sharedMemoryPerSm = 233472;
  d.sharedMemoryPerBlock = 49152;
  d.maxThreadsPerBlock = 1024;
  t.devices.push_back(d);
  t.contexts.push_back({1, 0, 7});
}

// What the tracer writes about the run.
void runFacts(Trace& t, uint32_t pid, const char* process, const char* command, uint64_t base) {
  t.meta.toolVersion = "fixture";
  t.meta.hostName = "node17";
  t.meta.pid = pid;
  t.meta.processName = process;
  t.meta.commandLine = command;
  t.meta.baseTimestampNs = t.meta.startTimestampNs = base;
  t.meta.startRealtimeNs = 1'764'300'000'000'000'000ull;
  t.meta.cuptiVersion = 130001;
  t.meta.driverVersion = 13000;
}

void api(Trace& t, uint64_t s, uint64_t e, const char* name, uint32_t corr, uint32_t tid = 5150) {
  ApiRecord r{};
  r.start = s;
  r.end = e;
  r.name = t.strings.intern(name);
  r.correlationId = corr;
  r.threadId = tid;
  r.domain = static_cast<uint8_t>(ApiDomain::Runtime);
  t.store.add(r);
}

void kernel(Trace& t, uint64_t s, uint64_t e, const char* name, uint32_t corr, uint32_t grid, uint32_t block) {
  KernelRecord k{};
  k.start = s;
  k.end = e;
  k.name = t.strings.intern(name);
  k.correlationId = corr;
  k.contextId = 1;
  k.streamId = 7;
  k.gridX = grid;
  k.gridY = k.gridZ = 1;
  k.blockX = block;
  k.blockY = k.blockZ = 1;
  k.registersPerThread = 64;
  k.staticSharedMemory = 8192;
  t.store.add(k);
}

void copy(Trace& t, uint64_t s, uint64_t e, CopyKind kind, uint64_t bytes, uint32_t corr) {
  MemcpyRecord m{};
  m.start = s;
  m.end = e;
  m.bytes = bytes;
  m.correlationId = corr;
  m.contextId = 1;
  m.streamId = 7;
  m.copyKind = static_cast<uint8_t>(kind);
  const bool toDevice = kind == CopyKind::HtoD;
  m.srcKind = static_cast<uint8_t>(toDevice ? MemoryKind::Pinned : MemoryKind::Device);
  m.dstKind = static_cast<uint8_t>(toDevice ? MemoryKind::Device : MemoryKind::Pinned);
  t.store.add(m);
}

void range(Trace& t, uint64_t s, uint64_t e, const std::string& message, uint32_t depth, uint32_t tid = 5150) {
  NvtxRecord n{};
  n.type = static_cast<uint8_t>(NvtxType::PushPop);
  n.threadId = n.endThreadId = tid;
  n.start = s;
  n.end = e;
  n.message = t.strings.intern(message);
  n.depth = depth;
  t.store.add(n);
}

// 40 iterations of: upload, three kernels, a set, a download; NVTX ranges
// around each iteration and its solve; buffers allocated before and a
// scratch buffer that grows every ten iterations.
void cppTrace(Trace& t) {
  const uint64_t b = 2'000'000'000ull;
  runFacts(t, 5150, "jacobi_solver", "./jacobi_solver --grid 4096 --iterations 40", b);
  device(t);
  uint32_t corr = 1;
  uint64_t ts = b + 1'000'000;
  for (int i = 0; i < 4; ++i, ts += 40'000) {
    api(t, ts, ts + 30'000, "cudaMalloc", corr);
    testing::addAllocation(t, ts + 20'000, 0x7f0000000000ull + (uint64_t(i) << 32), 256ull << 20, 0,
                           MemoryKind::Device, corr++);
  }
  for (int it = 0; it < 40; ++it) {
    const uint64_t start = ts;
    if (it % 10 == 0) {
      api(t, ts, ts + 25'000, "cudaMalloc", corr);
      testing::addAllocation(t, ts + 10'000, 0x7f8000000000ull + (uint64_t(it) << 32), (64ull << 20) * (1 + it / 10), 0,
                             MemoryKind::Device, corr++);
      ts += 30'000;
    }
    api(t, ts, ts + 60'000, "cudaMemcpy", corr);
    copy(t, ts + 5'000, ts + 55'000, CopyKind::HtoD, 16ull << 20, corr++);
    ts += 62'000;
    const uint64_t solve = ts;
    const struct { const char* name; uint64_t ns; uint32_t grid, block; } ks[] = {
        {"_Z13jacobi_updatePKfPfii", 180000u + 3000u * static_cast<uint64_t>(it % 5), 4096, 256},
        {"sm90_xmma_gemm_f16f16_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel", 95'000, 264, 384},
        {"_Z16residual_reducePKfPfi", 40'000, 120, 1024}};
    uint64_t gpu = ts + 6'000;
    for (const auto& k : ks) {
      api(t, ts, ts + 4'000, "cudaLaunchKernel", corr);
      kernel(t, gpu, gpu + k.ns, k.name, corr++, k.grid, k.block);
      gpu += k.ns + 2'000;
      ts += 5'000;
    }
    api(t, ts, ts + 3'000, "cudaMemsetAsync", corr);
    MemsetRecord ms{};
    ms.start = gpu;
    ms.end = gpu + 8'000;
    ms.bytes = 4 << 20;
    ms.correlationId = corr++;
    ms.contextId = 1;
    ms.streamId = 7;
    ms.memoryKind = static_cast<uint8_t>(MemoryKind::Device);
    t.store.add(ms);
    gpu += 10'000;
    ts += 4'000;
    api(t, ts, gpu + 2'000, "cudaDeviceSynchronize", corr++);
    ts = gpu + 3'000;
    range(t, solve, ts, "solve", 1);
    api(t, ts, ts + 30'000, "cudaMemcpy", corr);
    copy(t, ts + 4'000, ts + 26'000, CopyKind::DtoH, 4ull << 20, corr++);
    ts += 32'000;
    range(t, start, ts, "iteration " + std::to_string(it), 0);
    ts += 20'000;  // the host checks the residual
  }
  for (int i = 0; i < 4; ++i, ts += 20'000) {
    api(t, ts, ts + 15'000, "cudaFree", corr);
    testing::addFree(t, ts + 5'000, 0x7f0000000000ull + (uint64_t(i) << 32), 256ull << 20, 0, MemoryKind::Device, corr++);
  }
  t.meta.endTimestampNs = ts;
}

// A PyTorch training loop as --pytorch shapes records it: operators as NVTX
// ranges (with sequence numbers and input shapes), their kernels launched
// inside them, backward nodes on the autograd thread, the optimizer's step
// and the data loader, in ProfilerStep#N ranges.
struct TorchLoop {
  Trace& t;
  uint64_t cpu, gpu;
  uint32_t corr = 1, depth = 0, tid = 4100;

  template <typename F>
  void op(const std::string& text, uint64_t selfNs, F&& inner) {
    const uint64_t start = cpu;
    cpu += selfNs / 2;
    ++depth;
    inner();
    --depth;
    cpu += selfNs - selfNs / 2;
    range(t, start, cpu, text, depth, tid);
  }
  void op(const std::string& text, uint64_t selfNs) {
    op(text, selfNs, [] {});
  }
  void launch(const char* name, uint64_t ns, uint32_t grid, uint32_t block) {
    api(t, cpu, cpu + 5'000, "cudaLaunchKernel", corr, tid);
    gpu = std::max(gpu, cpu + 9'000);
    kernel(t, gpu, gpu + ns, name, corr++, grid, block);
    gpu += ns + 1'500;
    cpu += 6'000;
  }
  void upload(uint64_t bytes) {
    api(t, cpu, cpu + 12'000, "cudaMemcpyAsync", corr, tid);
    gpu = std::max(gpu, cpu + 4'000);
    copy(t, gpu, gpu + 2'000 + bytes / 25'000, CopyKind::HtoD, bytes, corr++);
    gpu += 3'000 + bytes / 25'000;
    cpu += 13'000;
  }
};

void torchTrace(Trace& t) {
  const uint64_t b = 3'000'000'000ull;
  runFacts(t, 4100, "python3", "python3 train_cnn.py --epochs 1 --batch-size 64", b);
  t.meta.config = {{"CUPTITRACE_PYTORCH", "shapes"}};
  device(t);
  TorchLoop L{t, b + 2'000'000, b + 2'000'000};
  const char* conv = "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x32x32_stage4_warpsize2x2x1_g1_tensor16x8x8_kernel";
  const char* wgrad = "sm80_xmma_wgrad_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x64x32_kernel";
  const char* gemm = "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize64x64x32_warpgroupsize1x1x1_kernel";
  const char* relu = "void at::native::vectorized_elementwise_kernel<4, at::native::clamp_min_scalar_kernel_impl>(int, float*)";
  const char* add = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int, float*)";
  const char* loss = "void at::native::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float*, float*, float*, long*)";
  const char* softmax = "void at::native::cunn_SoftMaxForward<4, float, float, float, at::native::LogSoftMaxForwardEpilogue>(float*, float*, int)";
  const char* sgd = "void at::native::multi_tensor_apply_kernel<at::native::TensorListMetadata<3>, at::native::SgdFunctor<float, 3>>(float*)";
  const char* reduce = "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float>>>(float*)";
  for (int step = 0; step < 8; ++step) {
    const uint64_t stepStart = L.cpu;
    const int seq = 100 * step;
    L.op("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 900'000 + (step == 0 ? 4'000'000 : 0));
    L.op("aten::to, sizes = [[64, 3, 32, 32], [], [], [], []]", 20'000, [&] {
      L.op("aten::copy_, sizes = [[64, 3, 32, 32], [64, 3, 32, 32], []]", 15'000, [&] { L.upload(786432); });
    });
    for (int layer = 0; layer < 3; ++layer) {
      const std::string shapes = layer == 0 ? "[[64, 3, 32, 32], [32, 3, 3, 3], [32]]" : "[[64, 32, 32, 32], [32, 32, 3, 3], [32]]";
      L.op("aten::conv2d, seq = " + std::to_string(seq + layer) + ", sizes = " + shapes, 30'000, [&] {
        L.op("aten::convolution, seq = " + std::to_string(seq + layer) + ", sizes = " + shapes, 25'000, [&] {
          L.op("aten::cudnn_convolution, sizes = " + shapes, 60'000, [&] { L.launch(conv, 160'000 + 40'000 * layer, 512, 128); });
        });
      });
      L.op("aten::relu, seq = " + std::to_string(seq + 10 + layer) + ", sizes = [[64, 32, 32, 32]]", 20'000, [&] {
        L.op("aten::clamp_min, sizes = [[64, 32, 32, 32], []]", 12'000, [&] { L.launch(relu, 22'000, 2048, 512); });
      });
    }
    L.op("aten::mean, sizes = [[64, 32, 32, 32], [], [], []]", 14'000, [&] { L.launch(reduce, 18'000, 64, 512); });
    L.op("aten::linear, seq = " + std::to_string(seq + 20) + ", sizes = [[64, 32], [10, 32], [10]]", 20'000, [&] {
      L.op("aten::addmm, seq = " + std::to_string(seq + 20) + ", sizes = [[10], [64, 32], [32, 10], [], []]", 25'000,
           [&] { L.launch(gemm, 12'000, 4, 128); });
    });
    L.op("aten::cross_entropy_loss, seq = " + std::to_string(seq + 21) + ", sizes = [[64, 10], [64], [], [], [], []]", 15'000, [&] {
      L.op("aten::log_softmax, sizes = [[64, 10], [], []]", 10'000, [&] { L.launch(softmax, 6'000, 64, 128); });
      L.op("aten::nll_loss_nd, sizes = [[64, 10], [64], [], [], []]", 10'000, [&] { L.launch(loss, 5'000, 1, 32); });
    });
    // Backward, on the autograd engine's thread.
    const uint32_t mainThread = L.tid;
    L.tid = 4107;
    L.op("autograd::engine::evaluate_function: AddmmBackward0", 12'000, [&] {
      L.op("AddmmBackward0, seq = " + std::to_string(seq + 20), 10'000, [&] {
        L.op("aten::mm, sizes = [[64, 10], [10, 32]]", 15'000, [&] { L.launch(gemm, 11'000, 4, 128); });
      });
    });
    for (int layer = 2; layer >= 0; --layer) {
      L.op("autograd::engine::evaluate_function: ReluBackward0", 8'000, [&] {
        L.op("ReluBackward0, seq = " + std::to_string(seq + 10 + layer), 8'000, [&] {
          L.op("aten::threshold_backward, sizes = [[64, 32, 32, 32], [64, 32, 32, 32], []]", 10'000,
               [&] { L.launch(relu, 24'000, 2048, 512); });
        });
      });
      L.op("autograd::engine::evaluate_function: ConvolutionBackward0", 10'000, [&] {
        L.op("ConvolutionBackward0, seq = " + std::to_string(seq + layer), 10'000, [&] {
          L.op("aten::convolution_backward, sizes = [[64, 32, 32, 32], [64, 32, 32, 32], [32, 32, 3, 3]]", 40'000, [&] {
            L.launch(wgrad, 210'000 + 30'000 * layer, 256, 256);
            if (layer) L.launch(conv, 170'000, 512, 128);
          });
        });
      });
    }
    L.tid = mainThread;
    L.cpu = std::max(L.cpu, L.gpu - 400'000);
    L.op("Optimizer.step#SGD.step", 40'000, [&] {
      L.op("aten::_foreach_add_, sizes = [[], [], []]", 30'000, [&] { L.launch(sgd, 35'000, 40, 512); });
    });
    L.op("aten::add_, sizes = [[], [], []]", 9'000, [&] { L.launch(add, 2'500, 1, 32); });
    api(t, L.cpu, L.gpu + 3'000, "cudaStreamSynchronize", L.corr++, L.tid);
    L.cpu = L.gpu + 5'000;
    range(t, stepStart, L.cpu, "ProfilerStep#" + std::to_string(step), 0, L.tid);
    L.cpu += 30'000;
  }
  t.meta.endTimestampNs = L.cpu;
}

// A launch loop of `records` records: kernels and their cudaLaunchKernel calls.
void launchLoop(Trace& t, uint64_t records) {
  const uint64_t b = 1'000'000'000ull;
  t.meta.processName = "launch_loop";
  t.meta.commandLine = "./launch_loop";
  t.meta.baseTimestampNs = t.meta.startTimestampNs = b;
  device(t);
  uint64_t ts = b, gpu = b;
  for (uint32_t corr = 1; 2ull * corr <= records; ++corr) {
    api(t, ts, ts + 2'500, "cudaLaunchKernel", corr);
    gpu = std::max(gpu, ts + 4'000);
    kernel(t, gpu, gpu + 1'500 + (corr % 7) * 100, corr % 3 ? "_Z5emptyv" : "_Z4saxpyifPfS_", corr, 1, 32);
    gpu += 2'400 + (corr % 7) * 100;
    ts += 3'000;
  }
  t.meta.endTimestampNs = std::max(ts, gpu);
}

bool writeTrace(const Trace& t, const char* path) {
  std::ofstream out(path, std::ios::binary);
  writeNative(t, out);
  return static_cast<bool>(out.flush());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "cpp") == 0) {
    Trace t;
    cppTrace(t);
    return writeTrace(t, argv[2]) ? 0 : 1;
  }
  if (argc == 3 && std::strcmp(argv[1], "pytorch") == 0) {
    Trace t;
    torchTrace(t);
    return writeTrace(t, argv[2]) ? 0 : 1;
  }
  if (argc == 3 && std::strcmp(argv[1], "metrics") == 0) {
    Trace t;
    testing::gpuMetricsTrace(t);
    t.meta.commandLine = "./gpu_metrics_kernels";
    t.meta.hostName = "node17";
    return writeTrace(t, argv[2]) ? 0 : 1;
  }
  if (argc == 4 && std::strcmp(argv[1], "launch-loop") == 0) {
    Trace t;
    launchLoop(t, std::strtoull(argv[2], nullptr, 10));
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpuStart = std::clock();
    std::ofstream out(argv[3], std::ios::binary);
    HtmlOptions options;
    options.source = "launch_loop";
    writeHtmlReport(t, reportOptionsFromMetadata(t.meta), options, out);
    out.flush();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu = static_cast<double>(std::clock() - cpuStart) / CLOCKS_PER_SEC;
    // Wall and CPU seconds: on a loaded machine the first is stretched, the second not.
    std::printf("records %llu page_bytes %lld seconds %.3f cpu_seconds %.3f\n",
                static_cast<unsigned long long>(t.store.count(RecordKind::Kernel) + t.store.count(RecordKind::Api)),
                static_cast<long long>(out.tellp()), seconds, cpu);
    return out ? 0 : 1;
  }
  std::fprintf(stderr, "usage: html_fixtures cpp|pytorch|metrics PATH.native | launch-loop N PATH.html\n");
  return 2;
}
