/*
 * Device side of the emulated GPU (included by src/cuda/cuda_seam.h when
 * ND_CUDA_EMU is defined; C++17 over HIP-CPU). It gives the CUDA kernels the
 * semantics of a real NVIDIA GPU where HIP-CPU differs:
 *
 *  - warps of 32 lanes (HIP-CPU's are 64), and shuffles with CUDA's lane
 *    bounds for every width (HIP-CPU's __shfl/__shfl_down/__shfl_up are
 *    wrong for widths below 64 on lanes >= width);
 *  - barriers that COUNT: __syncthreads waits until every live thread of the
 *    block arrived, a shuffle waits for the lanes of its own warp only, and
 *    a thread that returned from the kernel no longer holds a barrier up (as
 *    on sm_70+). HIP-CPU's barrier is "let every other fiber run one
 *    segment", which gives right answers only while all threads meet the
 *    same barriers in the same order; warp-divergent shuffles (a warp that
 *    skips an item, warp 0 alone finishing a block reduction) break it;
 *  - kernels are launched asynchronously on the stream's worker thread
 *    (tests/emu/cuda_runtime_emu.cpp), blocks in parallel (TBB), the threads
 *    of a block as fibers on one OS thread.
 *
 * Fiber scheduling: HIP-CPU runs thread 0 of a block first on the worker's
 * own stack; if thread 0 returns without reaching a barrier, the other
 * threads run one after another to completion (no fibers: fast). A kernel
 * whose threads synchronise must therefore say so with ND_SYNC_KERNEL() as
 * its first statement; a barrier or shuffle reached in a block that runs
 * sequentially is reported as a launch failure naming the problem, never
 * silently mis-executed. In fiber mode a barrier is a loop of "yield to the
 * next fiber" until the count is reached; the block ends when every thread
 * returned, thread 0 leaving first (HIP-CPU's fiber loop needs that order).
 */
#ifndef ND_EMU_DEVICE_H
#define ND_EMU_DEVICE_H
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <tuple>
#include <type_traits>

#include "cuda_runtime.h"

// HIP-CPU's attribute macros: plain functions are enough (its `simd`
// clones only cost compile time and warn on struct returns).
#undef __device__
#define __device__
#undef __global__
#define __global__
#undef __forceinline__
#define __forceinline__ inline
#undef __launch_bounds__
#define __launch_bounds__(...)
#define __grid_constant__

// C++-only parts of the emulated runtime (tests/emu/cuda_runtime_emu.cpp).
cudaError_t nd_emu_enqueue_task(cudaStream_t s, std::function<void()> task);
// Launch a kernel of a library (cudaLibraryGetKernel's handle cast to
// const void *, as CUDA allows): tests/emu/rtc_library_emu.cpp.
cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shmem, cudaStream_t s);

