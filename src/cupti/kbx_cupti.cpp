// libkbx_cupti: the GPU kernel inventory, gathered by CUPTI's activity API inside a kbx worker.
//
// The worker loads this library (ctypes) before any submission code runs and calls kbx_cupti_start
// with the path of a libcupti it found. From then on CUPTI writes a record for every kernel that
// runs on the GPU, on any stream or thread, with its name and device timestamps. Launches made
// inside the worker's Triton launch hook are tagged by an external correlation id (kind CUSTOM0),
// the worker's own L2 flushes by another (CUSTOM1), so each kernel is known as Triton's,
// the harness's or anything else's (PyTorch, cuBLAS, a library) without trusting names.
//
// libcupti is opened with dlopen, so this library needs nothing at link time beyond libc and works
// on machines without CUDA (kbx_cupti_start then fails with a message). The plain C interface keeps
// ctypes simple; every function is safe to call before or after a failed start.
#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

namespace {

constexpr std::size_t buffer_bytes = 4u << 20;
constexpr std::size_t max_records = 1u << 22;  // a runaway candidate cannot exhaust memory here

struct KernelRecord {
  const char* name;  // owned by CUPTI for the life of the process
  std::uint64_t start;
  std::uint64_t end;
  std::uint32_t stream;
  std::uint32_t correlation;
  std::uint32_t graph;
};

struct Api {
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityDisable) disable = nullptr;
  decltype(&cuptiFinalize) finalize = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) next_record = nullptr;
  decltype(&cuptiActivityPushExternalCorrelationId) push = nullptr;
  decltype(&cuptiActivityPopExternalCorrelationId) pop = nullptr;
  decltype(&cuptiGetTimestamp) timestamp = nullptr;
  decltype(&cuptiGetResultString) result_string = nullptr;
};

std::mutex mutex;  // guards everything below; CUPTI calls buffer_completed from its own thread
Api api;
bool started = false;
std::mutex toggle_mutex;  // serialises kbx_cupti_record
std::atomic<bool> recording{false};  // attached and recording (push, pop, flush only then)
bool with_api_records = false;
std::string error = "kbx_cupti_start was not called";
std::vector<KernelRecord> kernels;
std::unordered_set<std::uint32_t> triton_correlations;
std::unordered_set<std::uint32_t> harness_correlations;
std::uint64_t dropped = 0;  // records CUPTI dropped or this library refused (max_records)

template <typename F>
bool resolve(void* lib, const char* symbol, F& out) {
  out = reinterpret_cast<F>(dlsym(lib, symbol));
  if (out == nullptr) {
    error = std::string("libcupti has no ") + symbol;
    return false;
  }
  return true;
}

std::string describe(CUptiResult r) {
  const char* text = nullptr;
  if (api.result_string != nullptr) {
    api.result_string(r, &text);
  }
  return text != nullptr ? text : "CUPTI error " + std::to_string(static_cast<int>(r));
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records_out) {
  void* p = nullptr;
  if (posix_memalign(&p, 8, buffer_bytes) != 0) {
    p = nullptr;
  }
  *buffer = static_cast<std::uint8_t*>(p);
  *size = p != nullptr ? buffer_bytes : 0;
  *max_records_out = 0;
}

void CUPTIAPI buffer_completed(CUcontext /*ctx*/, std::uint32_t stream_id, std::uint8_t* buffer,
                               std::size_t /*size*/, std::size_t valid) {
  (void)stream_id;
  std::lock_guard<std::mutex> lock(mutex);
  CUpti_Activity* record = nullptr;
  while (api.next_record != nullptr &&
         api.next_record(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      if (kernels.size() >= max_records) {
        ++dropped;
        continue;
      }
      kernels.push_back(KernelRecord{k->name, k->start, k->end, k->streamId, k->correlationId,
                                     k->graphId});
    } else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
      const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
      if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) {
        triton_correlations.insert(e->correlationId);
      } else if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1) {
        harness_correlations.insert(e->correlationId);
      }
    }
  }
  free(buffer);
}

/// The activity kinds kbx records: kernels and the external correlations that tag them, plus
/// runtime and driver API records where CUPTI emits correlations only alongside those.
std::vector<CUpti_ActivityKind> activity_kinds() {
  std::vector<CUpti_ActivityKind> kinds = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                           CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
  if (with_api_records) {
    kinds.push_back(CUPTI_ACTIVITY_KIND_RUNTIME);
    kinds.push_back(CUPTI_ACTIVITY_KIND_DRIVER);
  }
  return kinds;
}

/// Registers the buffer callbacks and enables activity_kinds(): at start, and to attach again.
CUptiResult attach() {
  CUptiResult r = api.register_callbacks(buffer_requested, buffer_completed);
  for (auto kind : activity_kinds()) {
    if (r == CUPTI_SUCCESS) {
      r = api.enable(kind);
    }
  }
  return r;
}

}  // namespace

