/* Raw CUDA kernels compiled at run time (include/ndgpu/kernel.h:
 * nd_raw_module_*, nd_raw_kernel_*; CuPy's RawModule and RawKernel).
 *
 * The family keeps the source and options of a module, and per device the
 * handle of its compiled program and of each kernel's function; the
 * backend's run-time compilation slots (src/core/rtc_slot.h) compile,
 * cache (in memory and on disk) and launch. A device whose backend has no
 * such slots (the CPU) is ND_ERR_UNSUPPORTED.
 *
 * Locks: one mutex per module guards its per-device programs, one per
 * kernel its per-device functions; a launch takes the kernel's lock only
 * while it looks its function up (the module's inside it, on the first
 * launch on a device). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/prof.h"
#include "core/rtc_slot.h"
#include "kernel/raw.h"

#define ND_RAW_MAX_DEVICES 64 /* device ids per type a module keeps programs for */
#define ND_RAW_MAX_ARGS 256   /* kernel parameters (CUDA allows 32 KiB of them) */

struct nd_raw_module {
    nd_atomic_long refcount;
    char *source;
    char **options;
    int noptions;
    pthread_mutex_t lock;
    nd_rtc_module *prog[ND_NUM_DEVICE_TYPES][ND_RAW_MAX_DEVICES];
    signed char origin[ND_NUM_DEVICE_TYPES][ND_RAW_MAX_DEVICES];
};

struct nd_raw_kernel {
    nd_raw_module *m;
    const char *name; /* interned */
    pthread_mutex_t lock;
    void *fn[ND_NUM_DEVICE_TYPES][ND_RAW_MAX_DEVICES];
};

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *r = nd__malloc(n);
    if (r) memcpy(r, s, n);
    return r;
}

/* Kernel names live as long as the process: the profiler keeps an op's
 * name as a pointer, and a kernel may be released while its events are
 * still read. One copy per distinct name. */
typedef struct interned {
    struct interned *next;
    char name[];
} interned;
static interned *g_names;
static pthread_mutex_t g_names_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *intern_name(const char *s)
{
    pthread_mutex_lock(&g_names_lock);
    interned *e = g_names;
    while (e && strcmp(e->name, s) != 0) e = e->next;
    if (!e) {
        size_t n = strlen(s) + 1;
        if ((e = nd__malloc(sizeof *e + n))) {
            memcpy(e->name, s, n);
            e->next = g_names;
            g_names = e;
        }
    }
    pthread_mutex_unlock(&g_names_lock);
    return e ? e->name : NULL;
}

static void module_free(nd_raw_module *m)
{
    if (!m) return;
    for (int i = 0; i < m->noptions; i++) nd__free(m->options[i]);
    nd__free(m->options);
    nd__free(m->source);
    pthread_mutex_destroy(&m->lock);
    nd__free(m);
}

nd_status nd_raw_module_create(nd_raw_module **m, const char *cuda_source, const nd_kernel_options *opts)
{
    static const char *fn = "nd_raw_module_create";
    ND_CHECK_PTR(fn, m, "m");
    ND_CHECK_PTR(fn, cuda_source, "cuda_source");
    int nopt = opts ? opts->num_nvrtc_options : 0;
    if (nopt < 0) return nd__err(ND_ERR_INVALID, fn, "num_nvrtc_options is %d (negative)", nopt);
    if (nopt > 0 && !opts->nvrtc_options)
        return nd__err(ND_ERR_INVALID, fn, "num_nvrtc_options is %d but nvrtc_options is NULL", nopt);
    for (int i = 0; i < nopt; i++)
        if (!opts->nvrtc_options[i]) return nd__err(ND_ERR_INVALID, fn, "nvrtc_options[%d] is NULL", i);
    nd_raw_module *r = nd__calloc(1, sizeof *r);
    if (!r) return nd__err(ND_ERR_NOMEM, fn, "out of host memory");
    if (pthread_mutex_init(&r->lock, NULL) != 0) {
        nd__free(r);
        return nd__err(ND_ERR_INTERNAL, fn, "cannot make a mutex");
    }
    atomic_init(&r->refcount, 1);
    memset(r->origin, -1, sizeof r->origin);
    r->source = dup_str(cuda_source);
    if (nopt > 0) r->options = nd__calloc((size_t)nopt, sizeof *r->options);
    bool ok = r->source && (nopt == 0 || r->options);
    for (int i = 0; ok && i < nopt; i++, r->noptions++) ok = (r->options[i] = dup_str(opts->nvrtc_options[i])) != NULL;
    if (!ok) {
        module_free(r);
        return nd__err(ND_ERR_NOMEM, fn, "out of host memory");
    }
    *m = r;
    return ND_OK;
}

