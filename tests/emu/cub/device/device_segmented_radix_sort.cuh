// Stand-in for CUB's cub::DeviceSegmentedRadixSort on the emulated GPU
// (make emu-test): the one call src/cuda/kernels_sort.cu makes, SortPairs
// with pointer offsets, with CUB's conventions: the two-phase temporary
// storage query (d_temp_storage == NULL sets temp_storage_bytes and does
// nothing else), cudaErrorInvalidValue for bad arguments (negative counts,
// a bit range outside the key, too little temporary storage, NULL
// pointers with work to do), and the sort queued on `stream` so that it
// runs in stream order like a kernel. Each segment [begin[s], end[s]) is
// sorted stably by the key bits [begin_bit, end_bit) (an empty or
// inverted segment is left alone, as CUB does); keys and values are
// written to the output arrays, the inputs are not modified.
#ifndef ND_EMU_CUB_DEVICE_SEGMENTED_RADIX_SORT_CUH
#define ND_EMU_CUB_DEVICE_SEGMENTED_RADIX_SORT_CUH
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "emu_device.h"

namespace cub {
struct DeviceSegmentedRadixSort {
    template <typename KeyT, typename ValueT, typename BeginOffsetIteratorT, typename EndOffsetIteratorT>
    static cudaError_t SortPairs(void *d_temp_storage, size_t &temp_storage_bytes, const KeyT *d_keys_in,
                                 KeyT *d_keys_out, const ValueT *d_values_in, ValueT *d_values_out, int num_items,
                                 int num_segments, BeginOffsetIteratorT d_begin_offsets,
                                 EndOffsetIteratorT d_end_offsets, int begin_bit = 0,
                                 int end_bit = sizeof(KeyT) * 8, cudaStream_t stream = 0)
    {
        // what CUB would ask for, roughly: a double buffer of keys and values
        const size_t need = 256 + (size_t)(num_items > 0 ? num_items : 0) * (sizeof(KeyT) + sizeof(ValueT));
        if (num_items < 0 || num_segments < 0 || begin_bit < 0 || end_bit > (int)(sizeof(KeyT) * 8) ||
            begin_bit > end_bit)
            return cudaErrorInvalidValue;
        if (d_temp_storage == nullptr) {
            temp_storage_bytes = need;
            return cudaSuccess;
        }
        if (temp_storage_bytes < need) return cudaErrorInvalidValue;
        if (num_items == 0 || num_segments == 0) return cudaSuccess;
        if (!d_keys_in || !d_keys_out || !d_values_in || !d_values_out) return cudaErrorInvalidValue;
        return nd_emu_enqueue_task(stream, [=]() {
            const int nbits = end_bit - begin_bit;
            const KeyT mask = nbits >= (int)(sizeof(KeyT) * 8) ? (KeyT)~(KeyT)0 : (KeyT)(((KeyT)1 << nbits) - 1);
            std::vector<int64_t> perm;
            for (int s = 0; s < num_segments; s++) {
                int64_t b = (int64_t)d_begin_offsets[s], e = (int64_t)d_end_offsets[s];
                if (e <= b) continue;
                perm.resize((size_t)(e - b));
                std::iota(perm.begin(), perm.end(), b);
                auto bits = [&](int64_t i) { return (KeyT)((KeyT)(d_keys_in[i] >> begin_bit) & mask); };
                std::stable_sort(perm.begin(), perm.end(), [&](int64_t x, int64_t y) { return bits(x) < bits(y); });
                for (int64_t j = 0; j < e - b; j++) {
                    d_keys_out[b + j] = d_keys_in[perm[(size_t)j]];
                    d_values_out[b + j] = d_values_in[perm[(size_t)j]];
                }
            }
        });
    }
};
} // namespace cub
#endif
