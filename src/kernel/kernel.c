/*
 * Elementwise and reduction kernels from a C body (include/ndgpu/kernel.h):
 * the parameter lists, the types of one call, the broadcast, the out rule,
 * the specialisations and their dispatch to the device's backend (the
 * generated units: codegen.c; the contract with the backends:
 * src/shared/kernel_slots.h).
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "core/prof.h"
#include "core/rtc_slot.h"
#include "kernel/kernel_impl.h"

/* ------------------------------------------------------------------ */
/* Names                                                               */
/* ------------------------------------------------------------------ */
/* Kernel names live for the process: the profiler's records point at
 * them after the kernel is released. */
typedef struct kname {
    struct kname *next;
    char s[];
} kname;
static pthread_mutex_t g_names_mu = PTHREAD_MUTEX_INITIALIZER;
static kname *g_names;

static const char *intern(const char *s)
{
    pthread_mutex_lock(&g_names_mu);
    const kname *f = g_names;
    while (f && strcmp(f->s, s) != 0) f = f->next;
    if (!f) {
        kname *k = nd__malloc(sizeof *k + strlen(s) + 1); /* kept for the process */
        if (k) {
            strcpy(k->s, s);
            k->next = g_names;
            g_names = k;
        }
        f = k;
    }
    pthread_mutex_unlock(&g_names_mu);
    return f ? f->s : NULL;
}

static bool is_ident(const char *s, size_t n)
{
    if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return false;
    return true;
}

/* The dtype named s[0..n), or -1. */
static int dtype_named(const char *s, size_t n)
{
    for (int t = 0; t < ND_NUM_DTYPES; t++) {
        const char *d = nd_dtype_name((nd_dtype)t);
        if (strlen(d) == n && memcmp(d, s, n) == 0) return t;
    }
    return -1;
}

/* Words C or CUDA C++ reserve that a parameter may not be named. */
static bool reserved(const char *s)
{
    static const char *const words[] = {
        "auto",     "bool",   "break",   "case",    "char",     "const",   "continue", "default", "do",
        "double",   "else",   "enum",    "extern",  "float",    "for",     "goto",     "if",      "inline",
        "int",      "long",   "register", "restrict", "return", "short",   "signed",   "sizeof",  "static",
        "struct",   "switch", "typedef", "union",   "unsigned", "void",    "volatile", "while",   "class",
        "new",      "delete", "this",    "template", "typename", "true",   "false",    "namespace", "operator",
        "private",  "public", "using",   "virtual", "i",        "n",       NULL};
    for (int k = 0; words[k]; k++)
        if (strcmp(s, words[k]) == 0) return true;
    return strncmp(s, "nd_", 3) == 0 || s[0] == '_';
}

/* Parse "[raw] TYPE NAME, ..." into k->p (appending); out marks outputs. */
static nd_status parse_params(nd_kernel *k, const char *func, const char *list, bool out)
{
    const char *what = out ? "out_params" : "in_params";
    const char *s = list;
    int count = 0;
    while (*s) {
        const char *words[3];
        size_t lens[3];
        int nw = 0;
        while (*s && *s != ',') {
            while (*s == ' ' || *s == '\t' || *s == '\n') s++;
            if (!*s || *s == ',') break;
            const char *w = s;
            while (*s && *s != ',' && *s != ' ' && *s != '\t' && *s != '\n') s++;
            if (nw == 3) return nd__err(ND_ERR_INVALID, func, "%s: too many words in a parameter: \"%s\"", what, list);
            words[nw] = w;
            lens[nw++] = (size_t)(s - w);
        }
        if (*s == ',') s++;
        const bool raw = nw == 3 && lens[0] == 3 && memcmp(words[0], "raw", 3) == 0;
        if (nw != 2 && !raw)
            return nd__err(ND_ERR_INVALID, func, "%s: parameter %d is not \"[raw] TYPE NAME\": \"%s\"", what, count,
                           list);
        const char *ty = words[nw - 2], *nm = words[nw - 1];
        const size_t tl = lens[nw - 2], nl = lens[nw - 1];
        if (!is_ident(ty, tl) || !is_ident(nm, nl) || tl >= KP_NAME || nl >= KP_NAME)
            return nd__err(ND_ERR_INVALID, func, "%s: parameter %d: the type and the name must be C identifiers: \"%s\"",
                           what, count, list);
        if (k->nparams == ND_K_MAX_OPS)
            return nd__err(ND_ERR_INVALID, func, "a kernel has at most %d parameters", ND_K_MAX_OPS);
        kparam *p = &k->p[k->nparams];
        memset(p, 0, sizeof *p);
        memcpy(p->name, nm, nl);
        memcpy(p->type, ty, tl);
        p->raw = raw;
        p->out = out;
        const int t = dtype_named(ty, tl);
        p->placeholder = t < 0;
        p->dtype = t < 0 ? ND_FLOAT32 : (nd_dtype)t;
        if (reserved(p->name) || (p->placeholder && reserved(p->type)))
            return nd__err(ND_ERR_INVALID, func, "%s: '%s' is reserved (i, n, C/C++ keywords, names starting with nd_ or _)",
                           what, reserved(p->name) ? p->name : p->type);
        if (!p->placeholder && nd__kind(p->dtype) == ND_KIND_COMPLEX)
            return nd__err(ND_ERR_UNSUPPORTED, func, "parameter '%s': complex kernels are not supported", p->name);
        if (raw && !p->placeholder && nd__storage_only(p->dtype))
            return nd__err(ND_ERR_UNSUPPORTED, func, "raw parameter '%s': float16/bfloat16 cannot be raw", p->name);
        k->nparams++;
        count++;
    }
    if (out && count == 0) return nd__err(ND_ERR_INVALID, func, "out_params: a kernel needs at least one output");
    return ND_OK;
}

