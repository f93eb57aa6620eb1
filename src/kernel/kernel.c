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

nd_status nd_kernel_elementwise(nd_kernel **out, const char *in_params, const char *out_params, const char *body,
                                const char *name, const nd_kernel_options *opts)
{
    static const char func[] = "nd_kernel_elementwise";
    (void)opts;
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
    const size_t bl = strlen(body);
    if (st == ND_OK && !(k->body = nd__malloc(bl + 1))) st = nd__err(ND_ERR_NOMEM, func, "out of memory");
    if (st == ND_OK && !(k->name = intern(name))) st = nd__err(ND_ERR_NOMEM, func, "out of memory");
    if (st) {
        nd__free(k->body);
        nd__free(k);
        return st;
    }
    memcpy(k->body, body, bl + 1);
    for (int j = 0; j < k->nparams; j++) k->has_raw |= k->p[j].raw;
    pthread_mutex_init(&k->mu, NULL);
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
    if (!be->kernel_ew)
        return nd__err(ND_ERR_UNSUPPORTED, func, "kernel '%s': %s does not compile elementwise kernels yet", k->name,
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
        else if (!sp->handle && !(src = gen_unit(k, &ks, KLANG_C))) st = nd__err(ND_ERR_NOMEM, func, "out of memory");
        if (!st) {
            nd_k_call c = {func, k->name, src, &sp->handle, a, dev.id, k->has_raw, 4};
            if (__atomic_load_n(&sp->handle, __ATOMIC_ACQUIRE)) {
                st = be->kernel_ew(&c);
            } else { /* one compilation per specialisation */
                pthread_mutex_lock(&k->mu);
                st = be->kernel_ew(&c);
                pthread_mutex_unlock(&k->mu);
            }
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
