// The emulated GPU's CUDA runtime (see tests/emu/cuda_runtime.h for the
// contract): one device, device memory = host memory (tracked, so copies
// check their direction and ASan sees every access), streams = one worker
// thread each running its queue in order, events = generation counters.
// Kernels (src/cuda/cuda_seam.h -> tests/emu/emu_device.h) run on the
// stream's worker through HIP-CPU. Never part of a library users build.
//
// Like a real driver, the runtime cannot be used in a child forked after
// the parent initialised it (any call at all initialises it): every call in
// such a child returns cudaErrorInitializationError. This is what made the
// GPU suites fail under Check's fork-per-test on a real GPU, and it
// shows the same way here.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "cuda_runtime.h"

cudaError_t nd_emu_enqueue_task(cudaStream_t s, std::function<void()> task);

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define ND_EMU_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define ND_EMU_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define ND_EMU_POISON(p, n) ((void)(p), (void)(n))
#define ND_EMU_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace {
using clk = std::chrono::steady_clock;

struct alloc_info {
    size_t n;
    bool device;                   // else pinned host
    bool managed;                  // cudaMallocManaged (device memory the host also addresses)
    nd_emu_mempool *pool;          // cudaMallocFromPoolAsync's pool, else NULL
    bool freeing;                  // cudaFreeAsync queued
};

// The registries are never destroyed (heap objects reachable from globals
// until the very end), so calls made during exit and LeakSanitizer's check
// after the static destructors still see them.
std::mutex &g_mu = *new std::mutex; // allocations, stream and event registries
std::map<uintptr_t, alloc_info> &g_allocs = *new std::map<uintptr_t, alloc_info>;
std::atomic<int> g_init{0};        // the runtime was used in this process
std::atomic<int> g_forked{0};      // ... and this is a child forked after that
std::atomic<int> g_shutdown{0};    // process exit: the runtime is unloading
std::atomic<int> g_sticky{0};      // a kernel faulted: every call fails from now on
thread_local cudaError_t tl_last = cudaSuccess;
thread_local int tl_device = 0;
size_t g_total_mem = 16ull << 30; // the emulated device's memory (host memory backs it)

void on_fork_child()
{
    if (g_init.load()) g_forked.store(1);
}

cudaError_t fail(cudaError_t e)
{
    if (e != cudaSuccess) tl_last = e;
    return e;
}

// Every entry point starts with this.
cudaError_t enter()
{
    if (!g_init.exchange(1)) pthread_atfork(nullptr, nullptr, on_fork_child);
    if (g_forked.load()) return fail(cudaErrorInitializationError);
    if (g_shutdown.load()) return fail(cudaErrorCudartUnloading);
    if (g_sticky.load()) return fail(cudaErrorLaunchFailure);
    return cudaSuccess;
}
#define ENTER()                        \
    do {                               \
        cudaError_t e0_ = enter();     \
        if (e0_ != cudaSuccess) return e0_; \
    } while (0)

} // namespace

// A captured operation: queues its work on the launch stream.
typedef std::function<cudaError_t(cudaStream_t)> nd_emu_node;

struct nd_emu_stream {
    std::mutex m;
    std::condition_variable cv;
    std::deque<std::function<void()>> q;
    uint64_t enq = 0, done = 0;
    bool stop = false, destroyed = false, started = false;
    pthread_t th;
    unsigned flags = 0;
    // stream capture (under m)
    bool capturing = false, cap_invalid = false;
    pthread_t cap_thread;
    uint64_t cap_id = 0;
    std::vector<nd_emu_node> cap_nodes;
};

struct nd_emu_graph {
    std::vector<nd_emu_node> nodes;
};
struct nd_emu_graph_exec {
    std::vector<nd_emu_node> nodes;
};

struct nd_emu_mempool {
    // a freed block kept for reuse (the release threshold keeps everything
    // until a trim); pending until its stream has reached the free
    struct cached {
        void *p;
        size_t n;           // the size it was allocated with
        cudaStream_t s;     // the stream of its cudaFreeAsync
        bool pending;
        uint64_t gen;
    };
    std::atomic<size_t> used{0}, used_high{0};
    size_t cached_bytes = 0; // under g_mu
    std::vector<cached> cache; // under g_mu
    uint64_t threshold = 0;
    bool destroyed = false;
};

struct nd_emu_event {
    std::mutex m;
    std::condition_variable cv;
    uint64_t recorded = 0, completed = 0;
    clk::time_point t{};
    unsigned flags = 0;
    uint64_t cap_id = 0; // its last record was in this capture (0: none)
};

namespace {
nd_emu_stream *g_default = nullptr;
std::set<nd_emu_stream *> &g_streams = *new std::set<nd_emu_stream *>; // live, the default one included
// destroyed streams: never freed, so a stale handle is never a live one
std::vector<nd_emu_stream *> &g_graveyard = *new std::vector<nd_emu_stream *>;
std::set<nd_emu_event *> &g_events = *new std::set<nd_emu_event *>; // live events
// destroyed events: never freed (a record still queued may complete later,
// and a stale handle is never a live one)
std::vector<nd_emu_event *> &g_event_graveyard = *new std::vector<nd_emu_event *>;

void *worker(void *arg)
{
    nd_emu_stream *s = (nd_emu_stream *)arg;
    for (;;) {
        std::function<void()> task;
        {
            std::unique_lock<std::mutex> lk(s->m);
            s->cv.wait(lk, [s] { return !s->q.empty() || s->stop; });
            if (s->q.empty()) return nullptr;
            task = std::move(s->q.front());
            s->q.pop_front();
        }
        task();
        {
            std::lock_guard<std::mutex> lk(s->m);
            s->done++;
        }
        s->cv.notify_all();
    }
}

bool start(nd_emu_stream *s)
{
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 8u << 20);
    bool ok = pthread_create(&s->th, &at, worker, s) == 0;
    pthread_attr_destroy(&at);
    s->started = ok;
    return ok;
}