extern "C" {

/// Opens `libcupti_path` and starts recording kernels and external correlations. 0 on success;
/// otherwise -1 and kbx_cupti_error() says why. Starting twice is a no-op. `api_records` also
/// enables runtime and driver API records (dropped here), for CUPTI versions that emit external
/// correlations only alongside them.
int kbx_cupti_start(const char* libcupti_path, int api_records) {
  std::lock_guard<std::mutex> lock(mutex);
  if (started) {
    return 0;
  }
  void* lib = dlopen(libcupti_path, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    error = std::string("cannot open ") + libcupti_path + ": " + (why != nullptr ? why : "?");
    return -1;
  }
  Api a;
  if (!resolve(lib, "cuptiActivityRegisterCallbacks", a.register_callbacks) ||
      !resolve(lib, "cuptiActivityEnable", a.enable) ||
      !resolve(lib, "cuptiActivityDisable", a.disable) ||
      !resolve(lib, "cuptiFinalize", a.finalize) ||
      !resolve(lib, "cuptiActivityFlushAll", a.flush_all) ||
      !resolve(lib, "cuptiActivityGetNextRecord", a.next_record) ||
      !resolve(lib, "cuptiActivityPushExternalCorrelationId", a.push) ||
      !resolve(lib, "cuptiActivityPopExternalCorrelationId", a.pop) ||
      !resolve(lib, "cuptiGetTimestamp", a.timestamp) ||
      !resolve(lib, "cuptiGetResultString", a.result_string)) {
    return -1;
  }
  api = a;
  with_api_records = api_records != 0;
  CUptiResult r = attach();
  if (r != CUPTI_SUCCESS) {
    error = "CUPTI activity: " + describe(r);
    return -1;
  }
  started = true;
  recording = true;
  error.clear();
  return 0;
}

/// Pauses (on = 0) or resumes (on = 1) recording. CUPTI attached to a process slows every launch
/// by tens of microseconds and every synchronisation by more (measured on an H200), even with its
/// activity kinds disabled, so pausing detaches CUPTI from the process (cuptiFinalize, after a
/// flush; call with the device synchronised) and resuming attaches it again. While paused, push,
/// pop, flush and the timestamp do nothing (any CUPTI call would attach it again). 0 on success
/// (also when already in that state); -1 otherwise.
int kbx_cupti_record(int on) {
  // Not `mutex`: CUPTI delivers buffers (buffer_completed takes it) inside flush and finalize.
  std::lock_guard<std::mutex> lock(toggle_mutex);
  if (!started) {
    return -1;
  }
  if ((on != 0) == recording.load()) {
    return 0;
  }
  CUptiResult r = CUPTI_SUCCESS;
  if (on == 0) {
    recording = false;
    for (auto kind : activity_kinds()) {
      if (r == CUPTI_SUCCESS) {
        r = api.disable(kind);
      }
    }
    if (r == CUPTI_SUCCESS) {
      r = api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    }
    if (r == CUPTI_SUCCESS) {
      r = api.finalize();
    }
  } else {
    r = attach();
    recording = r == CUPTI_SUCCESS;
  }
  if (r != CUPTI_SUCCESS) {
    error = std::string("CUPTI ") + (on != 0 ? "attach: " : "detach: ") + describe(r);
    return -1;
  }
  return 0;
}

/// Why the last call failed (empty when it did not).
const char* kbx_cupti_error(void) { return error.c_str(); }

/// Tags the launches this thread makes until the matching pop: 1 = Triton, 2 = the harness.
int kbx_cupti_push(int tag) {
  if (!started) {
    return -1;
  }
  if (!recording) {
    return 0;
  }
  auto kind = tag == 1 ? CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 : CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1;
  return api.push(kind, static_cast<std::uint64_t>(tag)) == CUPTI_SUCCESS ? 0 : -1;
}

int kbx_cupti_pop(int tag) {
  if (!started) {
    return -1;
  }
  if (!recording) {
    return 0;
  }
  auto kind = tag == 1 ? CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 : CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1;
  std::uint64_t id = 0;
  return api.pop(kind, &id) == CUPTI_SUCCESS ? 0 : -1;
}

/// Delivers every finished record (call after the device is synchronised). 0 on success.
int kbx_cupti_flush(void) {
  if (!started) {
    return -1;
  }
  if (!recording) {
    return 0;  // detached: everything was delivered when it detached
  }
  CUptiResult r = api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  return r == CUPTI_SUCCESS ? 0 : -1;
}

/// CUPTI's clock (ns), the one kernel start and end times are on.
std::uint64_t kbx_cupti_timestamp(void) {
  std::uint64_t t = 0;
  if (started && recording) {
    api.timestamp(&t);
  }
  return t;
}

/// Forgets every record gathered so far.
void kbx_cupti_clear(void) {
  std::lock_guard<std::mutex> lock(mutex);
  kernels.clear();
  triton_correlations.clear();
  harness_correlations.clear();
  dropped = 0;
}

/// Records gathered since the last clear.
std::size_t kbx_cupti_count(void) {
  std::lock_guard<std::mutex> lock(mutex);
  return kernels.size();
}

std::uint64_t kbx_cupti_dropped(void) {
  std::lock_guard<std::mutex> lock(mutex);
  return dropped;
}

/// Record i: name (valid for the life of the process), start and end (ns), stream, graph id, and
/// origin (1 Triton, 2 harness, 0 anything else). -1 when i is out of range.
int kbx_cupti_get(std::size_t i, const char** name, std::uint64_t* start, std::uint64_t* end,
                  std::uint32_t* stream, std::uint32_t* graph, int* origin) {
  std::lock_guard<std::mutex> lock(mutex);
  if (i >= kernels.size()) {
    return -1;
  }
  const KernelRecord& k = kernels[i];
  *name = k.name != nullptr ? k.name : "";
  *start = k.start;
  *end = k.end;
  *stream = k.stream;
  *graph = k.graph;
  *origin = triton_correlations.count(k.correlation) != 0   ? 1
            : harness_correlations.count(k.correlation) != 0 ? 2
                                                             : 0;
  return 0;
}

}  // extern "C"
