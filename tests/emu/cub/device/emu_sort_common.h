// What the emulated CUB sorts (device_radix_sort.cuh, device_segmented_sort.cuh)
// share: CUB's two-phase temporary storage protocol and argument checks,
// and one stable sort of (key, value) pairs by a key bit range, queued on
// the stream so that it runs in stream order like CUB's kernels.
//  - d_temp_storage == NULL: temp_storage_bytes := what the sort needs (a
//    double buffer of keys and values plus 256 bytes, roughly CUB's answer
//    for the non-DoubleBuffer API) and nothing else happens;
//  - otherwise temp_storage_bytes below that, a temporary that is not a
//    live device range of that size, a stream that is neither the default
//    stream nor a live one: cudaErrorInvalidValue (CUB would overrun the
//    temporary or fail the launch);
//  - the key, value and offset arrays must be live device memory of the
//    sizes the call implies (a GPU would fault: reported as a device fault);
//  - when the sort runs, the temporary is overwritten first (a temporary
//    freed before the work ran shows under ASan, as on a GPU under
//    compute-sanitizer), the inputs are read and the outputs written; the
//    inputs are never modified.
#ifndef ND_EMU_CUB_SORT_COMMON_H
#define ND_EMU_CUB_SORT_COMMON_H
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "emu_device.h"

namespace cub {
namespace emu_sort {

template <typename KeyT, typename ValueT>
size_t temp_need(int64_t num_items)
{
    return 256 + (size_t)(num_items > 0 ? num_items : 0) * (sizeof(KeyT) + sizeof(ValueT));
}

// Phase 1 (query) or the checks of phase 2. *done: nothing more to do.
template <typename KeyT, typename ValueT>
cudaError_t protocol(void *d_temp_storage, size_t &temp_storage_bytes, int64_t num_items, cudaStream_t stream,
                     bool *done)
{
    const size_t need = temp_need<KeyT, ValueT>(num_items);
    *done = true;
    if (num_items < 0) return cudaErrorInvalidValue;
    if (d_temp_storage == nullptr) {
        temp_storage_bytes = need;
        return cudaSuccess;
    }
    if (temp_storage_bytes < need || !nd_emu_is_device_range(d_temp_storage, need) || !nd_emu_stream_valid(stream))
        return cudaErrorInvalidValue;
    *done = false;
    return cudaSuccess;
}

// Sort [b, e) of the inputs stably by bits [begin_bit, end_bit) of the keys
// into the same positions of the outputs; perm is scratch.
template <typename KeyT, typename ValueT>
void sort_range(const KeyT *kin, KeyT *kout, const ValueT *vin, ValueT *vout, int64_t b, int64_t e, int begin_bit,
                int end_bit, std::vector<int64_t> &perm)
{
    if (e <= b) return;
    const int nbits = end_bit - begin_bit;
    const KeyT mask = nbits >= (int)(sizeof(KeyT) * 8) ? (KeyT)~(KeyT)0
                      : nbits <= 0                     ? (KeyT)0
                                                       : (KeyT)(((KeyT)1 << nbits) - 1);
    perm.resize((size_t)(e - b));
    std::iota(perm.begin(), perm.end(), b);
    auto bits = [&](int64_t i) { return (KeyT)((KeyT)(kin[i] >> begin_bit) & mask); };
    std::stable_sort(perm.begin(), perm.end(), [&](int64_t x, int64_t y) { return bits(x) < bits(y); });
    for (int64_t j = 0; j < e - b; j++) {
        kout[b + j] = kin[perm[(size_t)j]];
        vout[b + j] = vin[perm[(size_t)j]];
    }
}

} // namespace emu_sort
} // namespace cub
#endif