void stop_and_join(nd_emu_stream *s)
{
    {
        std::lock_guard<std::mutex> lk(s->m);
        s->stop = true;
    }
    s->cv.notify_all();
    if (s->started) pthread_join(s->th, nullptr);
    s->started = false;
}

// The stream a handle names (NULL = the default stream), or NULL when it
// is not a live stream.
nd_emu_stream *resolve(cudaStream_t h)
{
    std::lock_guard<std::mutex> lk(g_mu);
    if (!h) {
        if (!g_default) {
            g_default = new nd_emu_stream;
            if (!start(g_default)) {
                delete g_default;
                g_default = nullptr;
                return nullptr;
            }
            g_streams.insert(g_default);
        }
        return g_default;
    }
    return g_streams.count(h) ? h : nullptr;
}

thread_local nd_emu_stream *tl_capturing = nullptr; // the stream this thread captures
thread_local cudaStreamCaptureMode tl_mode = cudaStreamCaptureModeGlobal;
std::atomic<uint64_t> g_capture_ids{0};

void invalidate(nd_emu_stream *s)
{
    std::lock_guard<std::mutex> lk(s->m);
    if (s->capturing) s->cap_invalid = true;
}

// The calls a capture forbids on its thread (they synchronise or allocate).
cudaError_t capture_guard()
{
    nd_emu_stream *s = tl_capturing;
    if (!s || tl_mode == cudaStreamCaptureModeRelaxed) return cudaSuccess;
    invalidate(s);
    return fail(cudaErrorStreamCaptureUnsupported);
}

// Record a node on s if it is capturing: *captured says so.
cudaError_t capture_node(nd_emu_stream *s, nd_emu_node node, bool *captured)
{
    std::lock_guard<std::mutex> lk(s->m);
    *captured = s->capturing;
    if (!s->capturing) return cudaSuccess;
    if (s->cap_invalid) return fail(cudaErrorStreamCaptureInvalidated);
    s->cap_nodes.push_back(std::move(node));
    return cudaSuccess;
}

cudaError_t enqueue(cudaStream_t h, std::function<void()> task)
{
    nd_emu_stream *s = resolve(h);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    {
        std::lock_guard<std::mutex> lk(s->m);
        if (s->destroyed) return fail(cudaErrorInvalidResourceHandle);
        if (s->capturing) { // recorded; every launch queues it again
            if (s->cap_invalid) return fail(cudaErrorStreamCaptureInvalidated);
            s->cap_nodes.push_back([task](cudaStream_t ls) { return enqueue(ls, task); });
            return cudaSuccess;
        }
        s->q.push_back(std::move(task));
        s->enq++;
    }
    s->cv.notify_all();
    return cudaSuccess;
}

// Wait for everything queued on s before this call.
void drain(nd_emu_stream *s)
{
    std::unique_lock<std::mutex> lk(s->m);
    uint64_t target = s->enq;
    s->cv.wait(lk, [s, target] { return s->done >= target; });
}

std::vector<nd_emu_stream *> live_streams()
{
    std::lock_guard<std::mutex> lk(g_mu);
    return std::vector<nd_emu_stream *>(g_streams.begin(), g_streams.end());
}

// Process exit: finish queued work and stop the workers (not in a forked
// child: its parent's threads do not exist here).
struct shutdown_guard {
    ~shutdown_guard()
    {
        if (g_forked.load()) return;
        for (nd_emu_stream *s : live_streams()) {
            drain(s);
            stop_and_join(s);
        }
        g_shutdown.store(1);
    }
} g_shutdown_guard;

// Which allocation p lies in (device or pinned), if any.
bool find_alloc(const void *p, uintptr_t *base, alloc_info *info)
{
    std::lock_guard<std::mutex> lk(g_mu);
    uintptr_t a = (uintptr_t)p;
    auto it = g_allocs.upper_bound(a);
    if (it == g_allocs.begin()) return false;
    --it;
    if (a >= it->first + (it->second.n ? it->second.n : 1)) return false;
    if (base) *base = it->first;
    if (info) *info = it->second;
    return true;
}

bool is_device(const void *p, size_t n)
{
    uintptr_t b;
    alloc_info i;
    if (!find_alloc(p, &b, &i) || !i.device) return false;
    return (uintptr_t)p + n <= b + i.n;
}

bool is_managed(const void *p)
{
    alloc_info i;
    return find_alloc(p, nullptr, &i) && i.managed;
}

cudaError_t check_kind(void *dst, const void *src, size_t n, cudaMemcpyKind kind)
{
    if (!dst || !src) return cudaErrorInvalidValue;
    bool dd = is_device(dst, n), sd = is_device(src, n);
    // managed memory is both: the host and the device address it
    bool dh = !dd || is_managed(dst), sh = !sd || is_managed(src);
    switch (kind) {
    case cudaMemcpyHostToDevice: return dd && sh ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDeviceToHost: return sd && dh ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDeviceToDevice: return dd && sd ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyHostToHost: return dh && sh ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDefault: return cudaSuccess;
    default: return cudaErrorInvalidMemcpyDirection;
    }
}

