/*
 * Elementwise kernels from a C body (include/ndgpu/kernel.h): the
 * parameter lists, the types of one call, the broadcast, the generated
 * translation unit (src/shared/kernel_slots.h for the contract with the
 * backends, which compile and run it).
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "core/prof.h"
#include "core/rtc_slot.h"
#include "shared/kernel_slots.h"

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
/* The generated unit                                                  */
/* ------------------------------------------------------------------ */
typedef struct {
    char *p;
    size_t len, cap;
    bool oom;
} sbuf;

__attribute__((format(printf, 2, 3))) static void sb_add(sbuf *b, const char *fmt, ...)
{
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        const int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = true;
            return;
        }
        if (b->p && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        const size_t cap = (b->cap + (size_t)n + 1) * 2;
        char *q = nd__realloc(b->p, cap);
        if (!q) {
            b->oom = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
}

/* The C type an operand of dtype t is stored as, and the one its values
 * have in the body. */
static const char *storage_type(nd_dtype t)
{
    switch (t) {
    case ND_BOOL: return "uint8_t";
    case ND_INT8: return "int8_t";
    case ND_INT16: return "int16_t";
    case ND_INT32: return "int32_t";
    case ND_INT64: return "int64_t";
    case ND_UINT8: return "uint8_t";
    case ND_UINT16: return "uint16_t";
    case ND_UINT32: return "uint32_t";
    case ND_UINT64: return "uint64_t";
    case ND_FLOAT16:
    case ND_BFLOAT16: return "uint16_t";
    case ND_FLOAT32: return "float";
    default: return "double";
    }
}
static const char *value_type(nd_dtype t)
{
    if (t == ND_BOOL) return "bool";
    return nd__storage_only(t) ? "float" : storage_type(t);
}

/* Expression reading one stored element `ref` of dtype st as a value of
 * parameter dtype pt (st casts to pt under same_kind). */
static void sb_load(sbuf *b, nd_dtype st, nd_dtype pt, const char *ref)
{
    char nat[160];
    if (st == ND_BOOL) snprintf(nat, sizeof nat, "(%s != 0)", ref);
    else if (st == ND_FLOAT16) snprintf(nat, sizeof nat, "nd_half_to_float(%s)", ref);
    else if (st == ND_BFLOAT16) snprintf(nat, sizeof nat, "nd_bf16_to_float(%s)", ref);
    else snprintf(nat, sizeof nat, "%s", ref);
    if (st == pt) sb_add(b, "(%s)%s", value_type(pt), nat);
    else if (pt == ND_FLOAT16) sb_add(b, "nd_half_to_float(nd_double_to_half((double)%s))", nat);
    else if (pt == ND_BFLOAT16) sb_add(b, "nd_bf16_to_float(nd_double_to_bf16((double)%s))", nat);
    else sb_add(b, "(%s)%s", value_type(pt), nat);
}

/* Statement storing value v into stored element `ref` of dtype t. */
static void sb_store(sbuf *b, nd_dtype t, const char *ref, const char *v)
{
    if (t == ND_BOOL) sb_add(b, "%s = (uint8_t)(%s != 0);", ref, v);
    else if (t == ND_FLOAT16) sb_add(b, "%s = nd_float_to_half(%s);", ref, v);
    else if (t == ND_BFLOAT16) sb_add(b, "%s = nd_float_to_bf16(%s);", ref, v);
    else sb_add(b, "%s = %s;", ref, v);
}

/* What one call fixes: each operand's parameter dtype, storage dtype and
 * whether it is a scalar (stride 0 everywhere), and the layout class. */
typedef struct {
    nd_dtype pt[ND_K_MAX_OPS], st[ND_K_MAX_OPS];
    bool scalar[ND_K_MAX_OPS];
    bool contig;
} kshape;

/* The element loop over operands: loads into values, the body, stores.
 * ref(k) is the element reference of operand k ("p3[i]" or "(*(T *)q3)"). */
static void gen_element(sbuf *b, const nd_kernel *k, const kshape *ks, bool contig)
{
    char ref[64], v[32];
    for (int j = 0; j < k->nparams; j++) {
        const kparam *p = &k->p[j];
        if (p->raw) continue;
        if (ks->scalar[j] && !p->out) continue; /* hoisted */
        if (contig) snprintf(ref, sizeof ref, "p%d[i]", j);
        else snprintf(ref, sizeof ref, "(*(%s *)q%d)", storage_type(ks->st[j]), j);
        sb_add(b, "            %s%s v%d = ", p->out ? "" : "const ", value_type(ks->pt[j]), j);
        sb_load(b, ks->st[j], ks->pt[j], ref);
        sb_add(b, ";\n");
    }
    sb_add(b, "            nd_k_elem(i, a->n");
    for (int j = 0; j < k->nparams; j++) {
        const kparam *p = &k->p[j];
        if (p->raw) sb_add(b, ", (%s%s *)a->data[%d], a->size[%d]", p->out ? "" : "const ", storage_type(ks->st[j]), j, j);
        else if (p->out) sb_add(b, ", &v%d", j);
        else sb_add(b, ", v%d", j);
    }
    sb_add(b, ");\n");
    for (int j = 0; j < k->nout; j++) {
        if (k->p[j].raw) continue;
        if (contig) snprintf(ref, sizeof ref, "p%d[i]", j);
        else snprintf(ref, sizeof ref, "(*(%s *)q%d)", storage_type(ks->st[j]), j);
        snprintf(v, sizeof v, "v%d", j);
        sb_add(b, "            ");
        sb_store(b, ks->st[j], ref, v);
        sb_add(b, "\n");
    }
}

/* The languages of the generated units. */
enum { KLANG_C, KLANG_CUDA };

/* The prelude of a CUDA unit: NVRTC has no standard headers, so the
 * fixed-width types come from here; the library's shared headers follow
 * inline (their own #include lines dropped). */
static const char cuda_prelude[] =
    "#if defined(__CUDACC_RTC__)\n"
    "typedef signed char int8_t; typedef short int16_t; typedef int int32_t; typedef long long int64_t;\n"
    "typedef unsigned char uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t;\n"
    "typedef unsigned long long uint64_t;\n"
    "#else\n#include <stdint.h>\n#include <string.h>\n#include <math.h>\n#endif\n"
    "#define ND_K_FN static __device__ __forceinline__\n";

/* The embedded shared headers, inline, without their #include lines. */
static void sb_headers_inline(sbuf *b)
{
    for (int h = 0; h < nd__kernel_header_count; h++) {
        const char *t = nd__kernel_header_texts[h];
        while (*t) {
            const char *e = strchr(t, '\n');
            const size_t n = e ? (size_t)(e - t) + 1 : strlen(t);
            if (strncmp(t, "#include", 8) != 0) sb_add(b, "%.*s", (int)n, t);
            t += n;
        }
    }
}

/* The translation unit of one specialisation: C for a backend that runs
 * nd_k_range (the CPU), CUDA C++ for one that compiles CUDA source
 * (nd_k_kernel, a grid-stride loop over the same element code). */
static char *gen_unit(const nd_kernel *k, const kshape *ks, int lang)
{
    sbuf b = {0};
    sb_add(&b, "/* libndgpu kernel '%s' */\n", k->name);
    if (lang == KLANG_C) {
        sb_add(&b, "#include <stdbool.h>\n#include <stdint.h>\n#include <tgmath.h>\n#include \"shared/half.h\"\n"
                   "#define ND_K_FN static inline __attribute__((always_inline))\n");
    } else {
        sb_add(&b, "%s", cuda_prelude);
        sb_headers_inline(&b);
    }
    sb_add(&b, "typedef %s nd_k_args;\n", ND_K_ARGS_TEXT);
    /* placeholders, once each */
    for (int j = 0; j < k->nparams; j++) {
        if (!k->p[j].placeholder) continue;
        bool first = true;
        for (int q = 0; q < j; q++) first &= !(k->p[q].placeholder && strcmp(k->p[q].type, k->p[j].type) == 0);
        if (first) sb_add(&b, "typedef %s %s;\n", value_type(ks->pt[j]), k->p[j].type);
    }
    sb_add(&b, "ND_K_FN void nd_k_elem(const int64_t i, const int64_t n");
    for (int j = 0; j < k->nparams; j++) {
        const kparam *p = &k->p[j];
        if (p->raw) sb_add(&b, ", %s%s *const %s, const int64_t %s_size", p->out ? "" : "const ",
                           storage_type(ks->pt[j]), p->name, p->name);
        else if (p->out) sb_add(&b, ", %s *const nd_o_%s", value_type(ks->pt[j]), p->name);
        else sb_add(&b, ", const %s %s", value_type(ks->pt[j]), p->name);
    }
    sb_add(&b, ")\n{\n    (void)i; (void)n;\n");
    for (int j = 0; j < k->nparams; j++) {
        const kparam *p = &k->p[j];
        if (p->raw) sb_add(&b, "    (void)%s; (void)%s_size;\n", p->name, p->name);
        else if (!p->out) sb_add(&b, "    (void)%s;\n", p->name);
        else sb_add(&b, "#define %s (*nd_o_%s)\n", p->name, p->name);
    }
    sb_add(&b, "#line 1 \"%s\"\n%s\n;\n", k->name, k->body);
    for (int j = 0; j < k->nout; j++)
        if (!k->p[j].raw) sb_add(&b, "#undef %s\n", k->p[j].name);
    if (lang == KLANG_C) {
        sb_add(&b, "}\n\nvoid nd_k_range(const nd_k_args *a, int64_t begin, int64_t end)\n{\n");
    } else {
        sb_add(&b, "}\n\nextern \"C\" __global__ void nd_k_kernel(const nd_k_args a_)\n{\n"
                   "    const nd_k_args *const a = &a_;\n"
                   "    const int64_t step = (int64_t)gridDim.x * blockDim.x;\n");
    }
    /* scalars: read once */
    char ref[64];
    for (int j = 0; j < k->nparams; j++) {
        if (k->p[j].raw || k->p[j].out || !ks->scalar[j]) continue;
        snprintf(ref, sizeof ref, "(*(const %s *)a->data[%d])", storage_type(ks->st[j]), j);
        sb_add(&b, "    const %s v%d = ", value_type(ks->pt[j]), j);
        sb_load(&b, ks->st[j], ks->pt[j], ref);
        sb_add(&b, ";\n");
    }
    const char *loop = lang == KLANG_C ? "    for (int64_t i = begin; i < end; i++) {\n"
                                       : "    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a->n; "
                                         "i += step) {\n";
    if (ks->contig) {
        for (int j = 0; j < k->nparams; j++)
            if (!k->p[j].raw && !(ks->scalar[j] && !k->p[j].out))
                sb_add(&b, "    %s%s *const p%d = (%s%s *)a->data[%d];\n", k->p[j].out ? "" : "const ",
                       storage_type(ks->st[j]), j, k->p[j].out ? "" : "const ", storage_type(ks->st[j]), j);
        /* elements are independent unless raw operands couple them */
        if (lang == KLANG_C && !k->has_raw) sb_add(&b, "#pragma omp simd\n");
        sb_add(&b, "%s", loop);
        gen_element(&b, k, ks, true);
        sb_add(&b, "    }\n}\n");
    } else if (lang == KLANG_CUDA) {
        /* general strides: each element's offsets from its index */
        sb_add(&b, "%s", loop);
        for (int j = 0; j < k->nparams; j++)
            if (!k->p[j].raw && !(ks->scalar[j] && !k->p[j].out)) sb_add(&b, "        char *q%d = a->data[%d];\n", j, j);
        sb_add(&b, "        int64_t r = i;\n        for (int d = (int)a->ndim - 1; d >= 0; d--) {\n"
                   "            const int64_t x = r %% a->shape[d];\n            r /= a->shape[d];\n");
        for (int j = 0; j < k->nparams; j++)
            if (!k->p[j].raw && !(ks->scalar[j] && !k->p[j].out))
                sb_add(&b, "            q%d += x * a->strides[%d][d];\n", j, j);
        sb_add(&b, "        }\n        {\n");
        gen_element(&b, k, ks, false);
        sb_add(&b, "        }\n    }\n}\n");
    } else {
        /* general strides: an odometer over the broadcast shape in C order */
        sb_add(&b, "    const int nd = (int)a->ndim;\n    int64_t idx[32];\n    int64_t r = begin;\n"
                   "    for (int d = nd - 1; d >= 0; d--) { idx[d] = r %% a->shape[d]; r /= a->shape[d]; }\n");
        for (int j = 0; j < k->nparams; j++) {
            if (k->p[j].raw || (ks->scalar[j] && !k->p[j].out)) continue;
            sb_add(&b, "    char *q%d = a->data[%d];\n    for (int d = 0; d < nd; d++) q%d += idx[d] * a->strides[%d][d];\n",
                   j, j, j, j);
        }
        sb_add(&b, "%s        {\n", loop);
        gen_element(&b, k, ks, false);
        sb_add(&b, "        }\n        for (int d = nd - 1; d >= 0; d--) {\n");
        for (int j = 0; j < k->nparams; j++)
            if (!k->p[j].raw && !(ks->scalar[j] && !k->p[j].out)) sb_add(&b, "            q%d += a->strides[%d][d];\n", j, j);
        sb_add(&b, "            if (++idx[d] < a->shape[d] || d == 0) break;\n");
        for (int j = 0; j < k->nparams; j++)
            if (!k->p[j].raw && !(ks->scalar[j] && !k->p[j].out))
                sb_add(&b, "            q%d -= a->shape[d] * a->strides[%d][d];\n", j, j);
        sb_add(&b, "            idx[d] = 0;\n        }\n    }\n}\n");
    }
    if (b.oom) {
        nd__free(b.p);
        return NULL;
    }
    return b.p;
}

/* The element reads of a reduction's inputs through the pointers p<j>. */
static void sb_map_call(sbuf *b, const nd_kernel *k, const kshape *ks)
{
    char ref[64];
    sb_add(b, "nd_k_map(");
    for (int j = 1; j < k->nparams; j++) {
        snprintf(ref, sizeof ref, "(*(const %s *)p%d)", storage_type(ks->st[j]), j);
        if (j > 1) sb_add(b, ", ");
        sb_load(b, ks->st[j], ks->pt[j], ref);
    }
    sb_add(b, ")");
}

/* The output's store from the accumulator acc through q0. */
static void sb_post_store(sbuf *b, const kshape *ks, const char *acc, const char *indent)
{
    char ref[64];
    snprintf(ref, sizeof ref, "(*(%s *)q0)", storage_type(ks->st[0]));
    sb_add(b, "%s{\n%s    %s v0 = ", indent, indent, value_type(ks->pt[0]));
    sb_load(b, ks->st[0], ks->pt[0], ref);
    sb_add(b, ";\n%s    nd_k_post(%s, &v0);\n%s    ", indent, acc, indent);
    sb_store(b, ks->st[0], ref, "v0");
    sb_add(b, "\n%s}\n", indent);
}

/* The unit of a reduction kernel (contract in src/shared/kernel_slots.h):
 * map, reduce, identity and post as functions of the user's expressions
 * (each under #line "<name>.<part>" for messages), then the loop over the
 * outputs: sequential over the reduced elements of each output in C (one
 * output per piece of the thread pool's split), a block per output with a
 * tree over shared memory in CUDA. */
static char *gen_reduction(const nd_kernel *k, const kshape *ks, nd_dtype acc, int lang)
{
    sbuf b = {0};
    sb_add(&b, "/* libndgpu reduction kernel '%s' */\n", k->name);
    if (lang == KLANG_C) {
        sb_add(&b, "#include <stdbool.h>\n#include <stdint.h>\n#include <tgmath.h>\n#include \"shared/half.h\"\n"
                   "#define ND_K_FN static inline __attribute__((always_inline))\n");
    } else {
        sb_add(&b, "%s", cuda_prelude);
        sb_headers_inline(&b);
    }
    sb_add(&b, "typedef %s nd_k_args;\n", ND_K_ARGS_TEXT);
    for (int j = 0; j < k->nparams; j++) {
        if (!k->p[j].placeholder) continue;
        bool first = true;
        for (int q = 0; q < j; q++) first &= !(k->p[q].placeholder && strcmp(k->p[q].type, k->p[j].type) == 0);
        if (first) sb_add(&b, "typedef %s %s;\n", value_type(ks->pt[j]), k->p[j].type);
    }
    sb_add(&b, "typedef %s nd_k_acc;\nND_K_FN nd_k_acc nd_k_map(", value_type(acc));
    for (int j = 1; j < k->nparams; j++) sb_add(&b, "%sconst %s %s", j > 1 ? ", " : "", value_type(ks->pt[j]), k->p[j].name);
    sb_add(&b, ")\n{\n");
    for (int j = 1; j < k->nparams; j++) sb_add(&b, "    (void)%s;\n", k->p[j].name);
    sb_add(&b, "    return (nd_k_acc)(\n#line 1 \"%s.map\"\n%s\n);\n}\n", k->name, k->body);
    sb_add(&b, "ND_K_FN nd_k_acc nd_k_red(const nd_k_acc a, const nd_k_acc b)\n{\n    (void)a; (void)b;\n"
               "    return (nd_k_acc)(\n#line 1 \"%s.reduce\"\n%s\n);\n}\n", k->name, k->reduce_expr);
    sb_add(&b, "ND_K_FN nd_k_acc nd_k_ident(void)\n{\n    return (nd_k_acc)(\n#line 1 \"%s.identity\"\n%s\n);\n}\n",
           k->name, k->identity);
    sb_add(&b, "ND_K_FN void nd_k_post(const nd_k_acc a, %s *const nd_o_%s)\n{\n    (void)a;\n#define %s (*nd_o_%s)\n",
           value_type(ks->pt[0]), k->p[0].name, k->p[0].name, k->p[0].name);
    if (k->post_expr[0]) sb_add(&b, "#line 1 \"%s.post\"\n%s\n;\n", k->name, k->post_expr);
    else sb_add(&b, "    %s = (%s)a;\n", k->p[0].name, value_type(ks->pt[0]));
    sb_add(&b, "#undef %s\n}\n\n", k->p[0].name);
    /* the offsets of output o (every operand) over the kept axes */
    sbuf base = {0};
    sb_add(&base, "        int64_t r = o;\n");
    for (int j = 0; j < k->nparams; j++) sb_add(&base, "        char *q%d = A->data[%d];\n", j, j);
    sb_add(&base, "        for (int d = nk - 1; d >= 0; d--) {\n            const int64_t x = r %% A->shape[d];\n"
                  "            r /= A->shape[d];\n");
    for (int j = 0; j < k->nparams; j++) sb_add(&base, "            q%d += x * A->strides[%d][d];\n", j, j);
    sb_add(&base, "        }\n");
    if (base.oom) b.oom = true;
    if (lang == KLANG_C) {
        sb_add(&b, "void nd_k_range(const nd_k_args *A, int64_t begin, int64_t end)\n{\n"
                   "    const int nk = (int)A->ndim, nr = (int)A->nred;\n    int64_t m = 1;\n"
                   "    for (int d = nk; d < nk + nr; d++) m *= A->shape[d];\n"
                   "    for (int64_t o = begin; o < end; o++) {\n%s", base.oom ? "" : base.p);
        sb_add(&b, "        nd_k_acc acc = nd_k_ident();\n        int64_t idx[32] = {0};\n");
        for (int j = 1; j < k->nparams; j++) sb_add(&b, "        char *p%d = q%d;\n", j, j);
        sb_add(&b, "        for (int64_t t = 0; t < m; t++) {\n            acc = nd_k_red(acc, ");
        sb_map_call(&b, k, ks);
        sb_add(&b, ");\n            for (int d = nk + nr - 1; d >= nk; d--) {\n");
        for (int j = 1; j < k->nparams; j++) sb_add(&b, "                p%d += A->strides[%d][d];\n", j, j);
        sb_add(&b, "                if (++idx[d - nk] < A->shape[d] || d == nk) break;\n");
        for (int j = 1; j < k->nparams; j++) sb_add(&b, "                p%d -= A->shape[d] * A->strides[%d][d];\n", j, j);
        sb_add(&b, "                idx[d - nk] = 0;\n            }\n        }\n");
        sb_post_store(&b, ks, "acc", "        ");
        sb_add(&b, "    }\n}\n");
    } else {
        sb_add(&b, "extern \"C\" __global__ void nd_k_kernel(const nd_k_args a_)\n{\n    const nd_k_args *const A = &a_;\n"
                   "    __shared__ nd_k_acc nd_sh[256];\n    const int nk = (int)A->ndim, nr = (int)A->nred;\n"
                   "    int64_t m = 1;\n    for (int d = nk; d < nk + nr; d++) m *= A->shape[d];\n"
                   "    for (int64_t o = blockIdx.x; o < A->n; o += gridDim.x) {\n%s", base.oom ? "" : base.p);
        sb_add(&b, "        nd_k_acc acc = nd_k_ident();\n"
                   "        for (int64_t t = threadIdx.x; t < m; t += blockDim.x) {\n            int64_t r2 = t;\n");
        for (int j = 1; j < k->nparams; j++) sb_add(&b, "            const char *p%d = q%d;\n", j, j);
        sb_add(&b, "            for (int d = nk + nr - 1; d >= nk; d--) {\n                const int64_t x = r2 %% A->shape[d];\n"
                   "                r2 /= A->shape[d];\n");
        for (int j = 1; j < k->nparams; j++) sb_add(&b, "                p%d += x * A->strides[%d][d];\n", j, j);
        sb_add(&b, "            }\n            acc = nd_k_red(acc, ");
        sb_map_call(&b, k, ks);
        sb_add(&b, ");\n        }\n        nd_sh[threadIdx.x] = acc;\n        __syncthreads();\n"
                   "        for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {\n"
                   "            if (threadIdx.x < s) nd_sh[threadIdx.x] = nd_k_red(nd_sh[threadIdx.x], nd_sh[threadIdx.x + s]);\n"
                   "            __syncthreads();\n        }\n        if (threadIdx.x == 0)\n");
        sb_post_store(&b, ks, "nd_sh[0]", "        ");
        sb_add(&b, "        __syncthreads();\n    }\n}\n");
    }
    nd__free(base.p);
    if (b.oom) {
        nd__free(b.p);
        return NULL;
    }
    return b.p;
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

/* A CUDA unit through the rtc slots: compiled (cached by the backend in
 * memory and on disk) on the first call of the specialisation, then one
 * grid-stride launch on the device's current stream. */
static nd_status run_cuda(const nd_backend *be, nd_kernel *k, kspec *sp, const char *src, const nd_k_args *a,
                          int dev, const char *func)
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
            st = be->rtc_compile(&mod, dev, &rs, &origin, func);
            if (!st) st = be->rtc_kernel(&kern, mod, "nd_k_kernel", func);
            if (!st) __atomic_store_n(&sp->handle, kern, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&k->mu);
        if (st) return st;
    }
    /* 256 threads a block; at most 2^16 blocks, each then strides. An
     * elementwise kernel gives each thread an element, a reduction each
     * block an output (its threads share the reduced elements). */
    const int64_t blocks = k->reduction ? a->n : (a->n + 255) / 256;
    const unsigned grid[3] = {(unsigned)(blocks < 65536 ? blocks : 65536), 1, 1}, block[3] = {256, 1, 1};
    void *args[1] = {(void *)a};
    return be->rtc_launch(kern, dev, grid, block, 0, args, func);
}

