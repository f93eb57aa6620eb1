/* Iteration-space simplification (NumPy nditer-style coalescing), shared
 * by every backend: size-1 axes dropped, axes ordered by the output's
 * strides, axes contiguous for all operands merged. */
#include <stdlib.h>

#include "core/internal.h"

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

void nd__iter_init(nd_iter *it, int nops, const nd_array *const *ops)
{
    const nd_array *o = ops[0];
    int perm[ND_MAX_DIMS];
    int n = 0;
    it->nops = nops;
    it->size = o->size;
    for (int k = 0; k < nops; k++) {
        it->data[k] = nd__ptr(ops[k]);
        it->itemsize[k] = nd__itemsize(ops[k]->dtype);
    }
    if (o->size == 0) {
        it->ndim = 1;
        it->shape[0] = 0;
        for (int k = 0; k < nops; k++) it->strides[k][0] = (int64_t)it->itemsize[k];
        return;
    }
    for (int i = 0; i < o->ndim; i++)
        if (o->shape[i] != 1) perm[n++] = i;
    /* stable insertion sort: larger |stride of the output| first, so the
     * innermost (last) axis has the smallest output stride. */
    for (int i = 1; i < n; i++) {
        int p = perm[i], j = i - 1;
        while (j >= 0) {
            int q = perm[j];
            int64_t sq = abs64(o->strides[q]), sp = abs64(o->strides[p]);
            bool swap = sq < sp;
            if (sq == sp) { /* tie on the output: decide by the inputs */
                for (int k = 1; k < nops; k++) {
                    int64_t a = abs64(ops[k]->strides[q]), b = abs64(ops[k]->strides[p]);
                    if (a != b) { swap = a < b; break; }
                }
            }
            if (!swap) break;
            perm[j + 1] = q;
            j--;
        }
        perm[j + 1] = p;
    }
    int nd = 0;
    for (int i = 0; i < n; i++) {
        int ax = perm[i];
        int64_t ext = o->shape[ax];
        if (nd > 0) {
            bool merge = true;
            for (int k = 0; k < nops && merge; k++) {
                int64_t inner = ops[k]->strides[ax] * (int64_t)it->itemsize[k];
                merge = it->strides[k][nd - 1] == inner * ext;
            }
            if (merge) {
                it->shape[nd - 1] *= ext;
                for (int k = 0; k < nops; k++) it->strides[k][nd - 1] = ops[k]->strides[ax] * (int64_t)it->itemsize[k];
                continue;
            }
        }
        it->shape[nd] = ext;
        for (int k = 0; k < nops; k++) it->strides[k][nd] = ops[k]->strides[ax] * (int64_t)it->itemsize[k];
        nd++;
    }
    if (nd == 0) {
        nd = 1;
        it->shape[0] = 1;
        for (int k = 0; k < nops; k++) it->strides[k][0] = (int64_t)it->itemsize[k];
    }
    it->ndim = nd;
}

bool nd__iter_is_flat(const nd_iter *it)
{
    if (it->ndim != 1) return false;
    for (int k = 0; k < it->nops; k++)
        if (it->strides[k][0] != (int64_t)it->itemsize[k] && it->strides[k][0] != 0) return false;
    return true;
}
