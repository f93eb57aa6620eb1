// Stand-in for CUB's cub::DeviceSegmentedSort on the emulated GPU (the
// emulated build cannot compile CUB): the one call src/cuda/kernels_sort.cu
// makes, StableSortPairs with offset iterators, with CUB's conventions
// (tests/emu/cub/device/emu_sort_common.h): the two-phase temporary storage
// query, cudaErrorInvalidValue for bad arguments (negative counts, too
// little temporary storage, a bad stream), and the sort queued on `stream`.
// Each segment [d_begin_offsets[s], d_end_offsets[s]) is sorted stably by
// the whole key (DeviceSegmentedSort takes no bit range); an empty or
// inverted segment is left alone, and so is every element outside the
// segments (CUB documents both). The offsets are read when the sort runs
// (they are usually written by a kernel queued just before).
#ifndef ND_EMU_CUB_DEVICE_SEGMENTED_SORT_CUH
#define ND_EMU_CUB_DEVICE_SEGMENTED_SORT_CUH
#include "emu_sort_common.h"

namespace cub {
struct DeviceSegmentedSort {
    template <typename KeyT, typename ValueT, typename BeginOffsetIteratorT, typename EndOffsetIteratorT>
    static cudaError_t StableSortPairs(void *d_temp_storage, size_t &temp_storage_bytes, const KeyT *d_keys_in,
                                       KeyT *d_keys_out, const ValueT *d_values_in, ValueT *d_values_out,
                                       int64_t num_items, int64_t num_segments, BeginOffsetIteratorT d_begin_offsets,
                                       EndOffsetIteratorT d_end_offsets, cudaStream_t stream = 0)
    {
        if (num_segments < 0) return cudaErrorInvalidValue;
        bool done;
        cudaError_t e = emu_sort::protocol<KeyT, ValueT>(d_temp_storage, temp_storage_bytes, num_items, stream, &done);
        if (done || num_items == 0 || num_segments == 0) return e;
        const size_t need = emu_sort::temp_need<KeyT, ValueT>(num_items);
        const size_t n = (size_t)num_items;
        if (!nd_emu_is_device_range(d_keys_in, sizeof(KeyT) * n) || !nd_emu_is_device_range(d_keys_out, sizeof(KeyT) * n) ||
            !nd_emu_is_device_range(d_values_in, sizeof(ValueT) * n) ||
            !nd_emu_is_device_range(d_values_out, sizeof(ValueT) * n) ||
            !nd_emu_is_device_range(&d_begin_offsets[0], sizeof(d_begin_offsets[0]) * (size_t)num_segments) ||
            !nd_emu_is_device_range(&d_end_offsets[0], sizeof(d_end_offsets[0]) * (size_t)num_segments)) {
            nd_emu_device_fault("cub::DeviceSegmentedSort::StableSortPairs: keys, values or offsets are not device "
                                "memory of num_items / num_segments");
            return cudaErrorLaunchFailure; // what the faulting kernel would report
        }
        return nd_emu_enqueue_task(stream, [=]() {
            memset(d_temp_storage, 0xa5, need);
            std::vector<int64_t> perm;
            for (int64_t s = 0; s < num_segments; s++) {
                const int64_t b = (int64_t)d_begin_offsets[s], e2 = (int64_t)d_end_offsets[s];
                if (b < 0 || e2 > num_items) {
                    nd_emu_device_fault("cub::DeviceSegmentedSort::StableSortPairs: a segment lies outside num_items");
                    return;
                }
                emu_sort::sort_range(d_keys_in, d_keys_out, d_values_in, d_values_out, b, e2, 0,
                                     (int)(sizeof(KeyT) * 8), perm);
            }
        });
    }
};
} // namespace cub
#endif