void nd_raw_module_release(nd_raw_module *m)
{
    if (m && atomic_fetch_sub(&m->refcount, 1) == 1) module_free(m);
}

/* dev's backend compiles CUDA source (its three slots), or the status. */
static nd_status check_rtc_device(const char *fn, nd_device dev, const nd_backend **out)
{
    nd_status st = nd__check_device(fn, dev);
    if (st) return st;
    char d[32];
    const nd_backend *be = nd__backend(dev);
    if (!be->rtc_compile || !be->rtc_kernel || !be->rtc_launch)
        return nd__err(ND_ERR_UNSUPPORTED, fn, "raw CUDA kernels run on a GPU only; %s cannot compile CUDA source",
                       nd__device_name(dev, d, sizeof d));
    if (dev.id >= ND_RAW_MAX_DEVICES)
        return nd__err(ND_ERR_DEVICE, fn, "%s is beyond the %d devices raw kernels support",
                       nd__device_name(dev, d, sizeof d), ND_RAW_MAX_DEVICES);
    *out = be;
    return ND_OK;
}

/* m's program on dev, compiled on first use (caller checked dev). */
static nd_status module_program(nd_raw_module *m, nd_device dev, const nd_backend *be, nd_rtc_module **out,
                                const char *fn)
{
    nd_status st = ND_OK;
    pthread_mutex_lock(&m->lock);
    nd_rtc_module **slot = &m->prog[dev.type][dev.id];
    if (!*slot) {
        nd_rtc_source src = {m->source, "kernel.cu", (const char *const *)m->options, m->noptions};
        int origin = ND_RTC_COMPILED;
        st = be->rtc_compile(slot, dev.id, &src, &origin, fn);
        if (st == ND_OK) m->origin[dev.type][dev.id] = (signed char)origin;
        else *slot = NULL;
    }
    *out = *slot;
    pthread_mutex_unlock(&m->lock);
    return st;
}

nd_status nd_raw_module_compile(nd_raw_module *m, nd_device dev)
{
    static const char *fn = "nd_raw_module_compile";
    ND_CHECK_PTR(fn, m, "m");
    const nd_backend *be = NULL;
    nd_status st = check_rtc_device(fn, dev, &be);
    if (st) return st;
    nd_rtc_module *p = NULL;
    return module_program(m, dev, be, &p, fn);
}

int nd__raw_module_origin(const nd_raw_module *m, nd_device dev)
{
    if (!m || (unsigned)dev.type >= ND_NUM_DEVICE_TYPES || (unsigned)dev.id >= ND_RAW_MAX_DEVICES) return -1;
    return m->origin[dev.type][dev.id];
}

nd_status nd_raw_module_get(nd_raw_kernel **k, nd_raw_module *m, const char *name)
{
    static const char *fn = "nd_raw_module_get";
    ND_CHECK_PTR(fn, k, "k");
    ND_CHECK_PTR(fn, m, "m");
    ND_CHECK_PTR(fn, name, "name");
    if (!name[0]) return nd__err(ND_ERR_INVALID, fn, "the kernel name is empty");
    nd_raw_kernel *r = nd__calloc(1, sizeof *r);
    if (!r) return nd__err(ND_ERR_NOMEM, fn, "out of host memory");
    if (!(r->name = intern_name(name))) {
        nd__free(r);
        return nd__err(ND_ERR_NOMEM, fn, "out of host memory");
    }
    if (pthread_mutex_init(&r->lock, NULL) != 0) {
        nd__free(r);
        return nd__err(ND_ERR_INTERNAL, fn, "cannot make a mutex");
    }
    atomic_fetch_add(&m->refcount, 1);
    r->m = m;
    *k = r;
    return ND_OK;
}

nd_status nd_raw_kernel_create(nd_raw_kernel **k, const char *cuda_source, const char *name,
                               const nd_kernel_options *opts)
{
    static const char *fn = "nd_raw_kernel_create";
    ND_CHECK_PTR(fn, k, "k");
    ND_CHECK_PTR(fn, cuda_source, "cuda_source");
    ND_CHECK_PTR(fn, name, "name");
    nd_raw_module *m = NULL;
    nd_status st = nd_raw_module_create(&m, cuda_source, opts);
    if (st) return st;
    st = nd_raw_module_get(k, m, name);
    nd_raw_module_release(m); /* the kernel holds it (or nobody does) */
    return st;
}

const char *nd_raw_kernel_name(const nd_raw_kernel *k) { return k ? k->name : NULL; }