static bool all_stride0(const nd_array *v)
{
    for (int d = 0; d < v->ndim; d++)
        if (v->shape[d] > 1 && v->strides[d] != 0) return false;
    return true;
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
    char d1[32], d2[32];
    for (int j = 0; j < k->nparams; j++)
        if (ops[j] && !nd__same_device(ops[j]->device, dev))
            return nd__err(ND_ERR_DEVICE, func, "kernel '%s': '%s' is on %s, the other arrays on %s", k->name,
                           k->p[j].name, nd__device_name(ops[j]->device, d1, sizeof d1),
                           nd__device_name(dev, d2, sizeof d2));
    const nd_backend *be = nd__backend(dev);
    const int lang = be->kernel_ew ? KLANG_C : KLANG_CUDA;
    if (!be->kernel_ew && !(be->rtc_compile && be->rtc_kernel && be->rtc_launch))
        return nd__err(ND_ERR_UNSUPPORTED, func, "kernel '%s': %s does not compile kernels", k->name,
                       nd__device_name(dev, d1, sizeof d1));
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
    nd_array *held[ND_K_MAX_OPS] = {0}; /* views and copies made for this call */
    nd_k_args *a = NULL;
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
    if (!st && !(a = nd__malloc(sizeof *a))) st = nd__err(ND_ERR_NOMEM, func, "out of memory");
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
        if (j >= nout) {
            if ((st = nd__broadcast_view(&held[j], v, ndim, shape))) break;
            v = held[j];
        }
        ks.st[j] = v->dtype;
        a->data[j] = nd__ptr(v);
        a->size[j] = v->size;
        ks.scalar[j] = j >= nout && all_stride0(v);
        const size_t isz = nd_dtype_size(v->dtype);
        int64_t c = (int64_t)isz;
        for (int d = (int)a->ndim - 1; d >= 0; d--) {
            const int64_t s = ndim == 0 ? 0 : v->strides[d] * (int64_t)isz;
            a->strides[j][d] = a->shape[d] > 1 ? s : 0;
            if (!ks.scalar[j] && a->shape[d] > 1 && s != c) ks.contig = false;
            c *= a->shape[d];
        }
    }
    if (st) goto done;
    if (a->n > 0) {
        char key[3 * ND_K_MAX_OPS + 16];
        /* per device: a GPU's compiled code belongs to its context */
        int kl = snprintf(key, sizeof key, "%d.%d%c", (int)dev.type, dev.id % 1000, ks.contig ? 'c' : 'g');
        for (int j = 0; j < k->nparams; j++)
            kl += snprintf(key + kl, sizeof key - (size_t)kl, "%c%c%c", 'A' + (int)ks.st[j], 'a' + (int)ks.pt[j],
                           ks.scalar[j] ? 's' : 'v');
        kspec *sp = spec_of(k, key);
        char *src = NULL;
        if (!sp) st = nd__err(ND_ERR_NOMEM, func, "out of memory");
        else if (!sp->handle && !(src = gen_unit(k, &ks, lang))) st = nd__err(ND_ERR_NOMEM, func, "out of memory");
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
            st = run_cuda(be, k, sp, src, a, dev.id, func);
        }
        nd__free(src);
    }