/* Names must be unique, also against a raw parameter's <name>_size and the
 * placeholders. */
static nd_status check_names(const nd_kernel *k, const char *func)
{
    for (int a = 0; a < k->nparams; a++)
        for (int b = 0; b < k->nparams; b++) {
            char sz[KP_NAME + 8];
            snprintf(sz, sizeof sz, "%s_size", k->p[b].name);
            if ((a < b && strcmp(k->p[a].name, k->p[b].name) == 0) || (k->p[b].raw && strcmp(k->p[a].name, sz) == 0) ||
                (k->p[b].placeholder && strcmp(k->p[a].name, k->p[b].type) == 0))
                return nd__err(ND_ERR_INVALID, func, "parameter name '%s' is used twice", k->p[a].name);
        }
    return ND_OK;
}

static char *dup_text(const char *t)
{
    const size_t n = strlen(t);
    char *c = nd__malloc(n + 1);
    if (c) memcpy(c, t, n + 1);
    return c;
}

/* The checks and the parameter lists both kinds of kernel share. */
static nd_status kernel_new(nd_kernel **out, const char *func, const char *in_params, const char *out_params,
                            const char *body, const char *name)
{
    ND_CHECK_PTR(func, out, "k");
    ND_CHECK_PTR(func, in_params, "in_params");
    ND_CHECK_PTR(func, out_params, "out_params");
    ND_CHECK_PTR(func, body, "body");
    ND_CHECK_PTR(func, name, "name");
    if (!is_ident(name, strlen(name)) || strlen(name) >= KP_NAME)
        return nd__err(ND_ERR_INVALID, func, "name \"%.40s\" is not a C identifier of at most %d characters", name,
                       KP_NAME - 1);
    nd_kernel *k = nd__calloc(1, sizeof *k);
    if (!k) return nd__err(ND_ERR_NOMEM, func, "out of memory");
    nd_status st;
    /* outputs first: operand order of the argument block */
    if ((st = parse_params(k, func, out_params, true)) == ND_OK) {
        k->nout = k->nparams;
        st = parse_params(k, func, in_params, false);
    }
    k->nin = k->nparams - k->nout;
    if (st == ND_OK) st = check_names(k, func);
    if (st == ND_OK && !(k->body = dup_text(body))) st = nd__err(ND_ERR_NOMEM, func, "out of memory");
    if (st == ND_OK && !(k->name = intern(name))) st = nd__err(ND_ERR_NOMEM, func, "out of memory");
    if (st) {
        nd__free(k->body);
        nd__free(k);
        return st;
    }
    for (int j = 0; j < k->nparams; j++) k->has_raw |= k->p[j].raw;
    pthread_mutex_init(&k->mu, NULL);
    *out = k;
    return ND_OK;
}

nd_status nd_kernel_elementwise(nd_kernel **out, const char *in_params, const char *out_params, const char *body,
                                const char *name, const nd_kernel_options *opts)
{
    (void)opts;
    return kernel_new(out, "nd_kernel_elementwise", in_params, out_params, body, name);
}

