/*
 * nd_expr_eval: an expression over named arrays evaluated in one pass
 * (include/ndgpu/expr.h, docs/expr.md).
 *
 *   parse (parse.c) -> type every node with the library's own dtype rules
 *   (nd__ew_unary_types / nd__ew_binary_types / nd__ew_scalar_types, the
 *   code nd_unary / nd_binary / nd_binary_scalar run) -> a program of
 *   loop steps (src/shared/expr_prog.h) with the casts the unfused ops
 *   make -> the device's expr slot runs it, fused; a device without the
 *   slot (and a program the slot cannot take) is evaluated node by node
 *   with the library's ops. The parsed, typed program is cached per
 *   (expression, names, operand dtypes), a small LRU under a mutex.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "expr/expr_impl.h"
#include "elementwise/elementwise.h"
#include "core/prof.h"
#include "kernel/fuse.h"
#include "ndgpu/expr.h"

static const char *const FN = "nd_expr_eval";

/* ------------------------------------------------------------------ */
/* The compiled form                                                   */
/* ------------------------------------------------------------------ */
typedef struct compiled {
    atomic_int refs;
    uint64_t hash;
    char *key; /* expression, names and dtypes (see make_key) */
    size_t keylen;
    en_node *nodes;
    int count;
    int root;    /* the elementwise root (the reduction's argument when there is one) */
    bool reduce; /* the outermost call is a reduction: nodes[count - 1] */
    nd_dtype res;
    bool fusable; /* the expr slot may run prog */
    int nused;    /* operands the program reads: args[used[k]] */
    int used[ND_EXPR_MAX_NAMES];
    nd_expr_prog prog;
    nd_fuse_specs *gpu; /* the program's compiled CUDA units (src/kernel/fuse.h) */
} compiled;

static void compiled_release(compiled *c)
{
    if (c && atomic_fetch_sub(&c->refs, 1) == 1) {
        nd__free(c->key);
        nd__free(c->nodes);
        nd__fuse_specs_free(c->gpu);
        nd__free(c);
    }
}

/* The message of a failed helper, moved to the node's column. */
static nd_status err_node(nd_status st, const char *expr, const en_node *n)
{
    char msg[256];
    const char *m = nd_last_error();
    size_t fl = strlen(FN);
    if (strncmp(m, FN, fl) == 0 && m[fl] == ':' && m[fl + 1] == ' ') m += fl + 2;
    snprintf(msg, sizeof msg, "%s", m);
    return nd__expr_err_at(st, FN, expr, n->col, "%s", msg);
}

/* The dtype a literal takes where it becomes an array (a function's
 * argument): Python's int -> int64, float -> float64, complex ->
 * complex128, bool -> bool (NumPy's np.asarray of a Python scalar). */
static nd_dtype lit_default(nd_scalar s)
{
    switch (s.kind) {
    case ND_SCALAR_BOOL: return ND_BOOL;
    case ND_SCALAR_INT: return ND_INT64;
    case ND_SCALAR_FLOAT: return ND_FLOAT64;
    default: return ND_COMPLEX128;
    }
}

static bool is_lit(const en_node *n) { return n->kind == EN_LIT; }

/* A literal as a strong value of dtype t: a Python int must fit. */
static nd_status lit_to(const char *expr, const en_node *n, nd_dtype t)
{
    if (!nd__scalar_fits(n->s, t))
        return nd__expr_err_at(ND_ERR_INVALID, FN, expr, n->col, "Python integer %lld out of bounds for %s",
                               (long long)n->s.v.i, nd_dtype_name(t));
    return ND_OK;
}