cudaError_t device_sync()
{
    for (nd_emu_stream *s : live_streams()) drain(s);
    return g_sticky.load() ? fail(cudaErrorLaunchFailure) : cudaSuccess;
}
} // namespace

// ---- C++ entry points of the seam ------------------------------------
cudaError_t nd_emu_enqueue_task(cudaStream_t s, std::function<void()> task)
{
    ENTER();
    return enqueue(s, std::move(task));
}

extern "C" void nd_emu_device_fault(const char *what)
{
    fprintf(stderr, "emulated GPU: device fault: %s\n", what);
    g_sticky.store(1);
}

extern "C" {
// ---- errors ------------------------------------------------------------
const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    case cudaErrorCudartUnloading: return "cudaErrorCudartUnloading";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorInvalidDeviceFunction: return "cudaErrorInvalidDeviceFunction";
    case cudaErrorInvalidKernelImage: return "cudaErrorInvalidKernelImage";
    case cudaErrorSymbolNotFound: return "cudaErrorSymbolNotFound";
    default: return "cudaErrorUnknown";
    }
}
const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorCudartUnloading: return "driver shutting down";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInsufficientDriver: return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorInvalidKernelImage: return "device kernel image is invalid";
    case cudaErrorSymbolNotFound: return "named symbol not found";
    default: return "unknown error";
    }
}
cudaError_t cudaGetLastError(void)
{
    // a device fault is sticky, as on a GPU; so is a fork after initialisation
    if (g_sticky.load()) return cudaErrorLaunchFailure;
    if (g_forked.load()) return cudaErrorInitializationError;
    cudaError_t e = tl_last;
    tl_last = cudaSuccess;
    return e;
}
cudaError_t cudaPeekAtLastError(void) { return tl_last; }
void nd_emu_set_last_error(cudaError_t e) { tl_last = e; }
cudaError_t nd_emu_enter(void) { return enter(); }

// ---- device ------------------------------------------------------------
cudaError_t cudaGetDeviceCount(int *count)
{
    ENTER();
    if (!count) return fail(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}
cudaError_t cudaGetDevice(int *dev)
{
    ENTER();
    if (!dev) return fail(cudaErrorInvalidValue);
    *dev = tl_device;
    return cudaSuccess;
}
cudaError_t cudaSetDevice(int dev)
{
    ENTER();
    if (dev != 0) return fail(cudaErrorInvalidDevice);
    tl_device = dev;
    return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev)
{
    ENTER();
    if (!p) return fail(cudaErrorInvalidValue);
    if (dev != 0) return fail(cudaErrorInvalidDevice);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "Emulated GPU (HIP-CPU)");
    p->totalGlobalMem = g_total_mem;
    p->sharedMemPerBlock = 48 * 1024;
    p->sharedMemPerBlockOptin = 227 * 1024;
    p->warpSize = 32;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024;
    p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = 65535;
    p->maxGridSize[2] = 65535;
    p->major = 9;
    p->minor = 0;
    p->multiProcessorCount = (int)sysconf(_SC_NPROCESSORS_ONLN);
    p->l2CacheSize = 1 << 20;
    p->memoryBusWidth = 5120;
    p->concurrentKernels = 1;
    p->asyncEngineCount = 1;
    p->unifiedAddressing = 1;
    return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr attr, int dev)
{
    ENTER();
    if (!v) return fail(cudaErrorInvalidValue);
    if (dev != 0) return fail(cudaErrorInvalidDevice);
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = (int)p.sharedMemPerBlock; break;
    case cudaDevAttrWarpSize: *v = 32; break;
    case cudaDevAttrMultiProcessorCount: *v = p.multiProcessorCount; break;
    /* the emulated device claims compute capability 9.0, so it reports an
       H100-class memory system (HBM3, 2619 MHz x 5120 bits: 3.35 TB/s) */
    case cudaDevAttrMemoryClockRate: *v = 2619000; break; /* kHz */
    case cudaDevAttrGlobalMemoryBusWidth: *v = 5120; break;
    case cudaDevAttrComputeCapabilityMajor: *v = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *v = 0; break;
    case cudaDevAttrManagedMemory: *v = 1; break;
    case cudaDevAttrMemoryPoolsSupported: *v = 1; break;
    default: return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}