nd_status nd_kernel_reduction(nd_kernel **out, const char *in_params, const char *out_params, const char *map_expr,
                              const char *reduce_expr, const char *post_map_expr, const char *identity,
                              const char *reduce_type, const char *name, const nd_kernel_options *opts)
{
    static const char func[] = "nd_kernel_reduction";
    (void)opts;
    ND_CHECK_PTR(func, reduce_expr, "reduce_expr");
    ND_CHECK_PTR(func, identity, "identity");
    nd_kernel *k = NULL;
    nd_status st = kernel_new(&k, func, in_params, out_params, map_expr ? map_expr : "", name);
    if (st) return st;
    if (!map_expr || !*map_expr || !*reduce_expr || !*identity)
        st = nd__err(ND_ERR_INVALID, func, "map_expr, reduce_expr and identity must not be empty");
    else if (k->nout != 1 || k->has_raw)
        st = nd__err(ND_ERR_INVALID, func, "a reduction kernel has one output and no raw parameters");
    else if (k->nin == 0)
        st = nd__err(ND_ERR_INVALID, func, "a reduction kernel needs at least one input");
    else if (reduce_type && *reduce_type && (!is_ident(reduce_type, strlen(reduce_type)) || strlen(reduce_type) >= KP_NAME))
        st = nd__err(ND_ERR_INVALID, func, "reduce_type \"%.40s\" is not a type name", reduce_type);
    if (!st) {
        k->reduction = true;
        snprintf(k->rtype, sizeof k->rtype, "%s", reduce_type ? reduce_type : "");
        k->reduce_expr = dup_text(reduce_expr);
        k->post_expr = dup_text(post_map_expr && *post_map_expr ? post_map_expr : "");
        k->identity = dup_text(identity);
        if (!k->reduce_expr || !k->post_expr || !k->identity) st = nd__err(ND_ERR_NOMEM, func, "out of memory");
    }
    if (!st && k->rtype[0] && dtype_named(k->rtype, strlen(k->rtype)) < 0) {
        bool known = false; /* a placeholder must be one of the parameters' */
        for (int j = 0; j < k->nparams; j++) known |= k->p[j].placeholder && strcmp(k->p[j].type, k->rtype) == 0;
        if (!known) st = nd__err(ND_ERR_INVALID, func, "reduce_type '%s' is neither a dtype nor a parameter's type", k->rtype);
    }
    if (!st && k->rtype[0] && dtype_named(k->rtype, strlen(k->rtype)) >= 0 &&
        nd__kind((nd_dtype)dtype_named(k->rtype, strlen(k->rtype))) == ND_KIND_COMPLEX)
        st = nd__err(ND_ERR_UNSUPPORTED, func, "reduce_type '%s': complex kernels are not supported", k->rtype);
    if (st) {
        nd_kernel_release(k);
        return st;
    }
    *out = k;
    return ND_OK;
}

const char *nd_kernel_name(const nd_kernel *k) { return k ? k->name : NULL; }

void nd_kernel_release(nd_kernel *k)
{
    if (!k) return;
    kspec *s = k->specs;
    while (s) {
        kspec *n = s->next;
        nd__free(s);
        s = n;
    }
    pthread_mutex_destroy(&k->mu);
    nd__free(k->body);
    nd__free(k->reduce_expr);
    nd__free(k->post_expr);
    nd__free(k->identity);
    nd__free(k);
}

/* ------------------------------------------------------------------ */
/* A call                                                              */
/* ------------------------------------------------------------------ */
/* Resolve every parameter's dtype from the arrays: placeholders from the
 * inputs (and from given outputs), which must agree. */
static nd_status resolve_types(const nd_kernel *k, const char *func, const nd_array *const *ops, nd_dtype *pt)
{
    for (int j = 0; j < k->nparams; j++) {
        const kparam *p = &k->p[j];
        if (!p->placeholder) {
            pt[j] = p->dtype;
            continue;
        }
        int found = -1;
        /* inputs bind first, in order; then given outputs */
        for (int pass = 0; pass < 2 && found < 0; pass++)
            for (int q = pass == 0 ? k->nout : 0; q < (pass == 0 ? k->nparams : k->nout) && found < 0; q++)
                if (k->p[q].placeholder && strcmp(k->p[q].type, p->type) == 0 && ops[q]) found = q;
        if (found < 0)
            return nd__err(ND_ERR_DTYPE, func, "kernel '%s': cannot infer type '%s' of '%s' (no array given for it)",
                           k->name, p->type, p->name);
        pt[j] = ops[found]->dtype;
    }
    for (int j = 0; j < k->nparams; j++) {
        const kparam *p = &k->p[j];
        if (!ops[j]) continue;
        const nd_dtype t = ops[j]->dtype;
        if (nd__kind(t) == ND_KIND_COMPLEX)
            return nd__err(ND_ERR_UNSUPPORTED, func, "kernel '%s': '%s' is %s; complex kernels are not supported",
                           k->name, p->name, nd_dtype_name(t));
        if (p->placeholder && !p->out && t != pt[j])
            return nd__err(ND_ERR_DTYPE, func, "kernel '%s': type '%s' is %s for one argument and %s for '%s'", k->name,
                           p->type, nd_dtype_name(pt[j]), nd_dtype_name(t), p->name);
        if (p->raw && nd__storage_only(pt[j]))
            return nd__err(ND_ERR_UNSUPPORTED, func, "kernel '%s': raw parameter '%s' cannot be %s", k->name, p->name,
                           nd_dtype_name(pt[j]));
        if (p->raw && p->out && t != pt[j])
            return nd__err(ND_ERR_DTYPE, func, "kernel '%s': raw output '%s' must be %s, not %s", k->name, p->name,
                           nd_dtype_name(pt[j]), nd_dtype_name(t));
        if (!p->out && !nd_can_cast_same_kind(t, pt[j]))
            return nd__err(ND_ERR_DTYPE, func, "kernel '%s': cannot cast '%s' from %s to %s under same_kind", k->name,
                           p->name, nd_dtype_name(t), nd_dtype_name(pt[j]));
    }
    return ND_OK;
}