/* The dtypes of where(c, x, y): x, y promoted (a literal weakly). */
static nd_status where_dtype(const char *expr, const en_node *nodes, const en_node *w, nd_dtype *dt)
{
    const en_node *x = &nodes[w->b], *y = &nodes[w->c];
    nd_status st;
    if (is_lit(x) && is_lit(y)) {
        if ((st = nd_result_type(dt, lit_default(x->s), lit_default(y->s)))) return err_node(st, expr, w);
    } else if (is_lit(x) || is_lit(y)) {
        const en_node *l = is_lit(x) ? x : y, *a = is_lit(x) ? y : x;
        *dt = nd__promote_weak(a->dt, l->s.kind);
    } else if ((st = nd_result_type(dt, x->dt, y->dt))) {
        return err_node(st, expr, w);
    }
    if (is_lit(x) && (st = lit_to(expr, x, *dt))) return st;
    if (is_lit(y) && (st = lit_to(expr, y, *dt))) return st;
    return ND_OK;
}

/* Type every node (post order): n->dt = the dtype of its value, from the
 * library's own rules; errors name the node's column. */
static nd_status type_nodes(const char *expr, en_node *nodes, int count, const nd_dtype *dts)
{
    nd_status st;
    for (int i = 0; i < count; i++) {
        en_node *n = &nodes[i];
        en_node *a = n->a >= 0 ? &nodes[n->a] : NULL, *b = n->b >= 0 ? &nodes[n->b] : NULL;
        nd_dtype loop, opres, res, sdt, in;
        switch (n->kind) {
        case EN_ARG: n->dt = dts[n->arg]; break;
        case EN_LIT: n->dt = lit_default(n->s); break;
        case EN_UNARY:
            if ((st = nd__ew_unary_types(FN, (nd_unary_op)n->op, a->dt, &loop, &res))) return err_node(st, expr, n);
            n->dt = res;
            break;
        case EN_BINARY:
            if (is_lit(a) || is_lit(b)) {
                nd_scalar s = is_lit(a) ? a->s : b->s;
                bool strong, left = is_lit(a);
                if ((st = nd__ew_scalar_types(FN, (nd_binary_op)n->op, left ? b->dt : a->dt, &s, left, &sdt, &in,
                                              &loop, &res, &strong)))
                    return err_node(st, expr, n);
                if (strong) { /* ldexp: the scalar as a 0-d array of sdt */
                    if ((st = nd__ew_binary_types(FN, (nd_binary_op)n->op, left ? sdt : a->dt, left ? b->dt : sdt,
                                                  &loop, &opres, &res)))
                        return err_node(st, expr, n);
                } else if (n->op == ND_BINARY_POWER && !left && nd__is_integer(loop) && s.kind == ND_SCALAR_INT &&
                           s.v.i < 0) {
                    return nd__expr_err_at(ND_ERR_INVALID, FN, expr, n->col,
                                           "Integers to negative integer powers are not allowed.");
                }
                n->dt = res;
            } else {
                if ((st = nd__ew_binary_types(FN, (nd_binary_op)n->op, a->dt, b->dt, &loop, &opres, &res)))
                    return err_node(st, expr, n);
                n->dt = res;
            }
            break;
        case EN_WHERE:
            if ((st = where_dtype(expr, nodes, n, &n->dt))) return st;
            break;
        case EN_CAST:
            if (is_lit(a) && (st = lit_to(expr, a, n->dt))) return st;
            break;
        default: /* EN_REDUCE: typed by nd_reduce when it runs */
            n->dt = a->dt;
            break;
        }
    }
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* Lowering to a program                                               */
/* ------------------------------------------------------------------ */
typedef struct {
    nd_expr_prog *p;
    bool tmp_used[ND_EXPR_MAX_TMPS];
    int argmap[ND_EXPR_MAX_NAMES]; /* name index -> operand index, -1 */
    int *used, *nused;
    nd_expr_insn sink; /* written instead of an instruction past the limit */
    bool ok; /* false: the program does not fit (the caller evaluates op by op) */
} lower;

typedef struct {
    nd_expr_ref r;
    nd_dtype dt;
} val;

static int tmp_alloc(lower *L, nd_dtype dt)
{
    for (int k = 0; k < ND_EXPR_MAX_TMPS; k++)
        if (!L->tmp_used[k]) {
            L->tmp_used[k] = true;
            if (k + 1 > L->p->ntmp) L->p->ntmp = k + 1;
            if ((int)nd__itemsize(dt) > L->p->tmp_itemsize) L->p->tmp_itemsize = (int)nd__itemsize(dt);
            return k;
        }
    L->ok = false;
    return 0;
}

static void val_free(lower *L, val v)
{
    if (v.r.kind == ND_EXPR_REF_TMP) L->tmp_used[v.r.idx] = false;
}

static val const_val(lower *L, nd_scalar s, nd_dtype dt)
{
    val v = {{ND_EXPR_REF_CONST, 0}, dt};
    nd_expr_prog *p = L->p;
    if (p->nconst >= ND_EXPR_MAX_CONSTS) {
        L->ok = false;
        return v;
    }
    memset(p->consts[p->nconst], 0, sizeof p->consts[0]);
    nd__scalar_store(p->consts[p->nconst], dt, s);
    p->const_dtype[p->nconst] = dt;
    v.r.idx = (uint8_t)p->nconst++;
    return v;
}

static nd_expr_insn *emit(lower *L, nd_expr_kind kind, int op, nd_dtype t, nd_dtype res, val *dst)
{
    nd_expr_prog *p = L->p;
    if (p->ninsn >= ND_EXPR_MAX_INSNS) {
        /* the program does not fit; dst still gets a defined value (a
         * constant, which val_free leaves alone): an undefined one sent a
         * garbage temporary index into tmp_used[] */
        L->ok = false;
        dst->r.kind = ND_EXPR_REF_CONST;
        dst->r.idx = 0;
        dst->dt = res;
        return &L->sink;
    }
    nd_expr_insn *in = &p->insn[p->ninsn++];
    memset(in, 0, sizeof *in);
    in->kind = (uint8_t)kind;
    in->op = (int16_t)op;
    in->t = t;
    in->res = res;
    dst->r.kind = ND_EXPR_REF_TMP;
    dst->r.idx = (uint8_t)tmp_alloc(L, res);
    dst->dt = res;
    in->dst = dst->r;
    return in;
}

/* v as dtype t: v itself, or a cast into a new temporary (v is freed). */
static val as_dtype(lower *L, val v, nd_dtype t)
{
    if (v.dt == t) return v;
    val d;
    nd_expr_insn *in = emit(L, ND_EXPR_CAST, 0, v.dt, t, &d);
    in->nsrc = 1;
    in->src[0] = v.r;
    val_free(L, v);
    return d;
}

static val lower_node(lower *L, const en_node *nodes, int i);

/* A child as a value of dtype t: a literal becomes a constant of t
 * (converted once, as nd__scalar_array converts it), an array is cast. */
static val operand(lower *L, const en_node *nodes, int i, nd_dtype t, nd_scalar s)
{
    if (nodes[i].kind == EN_LIT) return const_val(L, s, t);
    return as_dtype(L, lower_node(L, nodes, i), t);
}

static val lower_node(lower *L, const en_node *nodes, int i)
{
    const en_node *n = &nodes[i];
    val v = {{ND_EXPR_REF_CONST, 0}, n->dt}, d;
    nd_dtype loop, opres, res, sdt, in;
    switch (n->kind) {
    case EN_ARG: {
        int k = L->argmap[n->arg];
        if (k < 0) {
            if (*L->nused >= ND_EXPR_MAX_ARGS) {
                L->ok = false;
                return v;
            }
            k = L->argmap[n->arg] = (*L->nused)++;
            L->used[k] = n->arg;
            L->p->arg_dtype[k] = n->dt;
        }
        v.r.kind = ND_EXPR_REF_ARG;
        v.r.idx = (uint8_t)k;
        return v;
    }
    case EN_LIT: return const_val(L, n->s, n->dt);
    case EN_UNARY: {
        (void)nd__ew_unary_types(FN, (nd_unary_op)n->op, nodes[n->a].dt, &loop, &res);
        /* a literal argument is a 0-d array of its default dtype first */
        val x = as_dtype(L, lower_node(L, nodes, n->a), loop);
        nd_expr_insn *ins = emit(L, ND_EXPR_UNARY, n->op, loop, res, &d);
        ins->nsrc = 1;
        ins->src[0] = x.r;
        val_free(L, x);
        return d;
    }
    case EN_BINARY: {
        const en_node *a = &nodes[n->a], *b = &nodes[n->b];
        nd_scalar s = {0};
        bool strong = false, left = is_lit(a), lit = is_lit(a) || is_lit(b);
        nd_dtype ta = a->dt, tb = b->dt;
        if (lit) {
            s = left ? a->s : b->s;
            (void)nd__ew_scalar_types(FN, (nd_binary_op)n->op, left ? b->dt : a->dt, &s, left, &sdt, &in, &loop, &res,
                                      &strong);
            opres = res;
            if (strong) {
                if (left) ta = sdt;
                else tb = sdt;
            }
        }
        if (!lit || strong) {
            (void)nd__ew_binary_types(FN, (nd_binary_op)n->op, ta, tb, &loop, &opres, &res);
            if (n->op == ND_BINARY_POWER && !nd__is_float(loop) && !nd__is_complex(loop) && !is_lit(b))
                L->ok = false; /* integer power by an array: checked whole before any write, op by op */
        }
        val x, y;
        if (lit && strong) { /* the scalar converted to sdt, then cast to the loop like an array */
            x = left ? as_dtype(L, const_val(L, s, sdt), loop) : operand(L, nodes, n->a, loop, s);
            y = left ? operand(L, nodes, n->b, loop, s) : as_dtype(L, const_val(L, s, sdt), loop);
        } else {
            x = operand(L, nodes, n->a, loop, s);
            y = operand(L, nodes, n->b, loop, s);
        }
        nd_expr_insn *ins = emit(L, ND_EXPR_BINARY, n->op, loop, opres, &d);
        ins->nsrc = 2;
        ins->src[0] = x.r;
        ins->src[1] = y.r;
        val_free(L, x);
        val_free(L, y);
        return as_dtype(L, d, res);
    }
    case EN_WHERE: {
        const en_node *c = &nodes[n->a];
        val cv = is_lit(c) ? const_val(L, c->s, ND_BOOL) : as_dtype(L, lower_node(L, nodes, n->a), ND_BOOL);
        val x = operand(L, nodes, n->b, n->dt, nodes[n->b].s);
        val y = operand(L, nodes, n->c, n->dt, nodes[n->c].s);
        nd_expr_insn *ins = emit(L, ND_EXPR_WHERE, 0, n->dt, n->dt, &d);
        ins->nsrc = 3;
        ins->src[0] = cv.r;
        ins->src[1] = x.r;
        ins->src[2] = y.r;
        val_free(L, cv);
        val_free(L, x);
        val_free(L, y);
        return d;
    }
    case EN_CAST:
        if (is_lit(&nodes[n->a])) return const_val(L, nodes[n->a].s, n->dt);
        return as_dtype(L, lower_node(L, nodes, n->a), n->dt);
    default: L->ok = false; return v;
    }
}

/* The program of the elementwise root; false when it does not fit the
 * slot's limits (or holds an integer power by an array). */
static bool lower_prog(compiled *c)
{
    lower L;
    memset(&L, 0, sizeof L);
    L.p = &c->prog;
    L.ok = true;
    L.used = c->used;
    L.nused = &c->nused;
    for (int k = 0; k < ND_EXPR_MAX_NAMES; k++) L.argmap[k] = -1;
    memset(&c->prog, 0, sizeof c->prog);
    c->nused = 0;
    val r = lower_node(&L, c->nodes, c->root);
    if (!L.ok) return false;
    nd_expr_prog *p = &c->prog;
    if (r.r.kind == ND_EXPR_REF_TMP && p->ninsn > 0 && p->insn[p->ninsn - 1].dst.kind == ND_EXPR_REF_TMP &&
        p->insn[p->ninsn - 1].dst.idx == r.r.idx) {
        p->insn[p->ninsn - 1].dst.kind = ND_EXPR_REF_OUT;
    } else { /* an operand or a constant: copied (astype's copy loop) */
        val d;
        nd_expr_insn *ins = emit(&L, ND_EXPR_CAST, 0, r.dt, r.dt, &d);
        ins->nsrc = 1;
        ins->src[0] = r.r;
        ins->dst.kind = ND_EXPR_REF_OUT;
    }
    p->nargs = c->nused;
    p->res = r.dt;
    return L.ok;
}

/* ------------------------------------------------------------------ */
/* The cache: (expression, names, dtypes) -> compiled, LRU             */
/* ------------------------------------------------------------------ */
#define CACHE_SIZE 32
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static compiled *cache[CACHE_SIZE]; /* most recently used first */

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* expr \0 name \0 ... \0 dtype bytes: unambiguous (names hold no \0). */
static char *make_key(const char *expr, size_t len, int nargs, const char *const *names, const nd_array *const *args,
                      size_t *keylen)
{
    size_t n = len + 1;
    for (int k = 0; k < nargs; k++) n += strlen(names[k]) + 1 + 1;
    char *key = nd__malloc(n);
    if (!key) return NULL;
    size_t o = 0;
    memcpy(key, expr, len + 1);
    o = len + 1;
    for (int k = 0; k < nargs; k++) {
        size_t l = strlen(names[k]);
        memcpy(key + o, names[k], l + 1);
        o += l + 1;
        key[o++] = (char)(1 + args[k]->dtype);
    }
    *keylen = n;
    return key;
}

static compiled *cache_get(const char *key, size_t keylen, uint64_t h)
{
    compiled *hit = NULL;
    pthread_mutex_lock(&cache_mu);
    for (int i = 0; i < CACHE_SIZE && cache[i]; i++)
        if (cache[i]->hash == h && cache[i]->keylen == keylen && memcmp(cache[i]->key, key, keylen) == 0) {
            hit = cache[i];
            memmove(&cache[1], &cache[0], (size_t)i * sizeof cache[0]);
            cache[0] = hit;
            atomic_fetch_add(&hit->refs, 1);
            break;
        }
    pthread_mutex_unlock(&cache_mu);
    return hit;
}

static void cache_put(compiled *c)
{
    compiled *old = NULL;
    pthread_mutex_lock(&cache_mu);
    bool present = false;
    for (int i = 0; i < CACHE_SIZE && cache[i]; i++)
        if (cache[i]->hash == c->hash && cache[i]->keylen == c->keylen && memcmp(cache[i]->key, c->key, c->keylen) == 0)
            present = true;
    if (!present) {
        old = cache[CACHE_SIZE - 1];
        memmove(&cache[1], &cache[0], (CACHE_SIZE - 1) * sizeof cache[0]);
        cache[0] = c;
        atomic_fetch_add(&c->refs, 1);
    }
    pthread_mutex_unlock(&cache_mu);
    compiled_release(old);
}

void nd_expr_cache_clear(void)
{
    compiled *all[CACHE_SIZE];
    pthread_mutex_lock(&cache_mu);
    memcpy(all, cache, sizeof all);
    memset(cache, 0, sizeof cache);
    pthread_mutex_unlock(&cache_mu);
    for (int i = 0; i < CACHE_SIZE; i++) compiled_release(all[i]);
}

static nd_status compile(compiled **out, const char *expr, size_t len, int nargs, const char *const *names,
                         const nd_array *const *args)
{
    size_t keylen = 0;
    char *key = make_key(expr, len, nargs, names, args, &keylen);
    if (!key) return nd__err(ND_ERR_NOMEM, FN, "out of memory for the expression cache");
    uint64_t h = fnv1a(key, keylen);
    compiled *c = cache_get(key, keylen, h);
    if (c) {
        nd__free(key);
        *out = c;
        return ND_OK;
    }
    c = nd__calloc(1, sizeof *c);
    en_node *nodes = nd__malloc(ND_EXPR_MAX_NODES * sizeof *nodes);
    if (!c || !nodes) {
        nd__free(c), nd__free(nodes), nd__free(key);
        return nd__err(ND_ERR_NOMEM, FN, "out of memory for the expression cache");
    }
    atomic_init(&c->refs, 1);
    c->key = key, c->keylen = keylen, c->hash = h, c->nodes = nodes;
    en_tree t = {nodes, 0, 0};
    nd_status st = nd__expr_parse(FN, expr, nargs, names, &t);
    nd_dtype dts[ND_EXPR_MAX_NAMES];
    for (int k = 0; k < nargs; k++) dts[k] = args[k]->dtype;
    if (st == ND_OK) st = type_nodes(expr, nodes, t.count, dts);
    if (st) {
        compiled_release(c);
        return st;
    }
    c->count = t.count;
    c->reduce = nodes[t.root].kind == EN_REDUCE;
    c->root = c->reduce ? nodes[t.root].a : t.root;
    c->res = nodes[c->root].dt;
    c->fusable = lower_prog(c);
    cache_put(c);
    *out = c;
    return ND_OK;
}

/* ------------------------------------------------------------------ */
/* Op by op, with the library's own ops                                */
/* ------------------------------------------------------------------ */
static nd_status eval_node(const compiled *c, const nd_array *const *args, nd_device dev, int i, nd_array **r);

/* A child as an array: a literal becomes a 0-d array of dtype t. */
static nd_status eval_operand(const compiled *c, const nd_array *const *args, nd_device dev, int i, nd_dtype t,
                              nd_array **r)
{
    if (c->nodes[i].kind == EN_LIT) {
        nd_status st = nd__scalar_array(r, c->nodes[i].s, t, dev);
        return st ? nd__err_prefix(st, FN) : ND_OK;
    }
    return eval_node(c, args, dev, i, r);
}

static nd_status eval_node(const compiled *c, const nd_array *const *args, nd_device dev, int i, nd_array **r)
{
    const en_node *n = &c->nodes[i];
    nd_array *x = NULL, *y = NULL, *z = NULL;
    nd_status st = ND_OK;
    *r = NULL;
    switch (n->kind) {
    case EN_ARG: *r = nd_retain((nd_array *)(uintptr_t)args[n->arg]); return ND_OK;
    case EN_LIT: return eval_operand(c, args, dev, i, n->dt, r);
    case EN_UNARY:
        if ((st = eval_operand(c, args, dev, n->a, c->nodes[n->a].dt, &x))) return st;
        st = nd__ew_unary_op(FN, r, (nd_unary_op)n->op, x);
        break;
    case EN_BINARY: {
        const en_node *a = &c->nodes[n->a], *b = &c->nodes[n->b];
        if (is_lit(a)) {
            if ((st = eval_node(c, args, dev, n->b, &y))) return st;
            st = nd__ew_scalar(FN, r, (nd_binary_op)n->op, y, a->s, true);
        } else if (is_lit(b)) {
            if ((st = eval_node(c, args, dev, n->a, &x))) return st;
            st = nd__ew_scalar(FN, r, (nd_binary_op)n->op, x, b->s, false);
        } else {
            if ((st = eval_node(c, args, dev, n->a, &x))) return st;
            if ((st = eval_node(c, args, dev, n->b, &y))) break;
            st = nd__ew_binary_op(FN, r, (nd_binary_op)n->op, x, y);
        }
        break;
    }
    case EN_WHERE:
        if ((st = eval_operand(c, args, dev, n->a, ND_BOOL, &x))) return st;
        if ((st = eval_operand(c, args, dev, n->b, n->dt, &y))) break;
        if ((st = eval_operand(c, args, dev, n->c, n->dt, &z))) break;
        st = nd_where(r, x, y, z);
        break;
    case EN_CAST:
        if (is_lit(&c->nodes[n->a])) return eval_operand(c, args, dev, n->a, n->dt, r);
        if ((st = eval_node(c, args, dev, n->a, &x))) return st;
        if ((st = nd__copy_new(r, x, n->dt))) st = nd__err_prefix(st, FN);
        break;
    default: st = nd__err(ND_ERR_INTERNAL, FN, "node kind %d", n->kind); break;
    }
    nd_release(x);
    nd_release(y);
    nd_release(z);
    if (st == ND_OK && *r && nd_dtype_of(*r) != n->dt)
        st = nd__err(ND_ERR_INTERNAL, FN, "step at column %d gave %s where %s was planned", n->col,
                     nd_dtype_name(nd_dtype_of(*r)), nd_dtype_name(n->dt));
    if (st) {
        nd_release(*r);
        *r = NULL;
    }
    return st;
}

/* ------------------------------------------------------------------ */
/* The public function                                                 */
/* ------------------------------------------------------------------ */
static nd_status check_args(const char *expr, size_t *len, int nargs, const char *const *names,
                            const nd_array *const *args)
{
    if (expr == NULL) return nd__err(ND_ERR_INVALID, FN, "argument 'expr' is NULL");
    *len = strnlen(expr, ND_EXPR_MAX_LEN + 1);
    if (*len > ND_EXPR_MAX_LEN)
        return nd__err(ND_ERR_INVALID, FN, "expression longer than %d characters", ND_EXPR_MAX_LEN);
    if (nargs < 0 || nargs > ND_EXPR_MAX_NAMES)
        return nd__err(ND_ERR_INVALID, FN, "nargs = %d (0 to %d operands)", nargs, ND_EXPR_MAX_NAMES);
    if (nargs > 0 && names == NULL) return nd__err(ND_ERR_INVALID, FN, "argument 'names' is NULL");
    if (nargs > 0 && args == NULL) return nd__err(ND_ERR_INVALID, FN, "argument 'args' is NULL");
    for (int k = 0; k < nargs; k++) {
        if (names[k] == NULL) return nd__err(ND_ERR_INVALID, FN, "names[%d] is NULL", k);
        if (args[k] == NULL) return nd__err(ND_ERR_INVALID, FN, "args[%d] ('%.64s') is NULL", k, names[k]);
        const char *s = names[k];
        bool ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_';
        size_t l = 0;
        for (; s[l] && ok && l <= 64; l++)
            ok = (s[l] >= 'a' && s[l] <= 'z') || (s[l] >= 'A' && s[l] <= 'Z') || s[l] == '_' || (s[l] >= '0' && s[l] <= '9');
        if (!ok || l > 64) return nd__err(ND_ERR_INVALID, FN, "names[%d] = \"%.64s\" is not a name (letters, digits, '_', at most 64)", k, names[k]);
        for (int j = 0; j < k; j++)
            if (strcmp(names[j], names[k]) == 0) return nd__err(ND_ERR_INVALID, FN, "name '%s' given twice", names[k]);
        if (!nd__dtype_valid(args[k]->dtype)) return nd__err(ND_ERR_INVALID, FN, "args[%d] has an invalid dtype", k);
        if (k > 0 && !nd__same_device(args[k]->device, args[0]->device)) {
            char d1[32], d2[32];
            return nd__err(ND_ERR_DEVICE, FN, "'%s' is on %s but '%s' is on %s", names[0],
                           nd__device_name(args[0]->device, d1, sizeof d1), names[k],
                           nd__device_name(args[k]->device, d2, sizeof d2));
        }
    }
    return ND_OK;
}

/* The elementwise part into *out (the out rule) on the fused path: the
 * backend's expr slot, else a CUDA unit through its rtc slots (where no
 * compiler turns out to exist, op by op into the same target). */
static nd_status run_fused(compiled *c, nd_array **out, const nd_array *const *args, nd_device dev,
                           const nd_backend *be)
{
    const nd_expr_prog *p = &c->prog;
    int ndim = 0;
    int64_t shape[ND_MAX_DIMS];
    nd_status st;
    for (int k = 0; k < c->nused; k++) {
        const nd_array *a = args[c->used[k]];
        int64_t s2[ND_MAX_DIMS];
        int nd2;
        if ((st = nd__broadcast_shapes(FN, ndim, shape, a->ndim, a->shape, &nd2, s2))) return st;
        ndim = nd2;
        memcpy(shape, s2, sizeof(int64_t) * (size_t)nd2);
    }
    nd_out t;
    if ((st = nd__out_begin(&t, FN, out, p->res, ndim, shape, dev))) return st;
    const nd_array *ins[ND_EXPR_MAX_ARGS];
    nd_array *views[ND_EXPR_MAX_ARGS] = {0};
    for (int k = 0; k < c->nused; k++) ins[k] = args[c->used[k]];
    nd__out_keep_order(&t, c->nused, ins);
    for (int k = 0; k < c->nused; k++) {
        const nd_array *a = ins[k];
        bool same = a->ndim == ndim;
        for (int d = 0; same && d < ndim; d++) same = a->shape[d] == shape[d];
        if (!same) {
            if ((st = nd__broadcast_view(&views[k], a, ndim, shape))) {
                st = nd__err_prefix(st, FN);
                goto done;
            }
            ins[k] = views[k];
        }
    }
    if ((st = nd__out_target(&t, p->res, ND_OUT_EXACT_DTYPE | ND_OUT_ELEMENTWISE, c->nused, ins))) goto done;
    if (be->expr) {
        st = be->expr(p, t.dst, ins);
    } else {
        st = nd__fuse_rtc_run(FN, be, p, t.dst, ins, &c->gpu);
        if (st == ND_ERR_UNSUPPORTED) {
            nd_array *r = NULL;
            if ((st = eval_node(c, args, dev, c->root, &r)) == ND_OK) st = nd__copy_into(t.dst, r);
            nd_release(r);
        }
    }
done:
    for (int k = 0; k < c->nused; k++) nd_release(views[k]);
    return nd__out_end(&t, st);
}

static nd_status expr_eval(nd_array **out, const char *expr, int nargs, const char *const *names,
                           const nd_array *const *args, bool allow_fused)
{
    ND_CHECK_PTR(FN, out, "out");
    size_t len = 0;
    nd_status st = check_args(expr, &len, nargs, names, args);
    if (st) return st;
    compiled *c = NULL;
    if ((st = compile(&c, expr, len, nargs, names, args))) return st;
    nd_device dev = nargs > 0 ? args[0]->device : nd_cpu();
    const nd_backend *be = nd__backend(dev);
    if (be == NULL) {
        compiled_release(c);
        char d[32];
        return nd__err(ND_ERR_UNSUPPORTED, FN, "%s is not compiled in", nd__device_name(dev, d, sizeof d));
    }
    bool fused = allow_fused && c->fusable && (be->expr != NULL || nd__fuse_rtc_usable(be));
    nd_array *r = NULL;
    if (!c->reduce && fused) {
        st = run_fused(c, out, args, dev, be);
    } else {
        /* the elementwise part as an array r (or the operand itself) */
        if (fused && !(c->nodes[c->root].kind == EN_ARG))
            st = run_fused(c, &r, args, dev, be);
        else
            st = eval_node(c, args, dev, c->root, &r);
        if (st == ND_OK && c->reduce) {
            const en_node *rn = &c->nodes[c->count - 1];
            st = nd_reduce(out, (nd_reduce_op)rn->op, r, rn->naxes, rn->naxes < 0 ? NULL : rn->axes, false);
            if (st) st = nd__expr_err_at(st, FN, expr, rn->col, "%s", nd_last_error());
        } else if (st == ND_OK) {
            st = nd__out_deliver(FN, out, &r, c->res, c->nodes[c->root].kind == EN_ARG ? ND_OUT_COPY : 0);
        }
        nd_release(r);
    }
    compiled_release(c);
    return st;
}

nd_status nd_expr_eval(nd_array **out, const char *expr, int nargs, const char *const *names,
                       const nd_array *const *args)
{
    ND_PROF_OP_N("expr", out, args && nargs > 0 && nargs <= ND_EXPR_MAX_NAMES ? nargs : 0, args);
    return expr_eval(out, expr, nargs, names, args, true);
}

nd_status nd__expr_eval_unfused(nd_array **out, const char *expr, int nargs, const char *const *names,
                                const nd_array *const *args)
{
    return expr_eval(out, expr, nargs, names, args, false);
}