cudaError_t cudaDeviceCanAccessPeer(int *can, int dev, int peer)
{
    ENTER();
    if (!can) return fail(cudaErrorInvalidValue);
    if (dev != 0 || peer != 0) return fail(cudaErrorInvalidDevice);
    *can = 0;
    return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void)
{
    ENTER();
    {
        cudaError_t g_ = capture_guard();
        if (g_ != cudaSuccess) return g_;
    }
    return device_sync();
}
cudaError_t cudaRuntimeGetVersion(int *v)
{
    if (!v) return fail(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int *v)
{
    if (!v) return fail(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    ENTER();
    if (!free_bytes || !total_bytes) return fail(cudaErrorInvalidValue);
    size_t used = 0;
    {
        std::lock_guard<std::mutex> lk(g_mu);
        for (auto &a : g_allocs)
            if (a.second.device) used += a.second.n;
    }
    *total_bytes = g_total_mem;
    *free_bytes = used < g_total_mem ? g_total_mem - used : 0;
    return cudaSuccess;
}

// ---- memory ------------------------------------------------------------
static cudaError_t do_alloc(void **ptr, size_t n, bool device)
{
    if (!ptr) return fail(cudaErrorInvalidValue);
    if (device) {
        size_t fr, tot;
        cudaMemGetInfo(&fr, &tot);
        if (n > fr) return fail(cudaErrorMemoryAllocation);
    }
    // 256-byte aligned like cudaMalloc; at least one byte so every
    // allocation has a distinct address
    const size_t rounded = (n + 255) / 256 * 256 + (n == 0 ? 256 : 0);
    void *p = aligned_alloc(256, rounded);
    if (!p) return fail(cudaErrorMemoryAllocation);
    // under ASan the padding is off limits, as compute-sanitizer's memcheck
    // reports any access past the size asked for
    ND_EMU_POISON((char *)p + n, rounded - n);
    {
        std::lock_guard<std::mutex> lk(g_mu);
        g_allocs[(uintptr_t)p] = alloc_info{n, device, false, nullptr, false};
    }
    *ptr = p;
    return cudaSuccess;
}
static size_t rounded_size(size_t n) { return (n + 255) / 256 * 256 + (n == 0 ? 256 : 0); }
// Return an allocation's memory (no synchronisation: the caller ordered it).
static void release_memory(void *p, size_t n)
{
    ND_EMU_UNPOISON(p, rounded_size(n));
    free(p);
}
static cudaError_t do_free(void *p, bool device)
{
    if (!p) return cudaSuccess;
    // like cudaFree/cudaFreeHost: an implicit device synchronisation
    device_sync();
    size_t n = 0;
    {
        std::lock_guard<std::mutex> lk(g_mu);
        auto it = g_allocs.find((uintptr_t)p);
        if (it == g_allocs.end() || it->second.device != device || it->second.freeing)
            return fail(device ? cudaErrorInvalidDevicePointer : cudaErrorInvalidValue);
        n = it->second.n;
        if (it->second.pool) it->second.pool->used -= n; // cudaFree of pool memory is allowed
        g_allocs.erase(it);
    }
    release_memory(p, n);
    return cudaSuccess;
}
cudaError_t cudaMalloc(void **ptr, size_t n)
{
    ENTER();
    {
        cudaError_t g_ = capture_guard();
        if (g_ != cudaSuccess) return g_;
    }
    return do_alloc(ptr, n, true);
}
cudaError_t cudaFree(void *ptr)
{
    ENTER();
    {
        cudaError_t g_ = capture_guard();
        if (g_ != cudaSuccess) return g_;
    }
    return do_free(ptr, true);
}
cudaError_t cudaHostAlloc(void **ptr, size_t n, unsigned flags)
{
    ENTER();
    {
        cudaError_t g_ = capture_guard();
        if (g_ != cudaSuccess) return g_;
    }
    (void)flags;
    return do_alloc(ptr, n, false);
}
cudaError_t cudaMallocHost(void **ptr, size_t n) { return cudaHostAlloc(ptr, n, 0); }
cudaError_t cudaFreeHost(void *ptr)
{
    ENTER();
    {
        cudaError_t g_ = capture_guard();
        if (g_ != cudaSuccess) return g_;
    }
    return do_free(ptr, false);
}
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *attr, const void *ptr)
{
    ENTER();
    if (!attr) return fail(cudaErrorInvalidValue);
    uintptr_t base;
    alloc_info i;
    memset(attr, 0, sizeof *attr);
    if (!find_alloc(ptr, &base, &i)) {
        attr->type = cudaMemoryTypeUnregistered;
        attr->device = -2;
        return cudaSuccess;
    }
    attr->type = i.managed ? cudaMemoryTypeManaged : i.device ? cudaMemoryTypeDevice : cudaMemoryTypeHost;
    attr->device = 0;
    attr->devicePointer = (void *)ptr;
    attr->hostPointer = i.device && !i.managed ? nullptr : (void *)ptr;
    return cudaSuccess;
}

// ---- managed memory --------------------------------------------------------
cudaError_t cudaMallocManaged(void **ptr, size_t n, unsigned flags)
{
    ENTER();
    {
        cudaError_t g_ = capture_guard();
        if (g_ != cudaSuccess) return g_;
    }
    if (n == 0 || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)) return fail(cudaErrorInvalidValue);
    cudaError_t e = do_alloc(ptr, n, true);
    if (e != cudaSuccess) return e;
    std::lock_guard<std::mutex> lk(g_mu);
    g_allocs[(uintptr_t)*ptr].managed = true;
    return cudaSuccess;
}
// [p, p + n) inside one managed allocation, and a location of this machine.
static cudaError_t check_managed_range(const void *p, size_t n, struct cudaMemLocation loc)
{
    uintptr_t base;
    alloc_info i;
    if (!p || n == 0 || !find_alloc(p, &base, &i) || !i.managed || (uintptr_t)p + n > base + i.n)
        return cudaErrorInvalidValue;
    if (loc.type == cudaMemLocationTypeDevice) return loc.id == 0 ? cudaSuccess : cudaErrorInvalidDevice;
    return loc.type == cudaMemLocationTypeHost ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaMemPrefetchAsync(const void *ptr, size_t n, struct cudaMemLocation loc, unsigned flags, cudaStream_t s)
{
    ENTER();
    cudaError_t e = flags ? cudaErrorInvalidValue : check_managed_range(ptr, n, loc);
    if (e != cudaSuccess) return fail(e);
    return enqueue(s, [] {}); // the pages are where every device reads them: nothing moves
}
cudaError_t cudaMemAdvise(const void *ptr, size_t n, enum cudaMemoryAdvise advice, struct cudaMemLocation loc)
{
    ENTER();
    if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy) return fail(cudaErrorInvalidValue);
    cudaError_t e = check_managed_range(ptr, n, loc);
    return e == cudaSuccess ? cudaSuccess : fail(e);
}