done:
    for (int j = 0; j < ND_K_MAX_OPS; j++) nd_release(held[j]);
    nd__free(a);
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
    char d1[32], d2[32];
    for (int j = 0; j < k->nparams; j++)
        if (ops[j] && !nd__same_device(ops[j]->device, dev))
            return nd__err(ND_ERR_DEVICE, func, "kernel '%s': '%s' is on %s, the other arrays on %s", k->name,
                           k->p[j].name, nd__device_name(ops[j]->device, d1, sizeof d1),
                           nd__device_name(dev, d2, sizeof d2));
    const nd_backend *be = nd__backend(dev);
    const int lang = be->kernel_ew ? KLANG_C : KLANG_CUDA;
    if (!be->kernel_ew && !(be->rtc_compile && be->rtc_kernel && be->rtc_launch))
        return nd__err(ND_ERR_UNSUPPORTED, func, "kernel '%s': %s does not compile kernels", k->name,
                       nd__device_name(dev, d1, sizeof d1));
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
        else if (!sp->handle && !(src = gen_reduction(k, &ks, acc, lang))) st = nd__err(ND_ERR_NOMEM, func, "out of memory");
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
            st = run_cuda(be, k, sp, src, a, dev.id, func);
        }
        nd__free(src);
    }
done:
    for (int j = 0; j < ND_K_MAX_OPS; j++) nd_release(held[j]);
    nd__free(a);
    return nd__out_end(&t, st);
}
