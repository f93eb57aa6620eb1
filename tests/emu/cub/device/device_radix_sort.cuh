// Stand-in for CUB's cub::DeviceRadixSort on the emulated GPU (the
// emulated build cannot compile CUB): the one call src/cuda/kernels_sort.cu
// makes, SortPairs (keys and values in separate input and output arrays),
// with CUB's conventions (tests/emu/cub/device/emu_sort_common.h): the
// two-phase temporary storage query, cudaErrorInvalidValue for bad
// arguments (a negative count, a bit range outside the key, too little
// temporary storage, a bad stream), and the sort queued on `stream`. The
// num_items pairs are sorted stably (radix sorting is stable: CUB
// documents it) by the key bits [begin_bit, end_bit); keys and values go to
// the output arrays, the inputs are not modified.
#ifndef ND_EMU_CUB_DEVICE_RADIX_SORT_CUH
#define ND_EMU_CUB_DEVICE_RADIX_SORT_CUH
#include "emu_sort_common.h"

namespace cub {
struct DeviceRadixSort {
    template <typename KeyT, typename ValueT, typename NumItemsT>
    static cudaError_t SortPairs(void *d_temp_storage, size_t &temp_storage_bytes, const KeyT *d_keys_in,
                                 KeyT *d_keys_out, const ValueT *d_values_in, ValueT *d_values_out,
                                 NumItemsT num_items, int begin_bit = 0, int end_bit = sizeof(KeyT) * 8,
                                 cudaStream_t stream = 0)
    {
        if (begin_bit < 0 || end_bit > (int)(sizeof(KeyT) * 8) || begin_bit > end_bit) return cudaErrorInvalidValue;
        const int64_t n = (int64_t)num_items;
        bool done;
        cudaError_t e = emu_sort::protocol<KeyT, ValueT>(d_temp_storage, temp_storage_bytes, n, stream, &done);
        if (done || n == 0) return e;
        const size_t need = emu_sort::temp_need<KeyT, ValueT>(n);
        if (!nd_emu_is_device_range(d_keys_in, sizeof(KeyT) * (size_t)n) ||
            !nd_emu_is_device_range(d_keys_out, sizeof(KeyT) * (size_t)n) ||
            !nd_emu_is_device_range(d_values_in, sizeof(ValueT) * (size_t)n) ||
            !nd_emu_is_device_range(d_values_out, sizeof(ValueT) * (size_t)n)) {
            nd_emu_device_fault("cub::DeviceRadixSort::SortPairs: keys or values are not device memory of num_items");
            return cudaErrorLaunchFailure; // what the faulting kernel would report
        }
        return nd_emu_enqueue_task(stream, [=]() {
            memset(d_temp_storage, 0xa5, need);
            std::vector<int64_t> perm;
            emu_sort::sort_range(d_keys_in, d_keys_out, d_values_in, d_values_out, 0, n, begin_bit, end_bit, perm);
        });
    }
};
} // namespace cub
#endif