/* The spec of (kshape) on k, made and compiled by the backend on first use. */
static kspec *spec_of(nd_kernel *k, const char *key)
{
    pthread_mutex_lock(&k->mu);
    kspec *s = k->specs;
    while (s && strcmp(s->key, key) != 0) s = s->next;
    if (!s && (s = nd__calloc(1, sizeof *s))) {
        snprintf(s->key, sizeof s->key, "%s", key);
        s->next = k->specs;
        k->specs = s;
    }
    pthread_mutex_unlock(&k->mu);
    return s;
}

/* Blocks per output of a CUDA reduction's first level: 1 (one block per
 * output, nd_k_kernel) unless few outputs share many elements; then about
 * 1024 blocks in all, each over at least 4 runs of 256 elements. */
static int64_t reduce_parts(int64_t n, int64_t m)
{
    if (n >= 64) return 1;
    int64_t g = 1024 / n, need = (m + 1023) / 1024;
    return g < need ? g : need;
}

/* A CUDA unit through the rtc slots: compiled (cached by the backend in
 * memory and on disk) on the first call of the specialisation, then one
 * grid-stride launch on the device's current stream (a reduction with few
 * outputs: two, through a scratch of partial accumulators). */
static nd_status run_cuda(const nd_backend *be, nd_kernel *k, kspec *sp, const char *src, const nd_k_args *a,
                          nd_device dev, size_t acc_size, const char *func)
{
    void *kern = __atomic_load_n(&sp->handle, __ATOMIC_ACQUIRE);
    nd_status st = ND_OK;
    if (!kern) {
        pthread_mutex_lock(&k->mu);
        if (!(kern = sp->handle)) {
            char unit[KP_NAME + 8];
            snprintf(unit, sizeof unit, "%s.cu", k->name);
            const nd_rtc_source rs = {src, unit, NULL, 0};
            nd_rtc_module *mod = NULL;
            int origin = 0;
            st = be->rtc_compile(&mod, dev.id, &rs, &origin, func);
            if (!st) st = be->rtc_kernel(&kern, mod, "nd_k_kernel", func);
            if (!st && k->reduction) st = be->rtc_kernel(&sp->part, mod, "nd_k_part", func);
            if (!st && k->reduction) st = be->rtc_kernel(&sp->final, mod, "nd_k_final", func);
            if (!st) __atomic_store_n(&sp->handle, kern, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&k->mu);
        if (st) return st;
    }
    const unsigned block[3] = {256, 1, 1};
    if (k->reduction) {
        int64_t m = 1;
        for (int64_t d = a->ndim; d < a->ndim + a->nred; d++) m *= a->shape[d];
        int64_t parts = reduce_parts(a->n, m);
        if (parts > 1) {
            const int64_t nbytes = a->n * parts * (int64_t)acc_size;
            nd_array *scratch = NULL;
            if ((st = nd_empty(&scratch, ND_UINT8, 1, &nbytes, dev))) return nd__err_prefix(st, func);
            void *ptr = nd__ptr(scratch);
            void *args[3] = {(void *)a, &ptr, &parts};
            const int64_t b1 = a->n * parts;
            const unsigned g1[3] = {(unsigned)(b1 < 65536 ? b1 : 65536), 1, 1};
            const unsigned g2[3] = {(unsigned)(a->n < 65536 ? a->n : 65536), 1, 1};
            st = be->rtc_launch(sp->part, dev.id, g1, block, 0, args, func);
            if (!st) st = be->rtc_launch(sp->final, dev.id, g2, block, 0, args, func);
            nd_release(scratch); /* the pool orders its reuse after this stream's work */
            return st;
        }
    }
    /* 256 threads a block; at most 2^16 blocks, each then strides. An
     * elementwise kernel gives each thread an element, a reduction each
     * block an output (its threads share the reduced elements). */
    const int64_t blocks = k->reduction ? a->n : (a->n + 255) / 256;
    const unsigned grid[3] = {(unsigned)(blocks < 65536 ? blocks : 65536), 1, 1};
    void *args[1] = {(void *)a};
    return be->rtc_launch(kern, dev.id, grid, block, 0, args, func);
}

/* Every given operand on dev, and dev's backend compiling kernels: *be,
 * and the language its units are generated in (C for the kernel_ew slot,
 * CUDA for the rtc slots). */
static nd_status device_of_call(const nd_kernel *k, const char *func, const nd_array *const *ops, nd_device dev,
                                const nd_backend **be, int *lang)
{
    char d1[32], d2[32];
    for (int j = 0; j < k->nparams; j++)
        if (ops[j] && !nd__same_device(ops[j]->device, dev))
            return nd__err(ND_ERR_DEVICE, func, "kernel '%s': '%s' is on %s, the other arrays on %s", k->name,
                           k->p[j].name, nd__device_name(ops[j]->device, d1, sizeof d1),
                           nd__device_name(dev, d2, sizeof d2));
    *be = nd__backend(dev);
    *lang = (*be)->kernel_ew ? KLANG_C : KLANG_CUDA;
    if (!(*be)->kernel_ew && !((*be)->rtc_compile && (*be)->rtc_kernel && (*be)->rtc_launch))
        return nd__err(ND_ERR_UNSUPPORTED, func, "kernel '%s': %s does not compile kernels", k->name,
                       nd__device_name(dev, d1, sizeof d1));
    return ND_OK;
}

nd_status nd_kernel_call(nd_kernel *k, int nin, const nd_array *const *in, int nout, nd_array **out)
{
    static const char func[] = "nd_kernel_call";
    ND_CHECK_PTR(func, k, "k");
    if (k->reduction)
        return nd__err(ND_ERR_INVALID, func, "kernel '%s' is a reduction: call nd_kernel_reduce", k->name);
    if (nin != k->nin || nout != k->nout)
        return nd__err(ND_ERR_INVALID, func, "kernel '%s' takes %d inputs and %d outputs, not %d and %d", k->name,
                       k->nin, k->nout, nin, nout);
    if (nin > 0) ND_CHECK_PTR(func, in, "in");
    ND_CHECK_PTR(func, out, "out");
    const nd_array *ops[ND_K_MAX_OPS] = {0};
    for (int j = 0; j < nout; j++) ops[j] = out[j];
    for (int j = 0; j < nin; j++) {
        if (!in[j]) return nd__err(ND_ERR_INVALID, func, "kernel '%s': input '%s' is NULL", k->name, k->p[nout + j].name);
        ops[nout + j] = in[j];
    }
    /* one device */
    const nd_array *first = NULL;
    for (int j = 0; j < k->nparams && !first; j++) first = ops[(j + nout) % k->nparams];
    if (!first) return nd__err(ND_ERR_INVALID, func, "kernel '%s': no array given to say the device", k->name);
    const nd_device dev = first->device;
    const nd_backend *be = NULL;
    int lang = 0;
    nd_status st0 = device_of_call(k, func, ops, dev, &be, &lang);
    if (st0) return st0;
    kshape ks;
    memset(&ks, 0, sizeof ks);
    nd_status st = resolve_types(k, func, ops, ks.pt);
    if (st) return st;
    /* the iteration shape: the broadcast of the non-raw inputs, else the
     * first given non-raw output's */
    int ndim = 0;
    int64_t shape[ND_MAX_DIMS];
    bool any = false;
    for (int j = nout; j < k->nparams; j++) {
        if (k->p[j].raw) continue;
        if (!any) {
            ndim = ops[j]->ndim;
            memcpy(shape, ops[j]->shape, sizeof(int64_t) * (size_t)ndim);
            any = true;
        } else if ((st = nd__broadcast_shapes(func, ndim, shape, ops[j]->ndim, ops[j]->shape, &ndim, shape))) {
            return st;
        }
    }
    for (int j = 0; j < nout && !any; j++)
        if (!k->p[j].raw && ops[j]) {
            ndim = ops[j]->ndim;
            memcpy(shape, ops[j]->shape, sizeof(int64_t) * (size_t)ndim);
            any = true;
        }
    for (int j = 0; j < nout; j++)
        if (k->p[j].raw && !ops[j])
            return nd__err(ND_ERR_INVALID, func, "kernel '%s': raw output '%s' must be given", k->name, k->p[j].name);
    if (!any)
        return nd__err(ND_ERR_SHAPE, func, "kernel '%s': no non-raw input or given output names the shape", k->name);

    ND_PROF_OP_N(k->name, out, nin, in);
    nd_out t[ND_K_MAX_OPS];
    memset(t, 0, sizeof t);
    int begun = 0;
    nd_array *held[ND_K_MAX_OPS] = {0}; /* copies made for this call */
    /* the argument block lives on the stack: the CPU slot runs the kernel
     * before it returns, the rtc launch copies it */
    nd_k_args args;
    nd_k_args *const a = &args;
    for (; begun < nout && !st; begun++) {
        if (k->p[begun].raw) {
            nd_array *r = out[begun];
            if (!nd_is_contiguous(r)) st = nd__err(ND_ERR_INVALID, func, "kernel '%s': raw output '%s' must be C-contiguous", k->name, k->p[begun].name);
            else st = nd__out_check_writable(func, r, k->p[begun].name);
            continue;
        }
        st = nd__out_begin(&t[begun], func, &out[begun], ks.pt[begun], ndim, shape, dev);
        if (!st) nd__out_keep_order(&t[begun], nin, in);
        if (!st) st = nd__out_target(&t[begun], ks.pt[begun], ND_OUT_EXACT_DTYPE | ND_OUT_ELEMENTWISE, nin, in);
        /* the body may read the output's current value: a temporary starts
         * as a copy of the caller's array */
        if (!st && t[begun].tmp && !t[begun].fresh) st = nd__copy_into(t[begun].tmp, t[begun].res);
    }
    if (st) goto done;
    a->n = 1;
    a->ndim = ndim > 0 ? ndim : 1;
    for (int d = 0; d < ndim; d++) a->n *= shape[d];
    if (ndim == 0) a->shape[0] = 1;
    else memcpy(a->shape, shape, sizeof(int64_t) * (size_t)ndim);
    ks.contig = true;
    for (int j = 0; j < k->nparams && !st; j++) {
        const nd_array *v = j < nout ? (k->p[j].raw ? out[j] : t[j].dst) : ops[j];
        if (k->p[j].raw) {
            if (!k->p[j].out && (!nd_is_contiguous(v) || v->dtype != ks.pt[j])) {
                if ((st = nd__copy_new(&held[j], v, ks.pt[j]))) break;
                v = held[j];
            }
            ks.st[j] = v->dtype;
            a->data[j] = nd__ptr(v);
            a->size[j] = v->size;
            continue;
        }
        /* an input's strides over the broadcast shape (no view made: the
         * shapes broadcast, checked above); an output has that shape */
        int64_t bstr[ND_MAX_DIMS];
        const int lead = ndim - v->ndim;
        for (int d = 0; d < ndim; d++)
            bstr[d] = d < lead || v->shape[d - lead] != shape[d] ? 0 : v->strides[d - lead];
        ks.st[j] = v->dtype;
        a->data[j] = nd__ptr(v);
        a->size[j] = v->size;
        bool scalar = j >= nout;
        for (int d = 0; d < ndim && scalar; d++) scalar = shape[d] <= 1 || bstr[d] == 0;
        ks.scalar[j] = scalar;
        const size_t isz = nd_dtype_size(v->dtype);
        int64_t c = (int64_t)isz;
        for (int d = (int)a->ndim - 1; d >= 0; d--) {
            const int64_t s = ndim == 0 ? 0 : bstr[d] * (int64_t)isz;
            a->strides[j][d] = a->shape[d] > 1 ? s : 0;
            if (!scalar && a->shape[d] > 1 && s != c) ks.contig = false;
            c *= a->shape[d];
        }
    }
    if (st) goto done;
    if (a->n > 0) {
        char key[3 * ND_K_MAX_OPS + 16];
        /* per device: a GPU's compiled code belongs to its context */
        /* built by hand: formatting it cost a fifth of a cached call */
        int kl = 0, id = dev.id % 1000;
        key[kl++] = (char)('0' + (int)dev.type % 10);
        key[kl++] = '.';
        key[kl++] = (char)('0' + id / 100), key[kl++] = (char)('0' + id / 10 % 10), key[kl++] = (char)('0' + id % 10);
        key[kl++] = ks.contig ? 'c' : 'g';
        for (int j = 0; j < k->nparams; j++) {
            key[kl++] = (char)('A' + (int)ks.st[j]);
            key[kl++] = (char)('a' + (int)ks.pt[j]);
            key[kl++] = ks.scalar[j] ? 's' : 'v';
        }
        key[kl] = '\0';
        kspec *sp = spec_of(k, key);
        char *src = NULL;
        if (!sp) st = nd__err(ND_ERR_NOMEM, func, "out of memory");
        else if (!sp->handle && !(src = nd__kgen_elementwise(k, &ks, lang))) st = nd__err(ND_ERR_NOMEM, func, "out of memory");
        if (!st && lang == KLANG_C) {
            nd_k_call c = {func, k->name, src, &sp->handle, a, dev.id, k->has_raw, 4};
            if (__atomic_load_n(&sp->handle, __ATOMIC_ACQUIRE)) {
                st = be->kernel_ew(&c);
            } else { /* one compilation per specialisation */
                pthread_mutex_lock(&k->mu);
                st = be->kernel_ew(&c);
                pthread_mutex_unlock(&k->mu);
            }
        } else if (!st) {
            st = run_cuda(be, k, sp, src, a, dev, 0, func);
        }
        nd__free(src);
    }
done:
    for (int j = 0; j < ND_K_MAX_OPS; j++) nd_release(held[j]);
    for (int j = 0; j < begun; j++)
        if (!k->p[j].raw) {
            const nd_status e = nd__out_end(&t[j], st);
            if (!st) st = e;
        }
    return st;
}

/* ------------------------------------------------------------------ */
/* A reduction                                                         */
/* ------------------------------------------------------------------ */
/* The accumulator's dtype: reduce_type, a placeholder's resolution, or
 * the output's. */
static nd_dtype acc_dtype(const nd_kernel *k, const nd_dtype *pt)
{
    if (!k->rtype[0]) return pt[0];
    const int t = dtype_named(k->rtype, strlen(k->rtype));
    if (t >= 0) return (nd_dtype)t;
    for (int j = 0; j < k->nparams; j++)
        if (k->p[j].placeholder && strcmp(k->p[j].type, k->rtype) == 0) return pt[j];
    return pt[0];
}

nd_status nd_kernel_reduce(nd_kernel *k, int nin, const nd_array *const *in, int naxes, const int *axes, bool keepdims,
                           nd_array **out)
{
    static const char func[] = "nd_kernel_reduce";
    ND_CHECK_PTR(func, k, "k");
    if (!k->reduction)
        return nd__err(ND_ERR_INVALID, func, "kernel '%s' is elementwise: call nd_kernel_call", k->name);
    if (nin != k->nin)
        return nd__err(ND_ERR_INVALID, func, "kernel '%s' takes %d inputs, not %d", k->name, k->nin, nin);
    ND_CHECK_PTR(func, in, "in");
    ND_CHECK_PTR(func, out, "out");
    if (naxes < 0 || naxes > ND_MAX_DIMS || (naxes > 0 && !axes))
        return nd__err(ND_ERR_INVALID, func, "naxes %d with axes %s", naxes, axes ? "given" : "NULL");
    const nd_array *ops[ND_K_MAX_OPS] = {0};
    ops[0] = *out;
    for (int j = 0; j < nin; j++) {
        if (!in[j]) return nd__err(ND_ERR_INVALID, func, "kernel '%s': input '%s' is NULL", k->name, k->p[1 + j].name);
        ops[1 + j] = in[j];
    }
    const nd_device dev = in[0]->device;
    const nd_backend *be = NULL;
    int lang = 0;
    nd_status st0 = device_of_call(k, func, ops, dev, &be, &lang);
    if (st0) return st0;
    kshape ks;
    memset(&ks, 0, sizeof ks);
    nd_status st = resolve_types(k, func, ops, ks.pt);
    if (st) return st;
    const nd_dtype acc = acc_dtype(k, ks.pt);
    if (nd__kind(acc) == ND_KIND_COMPLEX)
        return nd__err(ND_ERR_UNSUPPORTED, func, "kernel '%s': complex kernels are not supported", k->name);
    /* the broadcast of the inputs, and which of its axes are reduced */
    int ndim = in[0]->ndim;
    int64_t shape[ND_MAX_DIMS];
    memcpy(shape, in[0]->shape, sizeof(int64_t) * (size_t)ndim);
    for (int j = 1; j < nin; j++)
        if ((st = nd__broadcast_shapes(func, ndim, shape, in[j]->ndim, in[j]->shape, &ndim, shape))) return st;
    bool red[ND_MAX_DIMS] = {false};
    if (naxes == 0 && !axes) {
        for (int d = 0; d < ndim; d++) red[d] = true;
    }
    for (int q = 0; q < naxes; q++) {
        const int ax = axes[q] < 0 ? axes[q] + ndim : axes[q];
        if (ax < 0 || ax >= ndim)
            return nd__err(ND_ERR_SHAPE, func, "axis %d is out of bounds for %d dimensions", axes[q], ndim);
        if (red[ax]) return nd__err(ND_ERR_SHAPE, func, "axis %d is repeated", axes[q]);
        red[ax] = true;
    }
    int ondim = 0, nk = 0, nr = 0;
    int64_t oshape[ND_MAX_DIMS];
    for (int d = 0; d < ndim; d++) {
        if (!red[d]) oshape[ondim++] = shape[d], nk++;
        else if (keepdims) oshape[ondim++] = 1;
        if (red[d]) nr++;
    }
    ND_PROF_OP_N(k->name, out, nin, in);
    nd_out t;
    memset(&t, 0, sizeof t);
    nd_array *held[ND_K_MAX_OPS] = {0};
    nd_k_args *a = NULL;
    if ((st = nd__out_begin(&t, func, out, ks.pt[0], ondim, oshape, dev))) goto done;
    if ((st = nd__out_target(&t, ks.pt[0], ND_OUT_EXACT_DTYPE, nin, in))) goto done;
    if (t.tmp && !t.fresh && (st = nd__copy_into(t.tmp, t.res))) goto done;
    if (!(a = nd__malloc(sizeof *a))) {
        st = nd__err(ND_ERR_NOMEM, func, "out of memory");
        goto done;
    }
    memset(a, 0, sizeof *a);
    a->ndim = nk;
    a->nred = nr;
    a->n = 1;
    {
        int kd = 0, rd = nk;
        for (int d = 0; d < ndim; d++) a->shape[red[d] ? rd++ : kd++] = shape[d];
        for (int d = 0; d < nk; d++) a->n *= a->shape[d];
    }
    /* the output: its strides along the kept axes (0 along the reduced) */
    {
        const nd_array *o = t.dst;
        const int64_t isz = (int64_t)nd_dtype_size(o->dtype);
        int od = 0, kd = 0;
        for (int d = 0; d < ndim; d++) {
            if (red[d]) {
                if (keepdims) od++;
                continue;
            }
            a->strides[0][kd++] = o->shape[od] > 1 ? o->strides[od] * isz : 0;
            od++;
        }
        a->data[0] = nd__ptr(o);
        ks.st[0] = o->dtype;
    }
    for (int j = 1; j < k->nparams && !st; j++) {
        if ((st = nd__broadcast_view(&held[j], ops[j], ndim, shape))) break;
        const nd_array *v = held[j];
        const int64_t isz = (int64_t)nd_dtype_size(v->dtype);
        int kd = 0, rd = nk;
        for (int d = 0; d < ndim; d++) {
            const int64_t sb = shape[d] > 1 ? v->strides[d] * isz : 0;
            a->strides[j][red[d] ? rd++ : kd++] = sb;
        }
        a->data[j] = nd__ptr(v);
        ks.st[j] = v->dtype;
    }
    if (st || a->n == 0) goto done;
    {
        char key[3 * ND_K_MAX_OPS + 16];
        int kl = snprintf(key, sizeof key, "%d.%dr%c", (int)dev.type, dev.id % 1000, 'A' + (int)acc);
        for (int j = 0; j < k->nparams; j++)
            kl += snprintf(key + kl, sizeof key - (size_t)kl, "%c%c", 'A' + (int)ks.st[j], 'a' + (int)ks.pt[j]);
        kspec *sp = spec_of(k, key);
        char *src = NULL;
        if (!sp) st = nd__err(ND_ERR_NOMEM, func, "out of memory");
        else if (!sp->handle && !(src = nd__kgen_reduction(k, &ks, acc, lang))) st = nd__err(ND_ERR_NOMEM, func, "out of memory");
        if (!st && lang == KLANG_C) {
            int64_t m = 1;
            for (int d = nk; d < nk + nr; d++) m *= a->shape[d];
            nd_k_call c = {func, k->name, src, &sp->handle, a, dev.id, false, m < (1 << 20) ? 2 * m + 1 : (2 << 20)};
            if (__atomic_load_n(&sp->handle, __ATOMIC_ACQUIRE)) {
                st = be->kernel_ew(&c);
            } else {
                pthread_mutex_lock(&k->mu);
                st = be->kernel_ew(&c);
                pthread_mutex_unlock(&k->mu);
            }
        } else if (!st) {
            /* the unit's nd_k_acc: float for float16/bfloat16 (value_type) */
            const size_t acc_size = nd__storage_only(acc) ? sizeof(float) : nd_dtype_size(acc);
            st = run_cuda(be, k, sp, src, a, dev, acc_size, func);
        }
        nd__free(src);
    }
done:
    for (int j = 0; j < ND_K_MAX_OPS; j++) nd_release(held[j]);
    nd__free(a);
    return nd__out_end(&t, st);
}
