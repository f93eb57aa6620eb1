// Stand-in for CUB's <cub/device/device_scan.cuh> on the emulated GPU (the
// emulated build cannot compile CUB): exactly the call src/cuda/
// kernels_sc_scan.cu makes, cub::DeviceScan::InclusiveScan, with CUB's
// conventions:
//  - the two-phase temp-storage query: d_temp_storage == NULL sets
//    temp_storage_bytes (nonzero, as CUB's) and returns cudaSuccess without
//    touching the data;
//  - a second call with a temporary smaller than the query asked for is
//    cudaErrorInvalidValue (CUB would overrun it); so is a stream that is
//    neither the default stream nor a live one;
//  - the scan itself is queued on the stream (nd_emu_enqueue_task) and runs
//    in stream order, asynchronously, like CUB's kernels: it reads d_in and
//    writes d_out when the stream reaches it, left to right (in place,
//    d_in == d_out, is allowed, as in CUB); d_in/d_out must lie in device
//    allocations (a GPU would fault on host pointers: reported as a device
//    fault here).
#ifndef ND_EMU_CUB_DEVICE_SCAN_CUH
#define ND_EMU_CUB_DEVICE_SCAN_CUH
#include <cstddef>
#include <functional>

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
        return nd_emu_enqueue_task(stream, [=]() {
            auto acc = d_in[0];
            d_out[0] = acc;
            for (long long i = 1; i < n; i++) {
                acc = scan_op(acc, d_in[i]);
                d_out[i] = acc;
            }
        });
    }
};
} // namespace cub
#endif
