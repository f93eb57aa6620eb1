/* The geometry of a reduction, shared by both backends (src/cpu/reduce.c
 * and src/cuda/reduce_plan.h; plain C, no runtime calls).
 *
 * The core (src/reduce/reduce.c) hands a backend a view whose LAST naxes axes are
 * reduced. nd_rgeom_make simplifies it, kept and reduced axes separately:
 *  - extent-1 axes are dropped;
 *  - except for argmax/argmin (keep_order), whose flat index must follow C
 *    order, negative reduced strides are turned around (base collects the
 *    offset of the new first element) and the reduced axes are sorted
 *    innermost (smallest stride) last, stably;
 *  - axes contiguous with each other are merged (nd__merge_axes).
 * Strides become BYTE strides. A reduction without reduced axes left gets
 * one reduced axis of extent 1 (every output reduces one element); the
 * kept axes may be none (nk == 0: one output).
 *
 * The layout paths: both backends have an "inner" path (each output
 * reduces its own block, the innermost reduced axis the closest run in
 * memory) and a "rows"/"outer" path (the last kept axis is closer in
 * memory than every reduced axis, e.g. sum over axis 0 of a C-contiguous
 * matrix: neighbouring outputs accumulate whole rows together).
 * nd_rgeom_rows_closer is that test; each backend adds its own size rule. */
#ifndef ND_REDUCE_GEOM_H
#define ND_REDUCE_GEOM_H
#include <stdbool.h>
#include <stdint.h>

#include "ndgpu.h" /* ND_MAX_DIMS */

/* Merge adjacent axes (outer first) when str[i] == str[i+1] * shape[i+1]
 * (any stride unit); returns the new count. Used by the CPU reduction
 * driver and the CUDA reduction plan (src/cuda/reduce_plan.h) through
 * nd_rgeom_make, so both see the same geometry. A product that overflows
 * int64 equals no stride: no merge (and no undefined behaviour). */
static inline int nd__merge_axes(int n, int64_t *shape, int64_t *str)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        int64_t span;
        if (m > 0 && !__builtin_mul_overflow(str[i], shape[i], &span) && str[m - 1] == span) {
            shape[m - 1] *= shape[i];
            str[m - 1] = str[i];
        } else {
            shape[m] = shape[i];
            str[m] = str[i];
            m++;
        }
    }
    return m;
}

typedef struct nd_rgeom {
    int nk, nr;
    int64_t kshape[ND_MAX_DIMS], kstr[ND_MAX_DIMS]; /* kept axes, outer first, byte strides */
    int64_t rshape[ND_MAX_DIMS], rstr[ND_MAX_DIMS]; /* reduced axes, innermost last, byte strides */
    int64_t nout, nred;                             /* outputs; elements per output */
    int64_t base;                                   /* bytes to add to the view's data pointer */
} nd_rgeom;

/* Reduce the last naxes axes of (ndim, shape, strides in elements of isz
 * bytes). */
static inline void nd_rgeom_make(nd_rgeom *g, int ndim, const int64_t *shape, const int64_t *strides, int64_t isz,
                                 int naxes, bool keep_order)
{
    const int nk0 = ndim - naxes;
    /* an empty array addresses nothing: its strides count as 0 (its
     * extents times its strides may point anywhere, even past the address
     * space, when a DLPack producer gave an empty tensor odd strides; the
     * import checks the span of non-empty ones only), so no axis is turned
     * around and no product of them is formed */
    bool empty = false;
    for (int i = 0; i < ndim; i++) empty = empty || shape[i] == 0;
    g->nk = g->nr = 0;
    g->base = 0;
    g->nout = 1;
    g->nred = 1;
    for (int i = 0; i < nk0; i++) {
        g->nout *= shape[i];
        if (shape[i] == 1) continue;
        g->kshape[g->nk] = shape[i];
        g->kstr[g->nk++] = empty ? 0 : strides[i] * isz;
    }
    g->nk = nd__merge_axes(g->nk, g->kshape, g->kstr);
    for (int i = nk0; i < ndim; i++) {
        g->nred *= shape[i];
        if (shape[i] == 1) continue;
        int64_t s = empty ? 0 : strides[i] * isz;
        if (!keep_order && s < 0) { /* order-free: walk the axis forwards */
            g->base += (shape[i] - 1) * s;
            s = -s;
        }
        g->rshape[g->nr] = shape[i];
        g->rstr[g->nr++] = s;
    }
    if (!keep_order) /* innermost (smallest stride) last; insertion sort, stable */
        for (int i = 1; i < g->nr; i++)
            for (int m = i; m > 0 && g->rstr[m - 1] < g->rstr[m]; m--) {
                int64_t t = g->rstr[m];
                g->rstr[m] = g->rstr[m - 1];
                g->rstr[m - 1] = t;
                t = g->rshape[m];
                g->rshape[m] = g->rshape[m - 1];
                g->rshape[m - 1] = t;
            }
    g->nr = nd__merge_axes(g->nr, g->rshape, g->rstr);
    if (g->nr == 0) { /* one element per output */
        g->nr = 1;
        g->rshape[0] = 1;
        g->rstr[0] = 0;
    }
}

/* Whether the last kept axis (of extent > 1) is closer in memory than the
 * innermost reduced axis: the rows/outer path's layout test. */
static inline bool nd_rgeom_rows_closer(const nd_rgeom *g)
{
    if (g->nk < 1 || g->kshape[g->nk - 1] <= 1) return false;
    int64_t sK = g->kstr[g->nk - 1], sR = g->rstr[g->nr - 1];
    return (sK < 0 ? -sK : sK) < (sR < 0 ? -sR : sR);
}
#endif
