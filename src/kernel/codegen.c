/*
 * The generated translation units of the kernel family (src/kernel/): one
 * element function holding the user's body, shared by the C unit (the
 * CPU: nd_k_range over a range of elements) and the CUDA C++ unit (the
 * rtc slots: nd_k_kernel, a grid-stride loop), and the same for
 * reductions. Contract with the backends: src/shared/kernel_slots.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kernel/fuse.h"
#include "kernel/kernel_impl.h"
#include "shared/dtype_table.h"
#include "shared/ops_math.h"

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


/* The prelude of a CUDA unit: NVRTC has no standard headers, so the
 * fixed-width types and the few limits and constants the shared headers
 * use come from here; the library's shared headers follow inline. */
static const char cuda_prelude[] =
    "#if defined(__CUDACC_RTC__)\n"
    "typedef signed char int8_t; typedef short int16_t; typedef int int32_t; typedef long long int64_t;\n"
    "typedef unsigned char uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t;\n"
    "typedef unsigned long long uint64_t;\n"
    "#define INT8_MIN (-128)\n#define INT8_MAX 127\n#define INT16_MIN (-32767 - 1)\n#define INT16_MAX 32767\n"
    "#define INT32_MIN (-2147483647 - 1)\n#define INT32_MAX 2147483647\n#define INT_MIN INT32_MIN\n"
    "#define INT_MAX INT32_MAX\n#define INT64_MIN (-9223372036854775807LL - 1)\n#define INT64_MAX 9223372036854775807LL\n"
    "#define UINT8_MAX 255\n#define UINT16_MAX 65535\n#define UINT32_MAX 4294967295u\n"
    "#define UINT64_MAX 18446744073709551615ull\n"
    "#define INFINITY __int_as_float(0x7f800000)\n#define NAN __int_as_float(0x7fffffff)\n"
    "#define DBL_EPSILON 2.2204460492503131e-16\n#define FLT_EPSILON 1.19209290e-7f\n"
    "#else\n#include <stdint.h>\n#include <string.h>\n#include <math.h>\n#endif\n"
    "#define ND_K_FN static __device__ __forceinline__\n";

/* Embedded header `name` ("shared/half.h") inline, each of its own
 * includes of an embedded header expanded in place the first time (the
 * headers' guards make later includes empty anyway), a system include
 * kept for the host compilers only (NVRTC has none: the prelude stands
 * in). A header in `skip` is left out (a complex-free unit needs no
 * complex bodies). done[] marks the headers already expanded. */
static void sb_include(sbuf *b, const char *name, bool *done, const char *const *skip)
{
    for (int s = 0; skip && skip[s]; s++)
        if (strcmp(skip[s], name) == 0) return;
    int h = 0;
    while (h < nd__kernel_header_count && strcmp(nd__kernel_header_names[h], name) != 0) h++;
    if (h == nd__kernel_header_count) {
        sb_add(b, "#error \"libndgpu: %s is not embedded\"\n", name);
        return;
    }
    if (done[h]) return;
    done[h] = true;
    const char *t = nd__kernel_header_texts[h];
    while (*t) {
        const char *e = strchr(t, '\n');
        const size_t n = e ? (size_t)(e - t) + 1 : strlen(t);
        const char *q = t;
        while (*q == ' ' || *q == '\t') q++;
        char inc[96];
        if (strncmp(q, "#include \"", 10) == 0 && sscanf(q + 10, "%95[^\"]", inc) == 1) {
            sb_include(b, inc, done, skip);
        } else if (strncmp(q, "#include <", 10) == 0) {
            sb_add(b, "#if !defined(__CUDACC_RTC__)\n%.*s#endif\n", (int)n, t);
        } else {
            sb_add(b, "%.*s", (int)n, t);
        }
        t += n;
        if (n && t[-1] != '\n') sb_add(b, "\n");
    }
}

/* The CUDA prelude, the embedded header `name` with what it includes,
 * then `extra` (NULL: none) with what it includes besides. */
static void sb_cuda_head(sbuf *b, const char *name, const char *extra, const char *const *skip)
{
    bool done[64] = {false};
    sb_add(b, "%s", cuda_prelude);
    if (nd__kernel_header_count > (int)(sizeof done / sizeof done[0])) {
        b->oom = true;
        return;
    }
    sb_include(b, name, done, skip);
    if (extra) sb_include(b, extra, done, skip);
}

/* The head of every unit after its title: the language's prelude, the
 * argument block, and one typedef per type placeholder. */