// ---- stream-ordered pools --------------------------------------------------
static std::set<nd_emu_mempool *> &g_mempools = *new std::set<nd_emu_mempool *>;
static nd_emu_mempool *live_pool(cudaMemPool_t p)
{
    std::lock_guard<std::mutex> lk(g_mu);
    return g_mempools.count(p) ? p : nullptr;
}
cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool, const struct cudaMemPoolProps *props)
{
    ENTER();
    if (!pool || !props || props->allocType != cudaMemAllocationTypePinned ||
        props->location.type != cudaMemLocationTypeDevice)
        return fail(cudaErrorInvalidValue);
    if (props->location.id != 0) return fail(cudaErrorInvalidDevice);
    nd_emu_mempool *p = new nd_emu_mempool;
    std::lock_guard<std::mutex> lk(g_mu);
    g_mempools.insert(p);
    *pool = p;
    return cudaSuccess;
}
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool)
{
    ENTER();
    std::lock_guard<std::mutex> lk(g_mu);
    if (!g_mempools.erase(pool)) return fail(cudaErrorInvalidValue);
    pool->destroyed = true; // never freed: its allocations still name it
    return cudaSuccess;
}
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value)
{
    ENTER();
    nd_emu_mempool *p = live_pool(pool);
    if (!p || !value) return fail(cudaErrorInvalidValue);
    if (attr == cudaMemPoolAttrReleaseThreshold) p->threshold = *(uint64_t *)value;
    else if (attr == cudaMemPoolAttrUsedMemHigh || attr == cudaMemPoolAttrReservedMemHigh) p->used_high = p->used.load();
    else return fail(cudaErrorInvalidValue);
    return cudaSuccess;
}
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value)
{
    ENTER();
    nd_emu_mempool *p = live_pool(pool);
    if (!p || !value) return fail(cudaErrorInvalidValue);
    uint64_t *v = (uint64_t *)value;
    switch (attr) {
    case cudaMemPoolAttrReleaseThreshold: *v = p->threshold; break;
    case cudaMemPoolAttrReservedMemCurrent: {
        std::lock_guard<std::mutex> lk(g_mu);
        *v = p->used.load() + p->cached_bytes;
        break;
    }
    case cudaMemPoolAttrUsedMemCurrent: *v = p->used.load(); break;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh: *v = p->used_high.load(); break;
    default: return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t keep)
{
    ENTER();
    nd_emu_mempool *p = live_pool(pool);
    if (!p) return fail(cudaErrorInvalidValue);
    std::vector<nd_emu_mempool::cached> gone;
    {
        std::lock_guard<std::mutex> lk(g_mu);
        // the blocks whose frees have run go back, largest first, down to keep
        std::vector<nd_emu_mempool::cached> &c = p->cache;
        std::stable_sort(c.begin(), c.end(), [](const nd_emu_mempool::cached &a, const nd_emu_mempool::cached &b) {
            return a.n > b.n;
        });
        for (size_t i = 0; i < c.size();) {
            if (!c[i].pending && p->cached_bytes > keep) {
                p->cached_bytes -= rounded_size(c[i].n);
                gone.push_back(c[i]);
                c.erase(c.begin() + (long)i);
            } else {
                i++;
            }
        }
    }
    for (auto &b : gone) release_memory(b.p, b.n);
    return cudaSuccess;
}
// A cached block of p for n bytes on stream s: one whose free has run, or
// one freed on s itself (stream order puts the free first), of the same
// rounded size; NULL when none (g_mu held).
static void *reuse_cached(nd_emu_mempool *p, size_t n, cudaStream_t s)
{
    for (size_t i = 0; i < p->cache.size(); i++) {
        nd_emu_mempool::cached &c = p->cache[i];
        if (rounded_size(c.n) != rounded_size(n) || (c.pending && c.s != s)) continue;
        void *ptr = c.p;
        p->cached_bytes -= rounded_size(c.n);
        p->cache.erase(p->cache.begin() + (long)i);
        return ptr;
    }
    return nullptr;
}
cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t n, cudaMemPool_t pool, cudaStream_t s)
{
    ENTER();
    nd_emu_mempool *p = live_pool(pool);
    if (!p || !ptr || n == 0) return fail(cudaErrorInvalidValue);
    if (!resolve(s)) return fail(cudaErrorInvalidResourceHandle);
    void *hit;
    {
        std::lock_guard<std::mutex> lk(g_mu);
        hit = reuse_cached(p, n, s);
        if (hit) g_allocs[(uintptr_t)hit] = alloc_info{n, true, false, p, false};
    }
    if (hit) {
        ND_EMU_UNPOISON(hit, n); // the padding stays off limits
        *ptr = hit;
    } else {
        cudaError_t e = do_alloc(ptr, n, true);
        if (e != cudaSuccess) return e;
        std::lock_guard<std::mutex> lk(g_mu);
        g_allocs[(uintptr_t)*ptr].pool = p;
    }
    size_t u = p->used += n;
    size_t h = p->used_high.load();
    while (u > h && !p->used_high.compare_exchange_weak(h, u)) {
    }
    return cudaSuccess;
}
cudaError_t cudaMallocAsync(void **ptr, size_t n, cudaStream_t s)
{
    static cudaMemPool_t dflt = [] {
        cudaMemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        cudaMemPool_t p = nullptr;
        cudaMemPoolCreate(&p, &props);
        return p;
    }();
    return cudaMallocFromPoolAsync(ptr, n, dflt, s);
}
cudaError_t cudaFreeAsync(void *ptr, cudaStream_t s)
{
    ENTER();
    if (!ptr) return cudaSuccess;
    if (!resolve(s)) return fail(cudaErrorInvalidResourceHandle);
    static uint64_t gen_counter = 0;
    nd_emu_mempool *p;
    uint64_t gen;
    {
        std::lock_guard<std::mutex> lk(g_mu);
        auto it = g_allocs.find((uintptr_t)ptr);
        if (it == g_allocs.end() || !it->second.pool || it->second.freeing) return fail(cudaErrorInvalidValue);
        p = it->second.pool;
        const size_t n = it->second.n;
        g_allocs.erase(it);
        p->used -= n;
        // back to the pool's cache at once: the same stream may reuse it
        // (stream order), other streams once the free below has run
        gen = ++gen_counter;
        p->cache.push_back(nd_emu_mempool::cached{ptr, n, s, true, gen});
        p->cached_bytes += rounded_size(n);
    }
    // when the stream reaches the free, as on a GPU (work queued before on s
    // is done, work of other streams may not be), the block is off limits
    // to ASan until it is handed out again
    return enqueue(s, [p, ptr, gen] {
        std::lock_guard<std::mutex> lk(g_mu);
        for (auto &c : p->cache)
            if (c.p == ptr && c.gen == gen) {
                c.pending = false;
                ND_EMU_POISON(ptr, rounded_size(c.n));
                break;
            }
    });
}
int nd_emu_is_device_range(const void *p, size_t n) { return is_device(p, n ? n : 1); }