namespace nd_emu {
constexpr int kWarp = 32;
constexpr int kMaxThreads = 1024;

struct block_state {
    unsigned n;          // threads in the block
    bool fiber_mode;     // thread 0 reached a barrier or the kernel declared it syncs
    bool sync_declared;  // ND_SYNC_KERNEL()
    bool sequential;     // thread 0 returned without a barrier: the rest run one by one
    bool released;       // thread 0 has left (the others may leave in order)
    bool faulted;        // a fault was reported for this block already
    unsigned exited;
    unsigned bar_arrived, bar_gen;
    int bar_acc_or, bar_acc_and, bar_acc_cnt;
    int bar_res_or, bar_res_and, bar_res_cnt;
    unsigned w_arrived[kMaxThreads / kWarp], w_gen[kMaxThreads / kWarp], w_exited[kMaxThreads / kWarp];
    alignas(16) unsigned char scratch[kMaxThreads][16];
};
inline thread_local block_state bs;

inline unsigned tid()
{
    using namespace hip::detail;
    return id(Fiber::this_fiber());
}
inline unsigned block_threads()
{
    using namespace hip::detail;
    return count(Tile::this_tile().dimensions());
}
inline unsigned warp_lanes(unsigned w)
{
    unsigned first = w * kWarp;
    return bs.n - first < (unsigned)kWarp ? bs.n - first : (unsigned)kWarp;
}
// Let the next fiber of the block run (HIP-CPU's round-robin switch).
inline void yield_fiber() { hip::detail::Tile::this_tile().barrier(); }

inline void fault(const char *what)
{
    if (!bs.faulted) {
        bs.faulted = true;
        nd_emu_device_fault(what);
    }
}
// Barriers and shuffles are only possible in fiber mode.
inline bool can_sync(const char *what)
{
    if (bs.sequential) {
        char msg[256];
        std::snprintf(msg, sizeof msg,
                      "%s reached by thread %u of a block whose thread 0 returned without any barrier: "
                      "declare the kernel with ND_SYNC_KERNEL()",
                      what, tid());
        fault(msg);
        return false;
    }
    bs.fiber_mode = true;
    return true;
}

inline void thread_begin()
{
    if (tid() == 0) {
        // thread 0 starts every block (HIP-CPU); no other thread of it has run
        std::memset(&bs, 0, offsetof(block_state, scratch));
        bs.n = block_threads();
    }
}

inline void bar_release()
{
    bs.bar_res_or = bs.bar_acc_or;
    bs.bar_res_and = bs.bar_acc_and;
    bs.bar_res_cnt = bs.bar_acc_cnt;
    bs.bar_acc_or = 0;
    bs.bar_acc_and = 1;
    bs.bar_acc_cnt = 0;
    bs.bar_arrived = 0;
    bs.bar_gen++;
}
inline void warp_release(unsigned w)
{
    bs.w_arrived[w] = 0;
    bs.w_gen[w]++;
}

inline void thread_end()
{
    const unsigned t = tid();
    if (t == 0 && !bs.sequential && !bs.fiber_mode && !bs.sync_declared) {
        bs.sequential = true; // HIP-CPU now runs threads 1.. on this fiber, one by one
        return;
    }
    if (bs.sequential) return;
    bs.fiber_mode = true;
    // leaving: barriers and the warp's shuffles no longer wait for this thread
    bs.exited++;
    const unsigned w = t / kWarp;
    bs.w_exited[w]++;
    if (bs.bar_arrived && bs.bar_arrived + bs.exited == bs.n) bar_release();
    if (bs.w_arrived[w] && bs.w_arrived[w] + bs.w_exited[w] == warp_lanes(w)) warp_release(w);
    if (t == 0) {
        while (bs.exited < bs.n) yield_fiber();
        bs.released = true;
    } else {
        while (!bs.released) yield_fiber();
    }
}

// __syncthreads and its reductions: pred is folded into the generation's result.
inline void syncthreads_acc(int pred)
{
    if (!can_sync("__syncthreads")) return;
    if (bs.bar_arrived == 0) {
        bs.bar_acc_or = 0;
        bs.bar_acc_and = 1;
        bs.bar_acc_cnt = 0;
    }
    bs.bar_acc_or |= pred != 0;
    bs.bar_acc_and &= pred != 0;
    bs.bar_acc_cnt += pred != 0;
    const unsigned g = bs.bar_gen;
    if (++bs.bar_arrived + bs.exited == bs.n) {
        bar_release();
        return;
    }
    while (bs.bar_gen == g) yield_fiber();
}
inline void syncthreads() { syncthreads_acc(1); }

inline void warp_barrier(unsigned w)
{
    const unsigned g = bs.w_gen[w];
    if (++bs.w_arrived[w] + bs.w_exited[w] == warp_lanes(w)) {
        warp_release(w);
        return;
    }
    while (bs.w_gen[w] == g) yield_fiber();
}

enum shfl_mode { SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_XOR };

// CUDA's __shfl*_sync for 32-lane warps: lanes are split into segments of
// `width` (a power of two <= 32); a source outside the caller's segment
// (or a lane past the end of a partial warp) returns the caller's own value.
template <typename T>
inline T shfl(unsigned mask, T v, int arg, int width, shfl_mode mode, const char *what)
{
    static_assert(sizeof(T) <= 16 && std::is_trivially_copyable<T>::value, "shuffle of a type over 16 bytes");
    if (!can_sync(what)) return v;
    if (width <= 0 || width > kWarp || (width & (width - 1))) {
        fault("shuffle width is not a power of two in [1, 32]");
        return v;
    }
    const unsigned t = tid(), w = t / kWarp, lane = t % kWarp;
    if (mask != 0xffffffffu && !((mask >> lane) & 1u)) fault("shuffle by a lane outside its mask");
    std::memcpy(bs.scratch[t], &v, sizeof(T));
    warp_barrier(w);
    const int seg = (int)(lane / (unsigned)width) * width, in = (int)lane - seg;
    int src;
    switch (mode) {
    case SHFL_IDX: src = seg + (((arg % width) + width) % width); break;
    case SHFL_UP: src = in - arg >= 0 ? (int)lane - arg : (int)lane; break;
    case SHFL_DOWN: src = in + arg < width ? (int)lane + arg : (int)lane; break;
    default: { // CUDA: a lane may read earlier groups, a later group gives its own value
        int x = (int)lane ^ arg;
        src = x < seg + width ? x : (int)lane;
    }
    }
    T r = v;
    if (src >= 0 && (unsigned)src < warp_lanes(w)) std::memcpy(&r, bs.scratch[w * kWarp + (unsigned)src], sizeof(T));
    warp_barrier(w); // nobody overwrites a slot before every lane has read
    return r;
}

template <typename T>
inline unsigned ballot(unsigned mask, T pred)
{
    unsigned bits = 0;
    const unsigned t = tid(), lane = t % kWarp;
    for (int s = 0; s < kWarp; s++) {
        unsigned b = shfl<int>(mask, pred ? 1 : 0, s, kWarp, SHFL_IDX, "__ballot_sync");
        if (b && (unsigned)s < warp_lanes(t / kWarp)) bits |= 1u << s;
    }
    (void)lane;
    return bits;
}

// Launch (cuda_seam.h's nd_launch): run `kernel(args...)` over the grid on
// stream s's worker, with the block protocol above around each thread.
template <typename K, typename... A>
inline cudaError_t launch(K kernel, dim3 grid, dim3 block, size_t shmem, cudaStream_t s, const A &...args)
{
    auto targs = std::make_tuple(args...);
    // kernel<<<...>>>(...) then cudaGetLastError(), as cuda_seam.h does on a
    // GPU: an error an earlier call left pending is reported here
    (void)nd_emu_enqueue_task(s, [=]() {
        auto fn = [=](auto &&...xs) noexcept {
            thread_begin();
            kernel(xs...);
            thread_end();
        };
        struct {
            const decltype(fn) *fn_;
            const decltype(targs) *args_;
            void operator()() const noexcept { std::apply(*fn_, *args_); }
        } tmp{&fn, &targs};
        hip::detail::Tiled_domain domain{block, grid, (std::uint32_t)shmem, std::move(tmp)};
        for_each_tile(domain, fn, targs);
    });
    return cudaGetLastError();
}
} // namespace nd_emu