void nd_raw_kernel_release(nd_raw_kernel *k)
{
    if (!k) return;
    nd_raw_module_release(k->m);
    pthread_mutex_destroy(&k->lock);
    nd__free(k);
}

/* The value a scalar argument passes: its bytes in *slot. */
static nd_status scalar_value(const nd_kernel_arg *a, int i, void *slot, const char *fn)
{
    switch (a->dtype) {
    case ND_INT32: memcpy(slot, &a->v.i32, 4); return ND_OK;
    case ND_INT64: memcpy(slot, &a->v.i64, 8); return ND_OK;
    case ND_UINT32: memcpy(slot, &a->v.u32, 4); return ND_OK;
    case ND_UINT64: memcpy(slot, &a->v.u64, 8); return ND_OK;
    case ND_FLOAT32: memcpy(slot, &a->v.f32, 4); return ND_OK;
    case ND_FLOAT64: memcpy(slot, &a->v.f64, 8); return ND_OK;
    case ND_BOOL: memcpy(slot, &a->v.b, sizeof(bool)); return ND_OK;
    default:
        return nd__err(ND_ERR_DTYPE, fn,
                       "argument %d: a scalar of dtype %s cannot be passed (int32, int64, uint32, uint64, float32, "
                       "float64 or bool)",
                       i, nd__dtype_valid(a->dtype) ? nd_dtype_name(a->dtype) : "(invalid)");
    }
}

nd_status nd_raw_kernel_launch(nd_raw_kernel *k, nd_device dev, const unsigned grid[3], const unsigned block[3],
                               size_t shared_bytes, int nargs, const nd_kernel_arg *args)
{
    ND_PROF_OP_ON(k && k->name ? k->name : "raw_kernel", NULL, dev);
    static const char *fn = "nd_raw_kernel_launch";
    ND_CHECK_PTR(fn, k, "k");
    ND_CHECK_PTR(fn, grid, "grid");
    ND_CHECK_PTR(fn, block, "block");
    if (nargs < 0 || nargs > ND_RAW_MAX_ARGS)
        return nd__err(ND_ERR_INVALID, fn, "nargs is %d (0 to %d)", nargs, ND_RAW_MAX_ARGS);
    if (nargs > 0 && !args) return nd__err(ND_ERR_INVALID, fn, "argument 'args' is NULL (nargs is %d)", nargs);
    const nd_backend *be = NULL;
    nd_status st = check_rtc_device(fn, dev, &be);
    if (st) return st;

    /* the arguments' values, each in an 8-byte slot (every type passed is 8 bytes or less) */
    uint64_t vals[ND_RAW_MAX_ARGS];
    void *ptrs[ND_RAW_MAX_ARGS];
    int64_t bytes = 0;
    for (int i = 0; i < nargs; i++) {
        const nd_kernel_arg *a = &args[i];
        ptrs[i] = &vals[i];
        vals[i] = 0;
        char d1[32], d2[32];
        switch (a->kind) {
        case ND_KERNEL_ARG_ARRAY: {
            const nd_array *x = a->v.array;
            if (!x) return nd__err(ND_ERR_INVALID, fn, "argument %d: the array is NULL", i);
            if (x->device.type != dev.type || x->device.id != dev.id)
                return nd__err(ND_ERR_DEVICE, fn, "argument %d: the array is on %s, but the kernel runs on %s", i,
                               nd__device_name(x->device, d1, sizeof d1), nd__device_name(dev, d2, sizeof d2));
            void *p = nd__ptr(x);
            memcpy(&vals[i], &p, sizeof p);
            bytes += (int64_t)x->size * (int64_t)nd_dtype_size(x->dtype);
            break;
        }
        case ND_KERNEL_ARG_POINTER: memcpy(&vals[i], &a->v.ptr, sizeof a->v.ptr); break;
        case ND_KERNEL_ARG_SCALAR:
            if ((st = scalar_value(a, i, &vals[i], fn))) return st;
            break;
        default: return nd__err(ND_ERR_INVALID, fn, "argument %d: unknown kind %d", i, (int)a->kind);
        }
    }
    ND_PROF_BYTES(bytes);

    pthread_mutex_lock(&k->lock);
    void **slot = &k->fn[dev.type][dev.id];
    if (!*slot) {
        nd_rtc_module *prog = NULL;
        st = module_program(k->m, dev, be, &prog, fn);
        if (st == ND_OK) st = be->rtc_kernel(slot, prog, k->name, fn);
        if (st) *slot = NULL;
    }
    void *kern = *slot;
    pthread_mutex_unlock(&k->lock);
    if (st) return st;
    return be->rtc_launch(kern, dev.id, grid, block, shared_bytes, ptrs, fn);
}