// ---- copies and sets -----------------------------------------------------
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind kind, cudaStream_t s)
{
    ENTER();
    if (n == 0) return cudaSuccess;
    cudaError_t e = check_kind(dst, src, n, kind);
    if (e != cudaSuccess) return fail(e);
    return enqueue(s, [=] { memmove(dst, src, n); });
}
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind kind)
{
    ENTER();
    {
        cudaError_t g_ = capture_guard();
        if (g_ != cudaSuccess) return g_;
    }
    if (n == 0) return cudaSuccess;
    cudaError_t e = check_kind(dst, src, n, kind);
    if (e != cudaSuccess) return fail(e);
    // on the default stream, and the host waits for it (ordered after the
    // default stream's earlier work only: non-blocking streams are not waited for)
    e = enqueue(nullptr, [=] { memmove(dst, src, n); });
    if (e != cudaSuccess) return e;
    drain(resolve(nullptr));
    return g_sticky.load() ? fail(cudaErrorLaunchFailure) : cudaSuccess;
}
cudaError_t cudaMemcpyPeerAsync(void *dst, int dst_dev, const void *src, int src_dev, size_t n, cudaStream_t s)
{
    ENTER();
    if (dst_dev != 0 || src_dev != 0) return fail(cudaErrorInvalidDevice);
    return cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, s);
}
cudaError_t cudaMemsetAsync(void *dst, int value, size_t n, cudaStream_t s)
{
    ENTER();
    if (n == 0) return cudaSuccess;
    if (!is_device(dst, n)) return fail(cudaErrorInvalidValue);
    return enqueue(s, [=] { memset(dst, value, n); });
}
cudaError_t cudaMemset(void *dst, int value, size_t n)
{
    cudaError_t e = capture_guard();
    if (e != cudaSuccess) return e;
    e = cudaMemsetAsync(dst, value, n, nullptr);
    if (e != cudaSuccess) return e;
    drain(resolve(nullptr));
    return cudaSuccess;
}