// ---- the CUDA device API the kernels use, with CUDA's semantics ----------
#undef __syncthreads
#define __syncthreads() nd_emu::syncthreads()
inline int __syncthreads_or(int p)
{
    nd_emu::syncthreads_acc(p);
    return nd_emu::bs.bar_res_or;
}
inline int __syncthreads_and(int p)
{
    nd_emu::syncthreads_acc(p);
    return nd_emu::bs.bar_res_and;
}
inline int __syncthreads_count(int p)
{
    nd_emu::syncthreads_acc(p);
    return nd_emu::bs.bar_res_cnt;
}
inline void __syncwarp(unsigned mask = 0xffffffffu)
{
    (void)nd_emu::shfl<int>(mask, 0, 0, 32, nd_emu::SHFL_IDX, "__syncwarp");
}
template <typename T>
inline T __shfl_sync(unsigned mask, T v, int src, int width = 32)
{
    return nd_emu::shfl(mask, v, src, width, nd_emu::SHFL_IDX, "__shfl_sync");
}
template <typename T>
inline T __shfl_up_sync(unsigned mask, T v, unsigned d, int width = 32)
{
    return nd_emu::shfl(mask, v, (int)d, width, nd_emu::SHFL_UP, "__shfl_up_sync");
}
template <typename T>
inline T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32)
{
    return nd_emu::shfl(mask, v, (int)d, width, nd_emu::SHFL_DOWN, "__shfl_down_sync");
}
template <typename T>
inline T __shfl_xor_sync(unsigned mask, T v, int m, int width = 32)
{
    return nd_emu::shfl(mask, v, m, width, nd_emu::SHFL_XOR, "__shfl_xor_sync");
}
inline unsigned __ballot_sync(unsigned mask, int pred) { return nd_emu::ballot(mask, pred); }
inline int __any_sync(unsigned mask, int pred) { return nd_emu::ballot(mask, pred) != 0; }
inline int __all_sync(unsigned mask, int pred)
{
    unsigned b = nd_emu::ballot(mask, pred);
    unsigned w = nd_emu::tid() / 32, n = nd_emu::warp_lanes(w);
    unsigned full = n == 32 ? 0xffffffffu : ((1u << n) - 1u);
    return (b & mask & full) == (mask & full);
}
#define ND_SYNC_KERNEL() (nd_emu::bs.sync_declared = true)
#endif