static void sb_unit_head(sbuf *b, const nd_kernel *k, const kshape *ks, int lang)
{
    if (lang == KLANG_C) {
        sb_add(b, "#include <stdbool.h>\n#include <stdint.h>\n#include <tgmath.h>\n#include \"shared/half.h\"\n"
                  "#define ND_K_FN static inline __attribute__((always_inline))\n");
    } else {
        sb_cuda_head(b, "shared/half.h", NULL, NULL);
    }
    sb_add(b, "typedef %s nd_k_args;\n", ND_K_ARGS_TEXT);
    for (int j = 0; j < k->nparams; j++) {
        if (!k->p[j].placeholder) continue;
        bool first = true;
        for (int q = 0; q < j; q++) first &= !(k->p[q].placeholder && strcmp(k->p[q].type, k->p[j].type) == 0);
        if (first) sb_add(b, "typedef %s %s;\n", value_type(ks->pt[j]), k->p[j].type);
    }
}

/* The translation unit of one specialisation: C for a backend that runs
 * nd_k_range (the CPU), CUDA C++ for one that compiles CUDA source
 * (nd_k_kernel, a grid-stride loop over the same element code). */
char *nd__kgen_elementwise(const nd_kernel *k, const kshape *ks, int lang)
{
    sbuf b = {0};
    sb_add(&b, "/* libndgpu kernel '%s' */\n", k->name);
    sb_unit_head(&b, k, ks, lang);
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
char *nd__kgen_reduction(const nd_kernel *k, const kshape *ks, nd_dtype acc, int lang)
{
    sbuf b = {0};
    sb_add(&b, "/* libndgpu reduction kernel '%s' */\n", k->name);
    sb_unit_head(&b, k, ks, lang);
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
        /* Three kernels over one body: nd_k_kernel, a block per output;
         * for few outputs over many elements, nd_k_part (G blocks per
         * output, each reducing every G-th run of blockDim.x elements into
         * part[o * G + g]) then nd_k_final (a block per output over its G
         * partials, then post). The partition is fixed by G: the same
         * result on every run. */
        static const char tree[] =
            "        nd_sh[threadIdx.x] = acc;\n        __syncthreads();\n"
            "        for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {\n"
            "            if (threadIdx.x < s) nd_sh[threadIdx.x] = nd_k_red(nd_sh[threadIdx.x], nd_sh[threadIdx.x + s]);\n"
            "            __syncthreads();\n        }\n";
        static const char head[] = "    const nd_k_args *const A = &a_;\n"
                                   "    __shared__ nd_k_acc nd_sh[256];\n    const int nk = (int)A->ndim, nr = (int)A->nred;\n"
                                   "    int64_t m = 1;\n    for (int d = nk; d < nk + nr; d++) m *= A->shape[d];\n"
                                   "    (void)m; (void)nr;\n";
        for (int kind = 0; kind < 2; kind++) {
            if (kind == 0)
                sb_add(&b, "extern \"C\" __global__ void nd_k_kernel(const nd_k_args a_)\n{\n%s"
                           "    for (int64_t o = blockIdx.x; o < A->n; o += gridDim.x) {\n%s", head, base.oom ? "" : base.p);
            else
                sb_add(&b, "extern \"C\" __global__ void nd_k_part(const nd_k_args a_, nd_k_acc *const part, const int64_t G)\n"
                           "{\n%s    for (int64_t blk = blockIdx.x; blk < A->n * G; blk += gridDim.x) {\n"
                           "        const int64_t o = blk / G, g = blk %% G;\n%s", head, base.oom ? "" : base.p);
            sb_add(&b, "        nd_k_acc acc = nd_k_ident();\n"
                       "        for (int64_t t = %s; t < m; t += %s) {\n            int64_t r2 = t;\n",
                   kind == 0 ? "threadIdx.x" : "g * blockDim.x + threadIdx.x", kind == 0 ? "blockDim.x" : "G * blockDim.x");
            for (int j = 1; j < k->nparams; j++) sb_add(&b, "            const char *p%d = q%d;\n", j, j);
            sb_add(&b, "            for (int d = nk + nr - 1; d >= nk; d--) {\n                const int64_t x = r2 %% A->shape[d];\n"
                       "                r2 /= A->shape[d];\n");
            for (int j = 1; j < k->nparams; j++) sb_add(&b, "                p%d += x * A->strides[%d][d];\n", j, j);
            sb_add(&b, "            }\n            acc = nd_k_red(acc, ");
            sb_map_call(&b, k, ks);
            sb_add(&b, ");\n        }\n%s", tree);
            if (kind == 0) {
                sb_add(&b, "        if (threadIdx.x == 0)\n");
                sb_post_store(&b, ks, "nd_sh[0]", "        ");
            } else {
                sb_add(&b, "        if (threadIdx.x == 0) part[blk] = nd_sh[0];\n");
            }
            sb_add(&b, "        __syncthreads();\n    }\n}\n");
        }
        sb_add(&b, "extern \"C\" __global__ void nd_k_final(const nd_k_args a_, const nd_k_acc *const part, const int64_t G)\n"
                   "{\n%s    for (int64_t o = blockIdx.x; o < A->n; o += gridDim.x) {\n%s", head, base.oom ? "" : base.p);
        for (int j = 1; j < k->nparams; j++) sb_add(&b, "        (void)q%d;\n", j);
        sb_add(&b, "        nd_k_acc acc = nd_k_ident();\n"
                   "        for (int64_t t = threadIdx.x; t < G; t += blockDim.x) acc = nd_k_red(acc, part[o * G + t]);\n%s"
                   "        if (threadIdx.x == 0)\n", tree);
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
/* Fused expression programs (src/kernel/fuse.h)                       */
/* ------------------------------------------------------------------ */
/* The body of one loop of the op table, as the CUDA backend's kernels
 * call it (src/cuda/ew_kernels.cuh: ND_CU_UFUNC / ND_CU_BFUNC): the op's
 * name, the body's suffix, the loop's storage type, its load and store
 * macros and its rule, as text. */
typedef struct {
    const char *name, *bsfx, *st, *ld, *sto, *rule;
} fbody;
#define FB_UCASE(DT, lsfx, bsfx, ST, CT, LD, STO, name, rule, E)                  \
    case (int)ND_UNARY_##E * ND_NUM_DTYPES + (int)DT: {                            \
        static const fbody f = {#name, #bsfx, #ST, #LD, #STO, #rule};             \
        return &f;                                                                 \
    }
#define FB_BCASE(DT, lsfx, bsfx, ST, CT, LD, STO, name, rule, E)                  \
    case (int)ND_BINARY_##E * ND_NUM_DTYPES + (int)DT: {                           \
        static const fbody f = {#name, #bsfx, #ST, #LD, #STO, #rule};             \
        return &f;                                                                 \
    }
#define FB_UGEN(E, name, kinds, rule) ND_OP_LOOPS(kinds, rule, FB_UCASE, name, rule, E)
#define FB_BGEN(E, name, kinds, rule) ND_OP_LOOPS(kinds, rule, FB_BCASE, name, rule, E)
static const fbody *unary_body(int op, nd_dtype t)
{
    switch (op * ND_NUM_DTYPES + (int)t) {
        ND_UNARY_OPS(FB_UGEN)
    default: return NULL;
    }
}
static const fbody *binary_body(int op, nd_dtype t)
{
    switch (op * ND_NUM_DTYPES + (int)t) {
        ND_BINARY_OPS(FB_BGEN)
    default: return NULL;
    }
}

/* Storage type and conversion suffix (src/shared/convert.h) of a dtype. */
static const char *xst(nd_dtype t)
{
    return t == ND_COMPLEX64 ? "nd_c64_t" : t == ND_COMPLEX128 ? "nd_c128_t" : storage_type(t);
}
#define FB_SFX(A, E, s, ...) #s,
static const char *const dtype_sfx[] = {ND_DTYPE_TABLE(FB_SFX, )};

/* The value of a reference of instruction operands. */
static void xref(char *out, size_t cap, nd_expr_ref r, const int *slot_var)
{
    switch (r.kind) {
    case ND_EXPR_REF_ARG: snprintf(out, cap, "x%d", r.idx); break;
    case ND_EXPR_REF_CONST: snprintf(out, cap, "c%d", r.idx); break;
    case ND_EXPR_REF_TMP: snprintf(out, cap, "r%d", slot_var[r.idx]); break;
    default: snprintf(out, cap, "nd_x_bad"); break;
    }
}

char *nd__kgen_expr(const nd_expr_prog *p, const bool *scalar, bool flat)
{
    bool cpx = p->res == ND_COMPLEX64 || p->res == ND_COMPLEX128, cast = false;
    for (int k = 0; k < p->nargs; k++) cpx |= p->arg_dtype[k] == ND_COMPLEX64 || p->arg_dtype[k] == ND_COMPLEX128;
    for (int k = 0; k < p->nconst; k++) cpx |= p->const_dtype[k] == ND_COMPLEX64 || p->const_dtype[k] == ND_COMPLEX128;
    for (int k = 0; k < p->ninsn; k++) {
        const nd_expr_insn *in = &p->insn[k];
        cpx |= in->t == ND_COMPLEX64 || in->t == ND_COMPLEX128 || in->res == ND_COMPLEX64 || in->res == ND_COMPLEX128;
        cast |= in->kind == ND_EXPR_CAST;
    }
    sbuf b = {0};
    static const char *const no_cpx[] = {"shared/ops_cpx.h", NULL};
    sb_add(&b, "/* libndgpu fused expression */\n");
    /* the casts' conversions (already there through the complex bodies) */
    sb_cuda_head(&b, "shared/ops_math.h", cast ? "shared/convert.h" : NULL, cpx ? NULL : no_cpx);
    sb_add(&b, "typedef %s nd_x_args;\n", ND_K_STR(ND_X_ARGS_STRUCT));
    sb_add(&b, "extern \"C\" __global__ void nd_x_kernel(const nd_x_args a)\n{\n"
               "    const int64_t step = (int64_t)gridDim.x * blockDim.x;\n");
    /* constants from the argument block (src/kernel/fuse.h: not folded) */
    for (int k = 0; k < p->nconst; k++)
        sb_add(&b, "    %s c%d;\n    memcpy(&c%d, a.consts[%d], sizeof c%d);\n", xst(p->const_dtype[k]), k, k, k, k);
    for (int k = 0; k < p->nargs; k++)
        if (scalar[1 + k])
            sb_add(&b, "    const %s x%d = *(const %s *)a.data[%d];\n", xst(p->arg_dtype[k]), k, xst(p->arg_dtype[k]), 1 + k);
    sb_add(&b, "    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += step) {\n");
    if (!flat) {
        for (int k = 0; k <= p->nargs; k++)
            if (!scalar[k]) sb_add(&b, "        char *q%d = a.data[%d];\n", k, k);
        sb_add(&b, "        int64_t r = i;\n        for (int d = (int)a.ndim - 1; d >= 0; d--) {\n"
                   "            const int64_t e = r %% a.shape[d];\n            r /= a.shape[d];\n");
        for (int k = 0; k <= p->nargs; k++)
            if (!scalar[k]) sb_add(&b, "            q%d += e * a.strides[%d][d];\n", k, k);
        sb_add(&b, "        }\n");
    }
    for (int k = 0; k < p->nargs; k++) {
        if (scalar[1 + k]) continue;
        const char *t = xst(p->arg_dtype[k]);
        if (flat) sb_add(&b, "        const %s x%d = ((const %s *)a.data[%d])[i];\n", t, k, t, 1 + k);
        else sb_add(&b, "        const %s x%d = *(const %s *)q%d;\n", t, k, t, 1 + k);
    }
    int slot_var[ND_EXPR_MAX_TMPS];
    bool bad = false;
    for (int k = 0; k < ND_EXPR_MAX_TMPS; k++) slot_var[k] = -1;
    for (int k = 0; k < p->ninsn && !bad; k++) {
        const nd_expr_insn *in = &p->insn[k];
        char s[3][16];
        for (int j = 0; j < in->nsrc && j < 3; j++) xref(s[j], sizeof s[j], in->src[j], slot_var);
        sb_add(&b, "        const %s r%d = ", xst(in->res), k);
        const fbody *f = NULL;
        switch (in->kind) {
        case ND_EXPR_UNARY:
            if (!(f = unary_body(in->op, in->t))) bad = true;
            else sb_add(&b, "ND_OP_STORE_%s(%s, nd_op_%s_%s(%s(%s)))", f->rule, f->sto, f->name, f->bsfx, f->ld, s[0]);
            break;
        case ND_EXPR_BINARY:
            if (!(f = binary_body(in->op, in->t))) bad = true;
            else sb_add(&b, "ND_OP_STORE_%s(%s, nd_op_%s_%s(%s(%s), %s(%s)))", f->rule, f->sto, f->name, f->bsfx, f->ld,
                        s[0], f->ld, s[1]);
            break;
        case ND_EXPR_CAST: sb_add(&b, "nd_cvt_%s_%s(%s)", dtype_sfx[in->t], dtype_sfx[in->res], s[0]); break;
        case ND_EXPR_WHERE: sb_add(&b, "%s ? %s : %s", s[0], s[1], s[2]); break;
        default: bad = true; break;
        }
        sb_add(&b, ";\n");
        if (in->dst.kind == ND_EXPR_REF_TMP && in->dst.idx < ND_EXPR_MAX_TMPS) slot_var[in->dst.idx] = k;
        else if (in->dst.kind == ND_EXPR_REF_OUT && k == p->ninsn - 1) {
            if (flat) sb_add(&b, "        ((%s *)a.data[0])[i] = r%d;\n", xst(p->res), k);
            else sb_add(&b, "        *(%s *)q0 = r%d;\n", xst(p->res), k);
        } else {
            bad = true;
        }
    }
    sb_add(&b, "    }\n}\n");
    if (b.oom || bad || p->ninsn == 0) {
        nd__free(b.p);
        return NULL;
    }
    return b.p;
}