// ---- streams -------------------------------------------------------------
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *out, unsigned flags)
{
    ENTER();
    if (!out) return fail(cudaErrorInvalidValue);
    nd_emu_stream *s = new nd_emu_stream;
    s->flags = flags;
    if (!start(s)) {
        delete s;
        return fail(cudaErrorMemoryAllocation);
    }
    {
        std::lock_guard<std::mutex> lk(g_mu);
        g_streams.insert(s);
    }
    *out = s;
    return cudaSuccess;
}
cudaError_t cudaStreamCreate(cudaStream_t *out) { return cudaStreamCreateWithFlags(out, cudaStreamDefault); }
cudaError_t cudaStreamDestroy(cudaStream_t h)
{
    ENTER();
    if (!h) return fail(cudaErrorInvalidResourceHandle);
    {
        std::lock_guard<std::mutex> lk(g_mu);
        if (!g_streams.count(h) || h == g_default) return fail(cudaErrorInvalidResourceHandle);
        g_streams.erase(h);
        g_graveyard.push_back(h);
    }
    {
        std::lock_guard<std::mutex> lk(h->m);
        h->destroyed = true;
    }
    // queued work completes first (as on a GPU), then the worker stops
    stop_and_join(h);
    return cudaSuccess;
}
// A capturing stream cannot be waited for or queried: it runs nothing.
static bool refuse_capturing(nd_emu_stream *s)
{
    std::lock_guard<std::mutex> lk(s->m);
    if (!s->capturing) return false;
    s->cap_invalid = true;
    return true;
}
cudaError_t cudaStreamSynchronize(cudaStream_t h)
{
    ENTER();
    nd_emu_stream *s = resolve(h);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    if (refuse_capturing(s)) return fail(cudaErrorStreamCaptureUnsupported);
    {
        cudaError_t g_ = capture_guard();
        if (g_ != cudaSuccess) return g_;
    }
    drain(s);
    return g_sticky.load() ? fail(cudaErrorLaunchFailure) : cudaSuccess;
}
cudaError_t cudaStreamQuery(cudaStream_t h)
{
    ENTER();
    nd_emu_stream *s = resolve(h);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    if (refuse_capturing(s)) return fail(cudaErrorStreamCaptureUnsupported);
    std::lock_guard<std::mutex> lk(s->m);
    // As CUDA's runtime does, "not ready" also becomes the thread's last
    // error: the next cudaGetLastError() (after a launch) returns it.
    return s->done >= s->enq ? cudaSuccess : fail(cudaErrorNotReady);
}
int nd_emu_stream_valid(cudaStream_t h) { return enter() == cudaSuccess && resolve(h) != nullptr; }
cudaError_t nd_emu_enqueue(cudaStream_t s, void (*fn)(void *), void *arg)
{
    ENTER();
    return enqueue(s, [fn, arg] { fn(arg); });
}
cudaError_t nd_emu_enqueue_owned(cudaStream_t s, void (*fn)(void *), void *arg, void (*drop)(void *))
{
    std::shared_ptr<void> job(arg, drop); // first: a failure below drops the job too
    ENTER();
    return enqueue(s, [fn, job] { fn(job.get()); });
}

// ---- events --------------------------------------------------------------
static nd_emu_event *live_event(cudaEvent_t e)
{
    std::lock_guard<std::mutex> lk(g_mu);
    return g_events.count(e) ? e : nullptr;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *out, unsigned flags)
{
    ENTER();
    if (!out) return fail(cudaErrorInvalidValue);
    nd_emu_event *e = new nd_emu_event;
    e->flags = flags;
    {
        std::lock_guard<std::mutex> lk(g_mu);
        g_events.insert(e);
    }
    *out = e;
    return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t *out) { return cudaEventCreateWithFlags(out, cudaEventDefault); }
