/* The kernel family's inside (src/kernel/): the parameters and the
 * kernel object (kernel.c), the generated units (codegen.c). */
#ifndef ND_KERNEL_IMPL_H
#define ND_KERNEL_IMPL_H
#include <pthread.h>

#include "core/internal.h"
#include "shared/kernel_slots.h"

/* Longest parameter, type or kernel name, with its NUL. */
#define KP_NAME 64

typedef struct {
    char name[KP_NAME];
    char type[KP_NAME]; /* as written: a dtype name or a placeholder */
    nd_dtype dtype;     /* the dtype, when not a placeholder */
    bool placeholder, raw, out;
} kparam;

/* One compiled specialisation (dtypes and layout class) of a kernel. */
typedef struct kspec {
    struct kspec *next;
    char key[3 * ND_K_MAX_OPS + 16];
    void *handle; /* the backend's (nd_k_call.handle) */
    void *part, *final; /* a CUDA reduction's two-level kernels (nd_k_part, nd_k_final) */
} kspec;

struct nd_kernel {
    const char *name; /* interned: the profiler keeps op names for the process */
    char *body;
    int nin, nout, nparams;
    kparam p[ND_K_MAX_OPS]; /* outputs first, then inputs, each in the order given */
    bool has_raw;
    /* a reduction kernel: its expressions (body holds map_expr) */
    bool reduction;
    char *reduce_expr, *post_expr, *identity;
    char rtype[KP_NAME]; /* the accumulator's type: a dtype name or a placeholder; "" = the output's */
    pthread_mutex_t mu;
    kspec *specs;
};

/* What one call fixes: each operand's parameter dtype, storage dtype and
 * whether it is a scalar (stride 0 everywhere), and the layout class. */
typedef struct {
    nd_dtype pt[ND_K_MAX_OPS], st[ND_K_MAX_OPS];
    bool scalar[ND_K_MAX_OPS];
    bool contig;
} kshape;

/* The languages of the generated units. */
enum { KLANG_C, KLANG_CUDA };

/* The translation unit of one specialisation of elementwise kernel k: C
 * (KLANG_C, for a backend with the kernel_ew slot: nd_k_range) or CUDA C++
 * (KLANG_CUDA, for the rtc slots: nd_k_kernel, a grid-stride loop); NULL
 * when out of memory (nd__free the result). */
ND_INTERNAL char *nd__kgen_elementwise(const nd_kernel *k, const kshape *ks, int lang);
/* The unit of reduction kernel k with accumulator dtype acc (the same
 * entry points over its outputs). */
ND_INTERNAL char *nd__kgen_reduction(const nd_kernel *k, const kshape *ks, nd_dtype acc, int lang);
#endif
