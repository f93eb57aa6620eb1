// Stand-in for CUB's <cub/device/device_scan.cuh> on the emulated GPU (the
// emulated build cannot compile CUB): exactly the call src/cuda/
// kernels_scan.cu makes, cub::DeviceScan::InclusiveScan, with CUB's
// conventions:
//  - the two-phase temp-storage query: d_temp_storage == NULL sets
//    temp_storage_bytes (nonzero, as CUB's) and returns cudaSuccess without
//    touching the data;
//  - a second call with a temporary smaller than the query asked for is
//    cudaErrorInvalidValue (CUB would overrun it); so is a stream that is
//    neither the default stream nor a live one;
//  - the scan itself is queued on the stream (nd_emu_enqueue_task) and runs
//    in stream order, asynchronously, like CUB's kernels: it reads d_in and
//    writes d_out when the stream reaches it (in place, d_in == d_out, is
//    allowed, as in CUB); d_in/d_out must lie in device allocations (a GPU
//    would fault on host pointers: reported as a device fault here);
//  - the combines keep the elements' order but not their grouping, which
//    CUB documents as not reproducible run to run for floating-point
//    types (its decoupled look-back combines the aggregates of whichever
//    earlier tiles have finished): tiles of a size that changes from call
//    to call are scanned on their own, and each tile's prefix is the
//    combine of an earlier tile's prefix with the aggregates after it,
//    looking back a number of tiles that changes too. Exact operators
//    (integer sums, max, min) give the same results either way; a
//    floating-point sum gives other last bits from call to call.
#ifndef ND_EMU_CUB_DEVICE_SCAN_CUH
#define ND_EMU_CUB_DEVICE_SCAN_CUH
#include <atomic>
#include <cstddef>
#include <functional>
#include <vector>

#include "cuda_runtime.h"

cudaError_t nd_emu_enqueue_task(cudaStream_t s, std::function<void()> task);

namespace cub {
struct DeviceScan {
    static constexpr size_t kTempBytes = 256; // what the query reports

    template <typename InputIteratorT, typename OutputIteratorT, typename ScanOpT, typename NumItemsT>
    static cudaError_t InclusiveScan(void *d_temp_storage, size_t &temp_storage_bytes, InputIteratorT d_in,
                                     OutputIteratorT d_out, ScanOpT scan_op, NumItemsT num_items,
                                     cudaStream_t stream = 0)
    {
        if (d_temp_storage == NULL) {
            temp_storage_bytes = kTempBytes;
            return cudaSuccess;
        }
        if (temp_storage_bytes < kTempBytes || !nd_emu_stream_valid(stream)) return cudaErrorInvalidValue;
        if (num_items <= 0) return cudaSuccess;
        const long long n = (long long)num_items;
        if (!nd_emu_is_device_range(&d_in[0], sizeof(d_in[0]) * (size_t)n) ||
            !nd_emu_is_device_range(&d_out[0], sizeof(d_out[0]) * (size_t)n)) {
            nd_emu_device_fault("cub::DeviceScan::InclusiveScan: d_in or d_out is not device memory of num_items");
            return cudaErrorLaunchFailure; // what the faulting kernel would report
        }
        static std::atomic<unsigned> calls{0};
        const unsigned call = calls.fetch_add(1) + 1;
        const long long tile = 512 + (long long)((call * 2654435761u) % 3584u); // 512 .. 4095
        const long long back = 1 + (long long)((call * 40503u) % 7u);           // tiles looked back: 1 .. 7
        return nd_emu_enqueue_task(stream, [=]() {
            typedef decltype(scan_op(d_in[0], d_in[0])) V;
            const long long ntiles = (n + tile - 1) / tile;
            std::vector<V> agg, pre; // each tile's aggregate; the inclusive prefix through it
            agg.reserve((size_t)ntiles);
            pre.reserve((size_t)ntiles);
            for (long long t = 0; t < ntiles; t++) { // every tile on its own
                const long long lo = t * tile, hi = lo + tile < n ? lo + tile : n;
                V acc = d_in[lo];
                d_out[lo] = acc;
                for (long long i = lo + 1; i < hi; i++) {
                    acc = scan_op(acc, d_in[i]);
                    d_out[i] = acc;
                }
                agg.push_back(acc);
            }
            for (long long t = 0; t < ntiles; t++) {
                if (t == 0) {
                    pre.push_back(agg[0]);
                    continue;
                }
                // the prefix into tile t: an earlier tile's inclusive prefix, then
                // the aggregates of the tiles between, left to right
                const long long k = t - back > 0 ? t - back : 0;
                V into = k == 0 ? agg[0] : pre[(size_t)k];
                if (k == 0) {
                    for (long long j = 1; j < t; j++) into = scan_op(into, agg[(size_t)j]);
                } else {
                    for (long long j = k + 1; j < t; j++) into = scan_op(into, agg[(size_t)j]);
                }
                const long long lo = t * tile, hi = lo + tile < n ? lo + tile : n;
                for (long long i = lo; i < hi; i++) d_out[i] = scan_op(into, d_out[i]);
                pre.push_back(scan_op(into, agg[(size_t)t]));
            }
        });
    }
};
} // namespace cub
#endif