cudaError_t cudaEventDestroy(cudaEvent_t h)
{
    ENTER();
    // returns at once, as CUDA's does: a record still queued completes later
    std::lock_guard<std::mutex> lk(g_mu);
    if (!h || !g_events.erase(h)) return fail(cudaErrorInvalidResourceHandle);
    g_event_graveyard.push_back(h);
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t h, cudaStream_t s)
{
    ENTER();
    nd_emu_event *e = live_event(h);
    if (!e) return fail(cudaErrorInvalidResourceHandle);
    nd_emu_stream *st = resolve(s);
    if (!st) return fail(cudaErrorInvalidResourceHandle);
    bool captured = false;
    uint64_t cid;
    {
        std::lock_guard<std::mutex> lk(st->m);
        cid = st->cap_id;
    }
    cudaError_t ce = capture_node(st, [h](cudaStream_t ls) { return cudaEventRecord(h, ls); }, &captured);
    if (captured) {
        if (ce == cudaSuccess) {
            std::lock_guard<std::mutex> lk(e->m);
            e->cap_id = cid;
        }
        return ce;
    }
    uint64_t gen;
    {
        std::lock_guard<std::mutex> lk(e->m);
        gen = ++e->recorded;
        e->cap_id = 0;
    }
    cudaError_t r = enqueue(s, [e, gen] {
        {
            std::lock_guard<std::mutex> lk(e->m);
            if (gen > e->completed) {
                e->completed = gen;
                e->t = clk::now();
            }
        }
        e->cv.notify_all();
    });
    if (r != cudaSuccess) {
        std::lock_guard<std::mutex> lk(e->m);
        e->recorded--;
    }
    return r;
}
cudaError_t cudaEventSynchronize(cudaEvent_t h)
{
    ENTER();
    {
        cudaError_t g_ = capture_guard();
        if (g_ != cudaSuccess) return g_;
    }
    nd_emu_event *e = live_event(h);
    if (!e) return fail(cudaErrorInvalidResourceHandle);
    std::unique_lock<std::mutex> lk(e->m);
    uint64_t target = e->recorded;
    e->cv.wait(lk, [e, target] { return e->completed >= target; });
    return g_sticky.load() ? fail(cudaErrorLaunchFailure) : cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t h)
{
    ENTER();
    nd_emu_event *e = live_event(h);
    if (!e) return fail(cudaErrorInvalidResourceHandle);
    std::lock_guard<std::mutex> lk(e->m);
    return e->completed >= e->recorded ? cudaSuccess : fail(cudaErrorNotReady); // the last error too, as in CUDA
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t h, unsigned flags)
{
    ENTER();
    (void)flags;
    nd_emu_event *e = live_event(h);
    if (!e) return fail(cudaErrorInvalidResourceHandle);
    if (nd_emu_stream *st = resolve(s)) {
        uint64_t cid, ecid;
        bool capturing;
        {
            std::lock_guard<std::mutex> lk(st->m);
            capturing = st->capturing;
            cid = st->cap_id;
        }
        {
            std::lock_guard<std::mutex> lk(e->m);
            ecid = e->cap_id;
        }
        if (capturing) {
            if (ecid != cid) { // an event of work outside this capture
                invalidate(st);
                return fail(cudaErrorStreamCaptureIsolation);
            }
            bool captured;
            return capture_node(st, [h](cudaStream_t ls) { return cudaStreamWaitEvent(ls, h, 0); }, &captured);
        }
    }
    uint64_t target;
    {
        std::lock_guard<std::mutex> lk(e->m);
        target = e->recorded; // the most recent record at the time of the call
    }
    if (target == 0) return resolve(s) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
    return enqueue(s, [e, target] {
        std::unique_lock<std::mutex> lk(e->m);
        e->cv.wait(lk, [e, target] { return e->completed >= target; });
    });
}
// ---- stream capture and graphs ----------------------------------------------
cudaError_t cudaStreamBeginCapture(cudaStream_t h, cudaStreamCaptureMode mode)
{
    ENTER();
    if (!h) return fail(cudaErrorStreamCaptureUnsupported); // the legacy default stream
    nd_emu_stream *s = resolve(h);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    if (mode < cudaStreamCaptureModeGlobal || mode > cudaStreamCaptureModeRelaxed) return fail(cudaErrorInvalidValue);
    if (tl_capturing) return fail(cudaErrorStreamCaptureUnsupported); // one capture per thread here
    {
        std::lock_guard<std::mutex> lk(s->m);
        if (s->capturing) return fail(cudaErrorStreamCaptureUnsupported);
        s->capturing = true;
        s->cap_invalid = false;
        s->cap_thread = pthread_self();
        s->cap_id = ++g_capture_ids;
        s->cap_nodes.clear();
    }
    tl_capturing = mode == cudaStreamCaptureModeRelaxed ? nullptr : s;
    return cudaSuccess;
}
cudaError_t cudaStreamEndCapture(cudaStream_t h, cudaGraph_t *graph)
{
    ENTER();
    if (!graph) return fail(cudaErrorInvalidValue);
    nd_emu_stream *s = resolve(h);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    std::vector<nd_emu_node> nodes;
    bool invalid;
    {
        std::lock_guard<std::mutex> lk(s->m);
        if (!s->capturing) return fail(cudaErrorInvalidValue);
        if (!pthread_equal(s->cap_thread, pthread_self())) return fail(cudaErrorStreamCaptureWrongThread);
        s->capturing = false;
        invalid = s->cap_invalid;
        nodes.swap(s->cap_nodes);
        s->cap_id = 0;
    }
    if (tl_capturing == s) tl_capturing = nullptr;
    *graph = nullptr;
    if (invalid) return fail(cudaErrorStreamCaptureInvalidated);
    *graph = new nd_emu_graph{std::move(nodes)};
    return cudaSuccess;
}
cudaError_t cudaStreamIsCapturing(cudaStream_t h, cudaStreamCaptureStatus *status)
{
    ENTER();
    if (!status) return fail(cudaErrorInvalidValue);
    nd_emu_stream *s = resolve(h);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    std::lock_guard<std::mutex> lk(s->m);
    *status = !s->capturing ? cudaStreamCaptureStatusNone
              : s->cap_invalid ? cudaStreamCaptureStatusInvalidated
                               : cudaStreamCaptureStatusActive;
    return cudaSuccess;
}
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *mode)
{
    ENTER();
    if (!mode || *mode < cudaStreamCaptureModeGlobal || *mode > cudaStreamCaptureModeRelaxed)
        return fail(cudaErrorInvalidValue);
    std::swap(*mode, tl_mode);
    return cudaSuccess;
}
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count)
{
    ENTER();
    if (!graph || !count || nodes) return fail(cudaErrorInvalidValue); // the count only, here
    *count = graph->nodes.size();
    return cudaSuccess;
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags)
{
    ENTER();
    if (!exec || !graph || flags) return fail(cudaErrorInvalidValue);
    *exec = new nd_emu_graph_exec{graph->nodes};
    return cudaSuccess;
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t h)
{
    ENTER();
    if (!exec) return fail(cudaErrorInvalidValue);
    nd_emu_stream *s = resolve(h);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    {
        std::lock_guard<std::mutex> lk(s->m);
        if (s->capturing) return fail(cudaErrorStreamCaptureUnsupported);
    }
    for (nd_emu_node &n : exec->nodes) {
        cudaError_t e = n(h);
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec)
{
    ENTER();
    delete exec; // the work it queued holds its own copies of the jobs
    return cudaSuccess;
}
cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    ENTER();
    delete graph;
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    ENTER();
    if (!ms) return fail(cudaErrorInvalidValue);
    nd_emu_event *e0 = live_event(a), *e1 = live_event(b);
    if (!e0 || !e1) return fail(cudaErrorInvalidResourceHandle);
    if ((e0->flags | e1->flags) & cudaEventDisableTiming) return fail(cudaErrorInvalidResourceHandle);
    std::lock_guard<std::mutex> l0(e0->m);
    std::unique_lock<std::mutex> l1(e1->m, std::defer_lock);
    if (e1 != e0) l1.lock();
    if (!e0->recorded || !e1->recorded) return fail(cudaErrorInvalidResourceHandle);
    if (e0->completed < e0->recorded || e1->completed < e1->recorded) return fail(cudaErrorNotReady);
    *ms = std::chrono::duration<float, std::milli>(e1->t - e0->t).count();
    return cudaSuccess;
}
} // extern "C"
