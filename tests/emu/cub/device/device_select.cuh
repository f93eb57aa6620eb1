// Stand-in for CUB's cub::DeviceSelect on the emulated GPU (the emulated
// build cannot compile CUB). Implements exactly the call the library
// makes (src/cuda/kernels_index.cu): Flagged(d_temp_storage,
// temp_storage_bytes, d_in, d_flags, d_out, d_num_selected_out,
// num_items, stream), with CUB's conventions: d_temp_storage == NULL only
// sets temp_storage_bytes; otherwise temp_storage_bytes must be at least
// that size, the pointers must be live device ranges, and the selection
// (the items whose flag is true, in order, and their count) is written
// asynchronously in stream order.
#ifndef ND_EMU_CUB_DEVICE_SELECT_CUH
#define ND_EMU_CUB_DEVICE_SELECT_CUH
#include <stddef.h>
#include <stdint.h>

#include "emu_device.h"

namespace cub {
struct DeviceSelect {
    static constexpr size_t kTempBytes = 256; // what the stand-in asks for (it uses none)

    template <typename InT, typename FlagT, typename OutT, typename NumT, typename NumItemsT>
    static cudaError_t Flagged(void *d_temp_storage, size_t &temp_storage_bytes, const InT *d_in, const FlagT *d_flags,
                               OutT *d_out, NumT *d_num_selected_out, NumItemsT num_items, cudaStream_t stream = 0)
    {
        if (d_temp_storage == NULL) {
            temp_storage_bytes = kTempBytes;
            return cudaSuccess;
        }
        if (temp_storage_bytes < kTempBytes || num_items < 0 || !nd_emu_stream_valid(stream)) return cudaErrorInvalidValue;
        const size_t n = (size_t)num_items;
        if (!nd_emu_is_device_range(d_temp_storage, kTempBytes) || !nd_emu_is_device_range(d_num_selected_out, sizeof(NumT)))
            return cudaErrorInvalidValue;
        if (n > 0 && (!nd_emu_is_device_range(d_in, n * sizeof(InT)) || !nd_emu_is_device_range(d_flags, n * sizeof(FlagT))))
            return cudaErrorInvalidValue;
        return nd_emu_enqueue_task(stream, [=]() {
            NumT k = 0;
            for (size_t i = 0; i < n; i++)
                if (d_flags[i]) d_out[k++] = (OutT)d_in[i];
            *d_num_selected_out = k;
        });
    }
};
} // namespace cub
#endif
