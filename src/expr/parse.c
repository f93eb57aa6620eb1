/*
 * The expression language of nd_expr_eval (docs/expr.md): a recursive
 * descent parser with Python's operator precedence, building a tree of
 * nodes in post order (children first). Operations on two literals are
 * folded here with Python's arithmetic, so that "x * -1" or "x * (2 * 3)"
 * see one weak scalar, as NumPy code sees a Python number.
 *
 * Never trusts its input: nesting, node count and length are capped, every
 * error names the column.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr/expr_impl.h"
#include "shared/ew_names.h"

nd_status nd__expr_err_at(nd_status code, const char *func, const char *expr, int col, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t len = strlen(expr);
    if (len > 120) return nd__err(code, func, "%s at column %d in \"%.100s...\"", msg, col, expr);
    return nd__err(code, func, "%s at column %d in \"%s\"", msg, col, expr);
}

typedef struct {
    const char *func;
    const char *src;
    const char *p; /* the next character */
    int nargs;
    const char *const *names;
    en_tree *t;
    int depth;
    nd_status st;
} parser;

static int col_of(const parser *ps, const char *at) { return (int)(at - ps->src) + 1; }

#define PFAIL(ps, at, ...)                                                                              \
    do {                                                                                                \
        if ((ps)->st == ND_OK)                                                                          \
            (ps)->st = nd__expr_err_at(ND_ERR_INVALID, (ps)->func, (ps)->src, col_of((ps), (at)), __VA_ARGS__); \
        return -1;                                                                                      \
    } while (0)

static void skip_ws(parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

/* Whether the next token is the operator op (and not a longer one). */
static bool peek_op(parser *ps, const char *op)
{
    skip_ws(ps);
    size_t n = strlen(op);
    if (strncmp(ps->p, op, n) != 0) return false;
    /* "*" is not "**", "/" not "//", "<" not "<<" or "<=", ">" not ">>" or ">=", "=" not "==" */
    char c = ps->p[n];
    if (n == 1 && (op[0] == '*' || op[0] == '/' || op[0] == '<' || op[0] == '>') && c == op[0]) return false;
    if (n == 1 && (op[0] == '<' || op[0] == '>' || op[0] == '=' || op[0] == '!') && c == '=') return false;
    return true;
}

static bool accept_op(parser *ps, const char *op)
{
    if (!peek_op(ps, op)) return false;
    ps->p += strlen(op);
    return true;
}

static int new_node(parser *ps, const char *at, en_kind k)
{
    if (ps->t->count >= ND_EXPR_MAX_NODES) PFAIL(ps, at, "expression too long (more than %d operands and operations)", ND_EXPR_MAX_NODES);
    int i = ps->t->count++;
    en_node *n = &ps->t->n[i];
    memset(n, 0, sizeof *n);
    n->kind = (uint8_t)k;
    n->a = n->b = n->c = -1;
    n->col = col_of(ps, at);
    n->naxes = -1;
    return i;
}

/* ------------------------------------------------------------------ */
/* Folding operations on two literals (Python's arithmetic)            */
/* ------------------------------------------------------------------ */
static double lit_f(nd_scalar s)
{
    return s.kind == ND_SCALAR_FLOAT ? s.v.f : s.kind == ND_SCALAR_INT ? (double)s.v.i : (double)s.v.b;
}
static int64_t lit_i(nd_scalar s) { return s.kind == ND_SCALAR_INT ? s.v.i : (int64_t)s.v.b; }

/* a op b for two literals; -1 (error set) when Python would fail or the
 * operation is not folded. */
static int fold_binary(parser *ps, const char *at, nd_binary_op op, nd_scalar a, nd_scalar b, nd_scalar *r)
{
    const char *nm = nd__binary_name(op);
    bool cpx = a.kind == ND_SCALAR_COMPLEX || b.kind == ND_SCALAR_COMPLEX;
    bool flt = !cpx && (a.kind == ND_SCALAR_FLOAT || b.kind == ND_SCALAR_FLOAT);
    bool bools = a.kind == ND_SCALAR_BOOL && b.kind == ND_SCALAR_BOOL;
    if (cpx) {
        double ar = a.kind == ND_SCALAR_COMPLEX ? a.v.c[0] : lit_f(a), ai = a.kind == ND_SCALAR_COMPLEX ? a.v.c[1] : 0;
        double br = b.kind == ND_SCALAR_COMPLEX ? b.v.c[0] : lit_f(b), bi = b.kind == ND_SCALAR_COMPLEX ? b.v.c[1] : 0;
        switch (op) {
        case ND_BINARY_ADD: *r = nd_scalar_complex(ar + br, ai + bi); return 0;
        case ND_BINARY_SUBTRACT: *r = nd_scalar_complex(ar - br, ai - bi); return 0;
        case ND_BINARY_MULTIPLY: *r = nd_scalar_complex(ar * br - ai * bi, ar * bi + ai * br); return 0;
        case ND_BINARY_EQUAL: *r = nd_scalar_bool(ar == br && ai == bi); return 0;
        case ND_BINARY_NOT_EQUAL: *r = nd_scalar_bool(!(ar == br && ai == bi)); return 0;
        default: PFAIL(ps, at, "operator '%s' on two complex literals is not supported", nm);
        }
    }
    if (flt) {
        double x = lit_f(a), y = lit_f(b);
        switch (op) {
        case ND_BINARY_ADD: *r = nd_scalar_float(x + y); return 0;
        case ND_BINARY_SUBTRACT: *r = nd_scalar_float(x - y); return 0;
        case ND_BINARY_MULTIPLY: *r = nd_scalar_float(x * y); return 0;
        case ND_BINARY_DIVIDE:
            if (y == 0) PFAIL(ps, at, "float division by zero");
            *r = nd_scalar_float(x / y);
            return 0;
        case ND_BINARY_POWER:
            if (x < 0 && y != floor(y)) PFAIL(ps, at, "a negative literal to a fractional power is complex");
            if (x == 0 && y < 0) PFAIL(ps, at, "0.0 cannot be raised to a negative power");
            *r = nd_scalar_float(pow(x, y));
            return 0;
        case ND_BINARY_EQUAL: *r = nd_scalar_bool(x == y); return 0;
        case ND_BINARY_NOT_EQUAL: *r = nd_scalar_bool(x != y); return 0;
        case ND_BINARY_LESS: *r = nd_scalar_bool(x < y); return 0;
        case ND_BINARY_LESS_EQUAL: *r = nd_scalar_bool(x <= y); return 0;
        case ND_BINARY_GREATER: *r = nd_scalar_bool(x > y); return 0;
        case ND_BINARY_GREATER_EQUAL: *r = nd_scalar_bool(x >= y); return 0;
        default: PFAIL(ps, at, "operator '%s' on two float literals is not supported", nm);
        }
    }
    if (bools && (op == ND_BINARY_BITWISE_AND || op == ND_BINARY_BITWISE_OR || op == ND_BINARY_BITWISE_XOR)) {
        bool x = a.v.b, y = b.v.b;
        *r = nd_scalar_bool(op == ND_BINARY_BITWISE_AND ? (x && y) : op == ND_BINARY_BITWISE_OR ? (x || y) : (x != y));
        return 0;
    }
    int64_t x = lit_i(a), y = lit_i(b), v = 0;
    switch (op) {
    case ND_BINARY_ADD:
        if (__builtin_add_overflow(x, y, &v)) break;
        *r = nd_scalar_int(v);
        return 0;
    case ND_BINARY_SUBTRACT:
        if (__builtin_sub_overflow(x, y, &v)) break;
        *r = nd_scalar_int(v);
        return 0;
    case ND_BINARY_MULTIPLY:
        if (__builtin_mul_overflow(x, y, &v)) break;
        *r = nd_scalar_int(v);
        return 0;
    case ND_BINARY_DIVIDE:
        if (y == 0) PFAIL(ps, at, "division by zero");
        *r = nd_scalar_float((double)x / (double)y);
        return 0;
    case ND_BINARY_FLOOR_DIVIDE:
    case ND_BINARY_REMAINDER: {
        if (y == 0) PFAIL(ps, at, "integer division or modulo by zero");
        if (x == INT64_MIN && y == -1) break;
        int64_t q = x / y, m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) q -= 1, m += y;
        *r = nd_scalar_int(op == ND_BINARY_FLOOR_DIVIDE ? q : m);
        return 0;
    }
    case ND_BINARY_POWER: {
        if (y < 0) {
            if (x == 0) PFAIL(ps, at, "0 cannot be raised to a negative power");
            *r = nd_scalar_float(pow((double)x, (double)y));
            return 0;
        }
        int64_t acc = 1, base = x;
        bool of = false;
        for (int64_t e = y; e > 0 && !of; e >>= 1) {
            if (e & 1) of = __builtin_mul_overflow(acc, base, &acc);
            if (e > 1 && !of) of = __builtin_mul_overflow(base, base, &base);
        }
        if (of) break;
        *r = nd_scalar_int(acc);
        return 0;
    }
    case ND_BINARY_BITWISE_AND: *r = nd_scalar_int(x & y); return 0;
    case ND_BINARY_BITWISE_OR: *r = nd_scalar_int(x | y); return 0;
    case ND_BINARY_BITWISE_XOR: *r = nd_scalar_int(x ^ y); return 0;
    case ND_BINARY_LEFT_SHIFT:
        if (y < 0) PFAIL(ps, at, "negative shift count");
        if (y > 62 || (x != 0 && (x > (INT64_MAX >> y) || x < (INT64_MIN >> y)))) break;
        *r = nd_scalar_int((int64_t)((uint64_t)x << y));
        return 0;
    case ND_BINARY_RIGHT_SHIFT:
        if (y < 0) PFAIL(ps, at, "negative shift count");
        *r = nd_scalar_int(y > 63 ? (x < 0 ? -1 : 0) : x >> y);
        return 0;
    case ND_BINARY_EQUAL: *r = nd_scalar_bool(x == y); return 0;
    case ND_BINARY_NOT_EQUAL: *r = nd_scalar_bool(x != y); return 0;
    case ND_BINARY_LESS: *r = nd_scalar_bool(x < y); return 0;
    case ND_BINARY_LESS_EQUAL: *r = nd_scalar_bool(x <= y); return 0;
    case ND_BINARY_GREATER: *r = nd_scalar_bool(x > y); return 0;
    case ND_BINARY_GREATER_EQUAL: *r = nd_scalar_bool(x >= y); return 0;
    default: PFAIL(ps, at, "operator '%s' on two literals is not supported", nm);
    }
    PFAIL(ps, at, "integer literal arithmetic overflows int64");
}

/* A binary node, or the folded literal when both sides are literals. */
static int make_binary(parser *ps, const char *at, nd_binary_op op, int a, int b)
{
    if (a < 0 || b < 0) return -1;
    en_node *na = &ps->t->n[a], *nb = &ps->t->n[b];
    if (na->kind == EN_LIT && nb->kind == EN_LIT) {
        nd_scalar r;
        if (fold_binary(ps, at, op, na->s, nb->s, &r)) return -1;
        /* the two literals were the last two nodes: reuse the first */
        ps->t->count = a + 1;
        na->s = r;
        na->col = col_of(ps, at);
        return a;
    }
    int i = new_node(ps, at, EN_BINARY);
    if (i < 0) return -1;
    ps->t->n[i].op = (int16_t)op;
    ps->t->n[i].a = a;
    ps->t->n[i].b = b;
    return i;
}

static int make_unary(parser *ps, const char *at, nd_unary_op op, int a)
{
    if (a < 0) return -1;
    en_node *na = &ps->t->n[a];
    if (na->kind == EN_LIT && (op == ND_UNARY_NEG || op == ND_UNARY_POSITIVE || op == ND_UNARY_BITWISE_NOT)) {
        nd_scalar s = na->s;
        if (s.kind == ND_SCALAR_BOOL) s = nd_scalar_int(s.v.b); /* Python: -True == -1, ~True == -2 */
        if (op == ND_UNARY_BITWISE_NOT) {
            if (s.kind != ND_SCALAR_INT) PFAIL(ps, at, "operator '~' on a %s literal", s.kind == ND_SCALAR_FLOAT ? "float" : "complex");
            s.v.i = ~s.v.i;
        } else if (op == ND_UNARY_NEG) {
            if (s.kind == ND_SCALAR_INT) {
                if (s.v.i == INT64_MIN) PFAIL(ps, at, "integer literal arithmetic overflows int64");
                s.v.i = -s.v.i;
            } else if (s.kind == ND_SCALAR_FLOAT) {
                s.v.f = -s.v.f;
            } else {
                s.v.c[0] = -s.v.c[0], s.v.c[1] = -s.v.c[1];
            }
        }
        na->s = s;
        na->col = col_of(ps, at);
        return a;
    }
    int i = new_node(ps, at, EN_UNARY);
    if (i < 0) return -1;
    ps->t->n[i].op = (int16_t)op;
    ps->t->n[i].a = a;
    return i;
}

/* ------------------------------------------------------------------ */
/* The grammar                                                         */
/* ------------------------------------------------------------------ */
static int parse_expr(parser *ps);

static bool is_ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

static int parse_number(parser *ps)
{
    const char *at = ps->p;
    char buf[80];
    size_t n = 0;
    bool isfloat = false;
    const char *q = ps->p;
    while (isdigit((unsigned char)*q) || *q == '.' || *q == '_' ||
           ((*q == 'e' || *q == 'E') && q > ps->p) ||
           ((*q == '+' || *q == '-') && q > ps->p && (q[-1] == 'e' || q[-1] == 'E'))) {
        if (*q == '.' || *q == 'e' || *q == 'E') isfloat = true;
        if (*q != '_') {
            if (n + 1 >= sizeof buf) PFAIL(ps, at, "numeric literal too long");
            buf[n++] = *q;
        }
        q++;
    }
    buf[n] = '\0';
    bool imag = *q == 'j' || *q == 'J';
    if (imag) q++;
    if (is_ident(*q)) PFAIL(ps, at, "invalid numeric literal");
    char *end;
    nd_scalar s;
    errno = 0;
    if (isfloat || imag) {
        double v = strtod(buf, &end);
        if (*end != '\0' || end == buf) PFAIL(ps, at, "invalid numeric literal");
        s = imag ? nd_scalar_complex(0.0, v) : nd_scalar_float(v);
    } else {
        if (n > 1 && buf[0] == '0') {
            for (size_t k = 0; k < n; k++)
                if (buf[k] != '0') PFAIL(ps, at, "leading zeros in an integer literal are not permitted");
        }
        long long v = strtoll(buf, &end, 10);
        if (*end != '\0' || end == buf) PFAIL(ps, at, "invalid numeric literal");
        if (errno == ERANGE) PFAIL(ps, at, "integer literal out of the int64 range");
        s = nd_scalar_int(v);
    }
    ps->p = q;
    int i = new_node(ps, at, EN_LIT);
    if (i < 0) return -1;
    ps->t->n[i].s = s;
    return i;
}

/* "axis=" value: an int, a parenthesised tuple of ints, or None. */
static int parse_axis(parser *ps, en_node *r)
{
    skip_ws(ps);
    const char *at = ps->p;
    if (strncmp(ps->p, "None", 4) == 0 && !is_ident(ps->p[4])) {
        ps->p += 4;
        r->naxes = -1;
        return 0;
    }
    bool tuple = accept_op(ps, "(");
    r->naxes = 0;
    for (;;) {
        skip_ws(ps);
        if (tuple && peek_op(ps, ")")) break;
        const char *vat = ps->p;
        bool neg = accept_op(ps, "-");
        skip_ws(ps);
        if (!isdigit((unsigned char)*ps->p)) PFAIL(ps, vat, "axis must be an integer, a tuple of integers or None");
        long v = 0;
        while (isdigit((unsigned char)*ps->p)) {
            v = v * 10 + (*ps->p++ - '0');
            if (v > 1000) PFAIL(ps, vat, "axis out of range");
        }
        if (r->naxes >= ND_MAX_DIMS) PFAIL(ps, vat, "too many axes");
        r->axes[r->naxes++] = (int)(neg ? -v : v);
        if (!tuple) break;
        if (!accept_op(ps, ",")) break;
    }
    if (tuple && !accept_op(ps, ")")) PFAIL(ps, ps->p, "expected ')' after the axes");
    (void)at;
    return 0;
}

static bool reduce_named(const char *id, size_t n, nd_reduce_op *op)
{
    static const struct {
        const char *name;
        nd_reduce_op op;
    } red[] = {{"sum", ND_REDUCE_SUM}, {"prod", ND_REDUCE_PROD}, {"max", ND_REDUCE_MAX}, {"min", ND_REDUCE_MIN},
               {"mean", ND_REDUCE_MEAN}};
    for (size_t k = 0; k < sizeof red / sizeof red[0]; k++)
        if (strlen(red[k].name) == n && strncmp(red[k].name, id, n) == 0) {
            *op = red[k].op;
            return true;
        }
    return false;
}

static int parse_call(parser *ps, const char *at, const char *id, size_t n)
{
    /* what the name calls */
    int arity = -1, ukind = -1;
    int op = -1;
    nd_dtype cast = ND_BOOL;
    nd_reduce_op rop = ND_REDUCE_SUM;
    if (n == 5 && strncmp(id, "where", 5) == 0) {
        ukind = EN_WHERE, arity = 3;
    } else if (reduce_named(id, n, &rop)) {
        ukind = EN_REDUCE, arity = 1;
    } else {
        for (int k = 0; k < ND_NUM_UNARY_OPS && ukind < 0; k++) {
            const char *nm = nd__unary_name((nd_unary_op)k);
            if (strlen(nm) == n && strncmp(nm, id, n) == 0) ukind = EN_UNARY, arity = 1, op = k;
        }
        for (int k = 0; k < ND_NUM_BINARY_OPS && ukind < 0; k++) {
            const char *nm = nd__binary_name((nd_binary_op)k);
            if (strlen(nm) == n && strncmp(nm, id, n) == 0) ukind = EN_BINARY, arity = 2, op = k;
        }
        for (int k = 0; k < ND_NUM_DTYPES && ukind < 0; k++) {
            const char *nm = nd_dtype_name((nd_dtype)k);
            if (strlen(nm) == n && strncmp(nm, id, n) == 0) ukind = EN_CAST, arity = 1, cast = (nd_dtype)k;
        }
    }
    if (ukind < 0) PFAIL(ps, at, "unknown function '%.*s'", (int)n, id);
    if (ukind == EN_REDUCE && ps->t->count > 0)
        PFAIL(ps, at, "the reduction '%.*s' must be the outermost call", (int)n, id);
    int args[3] = {-1, -1, -1}, nargs = 0;
    en_node red;
    memset(&red, 0, sizeof red);
    red.naxes = -1;
    bool saw_axis = false;
    skip_ws(ps);
    if (!accept_op(ps, ")")) {
        for (;;) {
            skip_ws(ps);
            const char *aat = ps->p;
            if (strncmp(ps->p, "axis", 4) == 0 && !is_ident(ps->p[4])) {
                const char *save = ps->p;
                ps->p += 4;
                if (accept_op(ps, "=")) {
                    if (ukind != EN_REDUCE) PFAIL(ps, aat, "'%.*s' takes no keyword 'axis'", (int)n, id);
                    if (saw_axis) PFAIL(ps, aat, "keyword 'axis' given twice");
                    saw_axis = true;
                    if (parse_axis(ps, &red)) return -1;
                    goto next;
                }
                ps->p = save;
            }
            if (saw_axis) PFAIL(ps, aat, "a positional argument follows the keyword 'axis'");
            {
                int e = parse_expr(ps);
                if (e < 0) return -1;
                if (nargs < 3) args[nargs] = e;
                nargs++;
            }
        next:
            if (accept_op(ps, ",")) {
                skip_ws(ps);
                if (peek_op(ps, ")")) { /* a trailing comma */
                    ps->p++;
                    break;
                }
                continue;
            }
            if (accept_op(ps, ")")) break;
            skip_ws(ps);
            PFAIL(ps, ps->p, *ps->p ? "expected ',' or ')' in the call of '%.*s'" : "unexpected end in the call of '%.*s'",
                  (int)n, id);
        }
    }
    if (nargs != arity)
        PFAIL(ps, at, "'%.*s' takes %d argument%s, %d given", (int)n, id, arity, arity == 1 ? "" : "s", nargs);
    if (ukind == EN_BINARY && ps->t->n[args[0]].kind == EN_LIT && ps->t->n[args[1]].kind == EN_LIT) {
        /* np.maximum(1, 2.0): the first Python number as an array of its
         * default dtype, the second weak against it */
        int w = new_node(ps, at, EN_CAST);
        if (w < 0) return -1;
        nd_scalar s0 = ps->t->n[args[0]].s;
        ps->t->n[w].a = args[0];
        ps->t->n[w].dt = s0.kind == ND_SCALAR_BOOL ? ND_BOOL : s0.kind == ND_SCALAR_INT ? ND_INT64
                         : s0.kind == ND_SCALAR_FLOAT ? ND_FLOAT64 : ND_COMPLEX128;
        args[0] = w;
    }
    int i = new_node(ps, at, (en_kind)ukind);
    if (i < 0) return -1;
    en_node *nd = &ps->t->n[i];
    nd->a = args[0], nd->b = args[1], nd->c = args[2];
    nd->op = (int16_t)(ukind == EN_REDUCE ? (int)rop : op);
    nd->dt = cast;
    if (ukind == EN_REDUCE) {
        nd->naxes = red.naxes;
        memcpy(nd->axes, red.axes, sizeof red.axes);
    }
    return i;
}

static int parse_primary(parser *ps)
{
    skip_ws(ps);
    const char *at = ps->p;
    char c = *ps->p;
    if (c == '\0') PFAIL(ps, at, "unexpected end of the expression");
    if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)ps->p[1]))) return parse_number(ps);
    if (c == '(') {
        ps->p++;
        if (++ps->depth > ND_EXPR_MAX_DEPTH) PFAIL(ps, at, "expression nested too deeply (more than %d levels)", ND_EXPR_MAX_DEPTH);
        int e = parse_expr(ps);
        ps->depth--;
        if (e < 0) return -1;
        if (!accept_op(ps, ")")) {
            skip_ws(ps);
            PFAIL(ps, *ps->p ? ps->p : at, *ps->p ? "expected ')'" : "unclosed '('");
        }
        return e;
    }
    if (is_ident_start(c)) {
        const char *id = ps->p;
        while (is_ident(*ps->p)) ps->p++;
        size_t n = (size_t)(ps->p - id);
        if ((n == 4 && (strncmp(id, "true", 4) == 0 || strncmp(id, "True", 4) == 0)) ||
            (n == 5 && (strncmp(id, "false", 5) == 0 || strncmp(id, "False", 5) == 0))) {
            int i = new_node(ps, at, EN_LIT);
            if (i < 0) return -1;
            ps->t->n[i].s = nd_scalar_bool(n == 4);
            return i;
        }
        if (accept_op(ps, "(")) {
            if (++ps->depth > ND_EXPR_MAX_DEPTH) PFAIL(ps, at, "expression nested too deeply (more than %d levels)", ND_EXPR_MAX_DEPTH);
            int r = parse_call(ps, at, id, n);
            ps->depth--;
            return r;
        }
        for (int k = 0; k < ps->nargs; k++)
            if (strlen(ps->names[k]) == n && strncmp(ps->names[k], id, n) == 0) {
                int i = new_node(ps, at, EN_ARG);
                if (i < 0) return -1;
                ps->t->n[i].arg = k;
                return i;
            }
        PFAIL(ps, at, "unknown name '%.*s'", (int)(n > 64 ? 64 : n), id);
    }
    if ((unsigned char)c < 32 || (unsigned char)c >= 127) PFAIL(ps, at, "unexpected character (code %d)", (unsigned char)c);
    PFAIL(ps, at, "unexpected '%c'", c);
}

static int parse_unary(parser *ps);

static int parse_power(parser *ps)
{
    int a = parse_primary(ps);
    if (a < 0) return -1;
    skip_ws(ps);
    const char *at = ps->p;
    if (accept_op(ps, "**")) {
        int b = parse_unary(ps); /* right-associative; binds tighter than a unary on its left */
        return make_binary(ps, at, ND_BINARY_POWER, a, b);
    }
    return a;
}

static int parse_unary(parser *ps)
{
    skip_ws(ps);
    const char *at = ps->p;
    nd_unary_op op;
    if (peek_op(ps, "-")) op = ND_UNARY_NEG;
    else if (peek_op(ps, "+")) op = ND_UNARY_POSITIVE;
    else if (peek_op(ps, "~")) op = ND_UNARY_BITWISE_NOT;
    else return parse_power(ps);
    ps->p++;
    if (++ps->depth > ND_EXPR_MAX_DEPTH) PFAIL(ps, at, "expression nested too deeply (more than %d levels)", ND_EXPR_MAX_DEPTH);
    int a = parse_unary(ps);
    ps->depth--;
    return make_unary(ps, at, op, a);
}

/* One level of left-associative binary operators. */
typedef struct {
    const char *tok;
    nd_binary_op op;
} binop;

static int parse_level(parser *ps, int level);

static const binop lv_or[] = {{"|", ND_BINARY_BITWISE_OR}, {NULL, 0}};
static const binop lv_xor[] = {{"^", ND_BINARY_BITWISE_XOR}, {NULL, 0}};
static const binop lv_and[] = {{"&", ND_BINARY_BITWISE_AND}, {NULL, 0}};
static const binop lv_shift[] = {{"<<", ND_BINARY_LEFT_SHIFT}, {">>", ND_BINARY_RIGHT_SHIFT}, {NULL, 0}};
static const binop lv_arith[] = {{"+", ND_BINARY_ADD}, {"-", ND_BINARY_SUBTRACT}, {NULL, 0}};
static const binop lv_term[] = {{"*", ND_BINARY_MULTIPLY}, {"//", ND_BINARY_FLOOR_DIVIDE}, {"/", ND_BINARY_DIVIDE},
                                {"%", ND_BINARY_REMAINDER}, {NULL, 0}};
static const binop *const levels[] = {lv_or, lv_xor, lv_and, lv_shift, lv_arith, lv_term};
#define NLEVELS ((int)(sizeof levels / sizeof levels[0]))

static int parse_level(parser *ps, int level)
{
    if (level == NLEVELS) return parse_unary(ps);
    int a = parse_level(ps, level + 1);
    while (a >= 0) {
        skip_ws(ps);
        const char *at = ps->p;
        const binop *hit = NULL;
        for (const binop *b = levels[level]; b->tok; b++)
            if (peek_op(ps, b->tok)) {
                hit = b;
                break;
            }
        if (!hit) break;
        ps->p += strlen(hit->tok);
        int b = parse_level(ps, level + 1);
        a = make_binary(ps, at, hit->op, a, b);
    }
    return a;
}

static const binop cmps[] = {{"==", ND_BINARY_EQUAL},     {"!=", ND_BINARY_NOT_EQUAL}, {"<=", ND_BINARY_LESS_EQUAL},
                             {">=", ND_BINARY_GREATER_EQUAL}, {"<", ND_BINARY_LESS},       {">", ND_BINARY_GREATER},
                             {NULL, 0}};

static const binop *peek_cmp(parser *ps)
{
    for (const binop *b = cmps; b->tok; b++)
        if (peek_op(ps, b->tok)) return b;
    return NULL;
}

static int parse_expr(parser *ps)
{
    int a = parse_level(ps, 0);
    if (a < 0) return -1;
    skip_ws(ps);
    const char *at = ps->p;
    const binop *c = peek_cmp(ps);
    if (!c) return a;
    ps->p += strlen(c->tok);
    int b = parse_level(ps, 0);
    if (b < 0) return -1;
    skip_ws(ps);
    if (peek_cmp(ps)) PFAIL(ps, ps->p, "chained comparisons are not supported (write (a < b) & (b < c))");
    return make_binary(ps, at, c->op, a, b);
}

nd_status nd__expr_parse(const char *func, const char *expr, int nargs, const char *const *names, en_tree *t)
{
    parser ps = {func, expr, expr, nargs, names, t, 0, ND_OK};
    t->count = 0;
    int r = parse_expr(&ps);
    if (r >= 0) {
        skip_ws(&ps);
        if (*ps.p != '\0') {
            if (*ps.p == '=' ) {
                ps.st = nd__expr_err_at(ND_ERR_INVALID, func, expr, col_of(&ps, ps.p), "unexpected '=' (write '==' to compare)");
            } else if ((unsigned char)*ps.p < 32 || (unsigned char)*ps.p >= 127) {
                ps.st = nd__expr_err_at(ND_ERR_INVALID, func, expr, col_of(&ps, ps.p), "unexpected character (code %d)",
                                        (unsigned char)*ps.p);
            } else {
                ps.st = nd__expr_err_at(ND_ERR_INVALID, func, expr, col_of(&ps, ps.p), "unexpected '%c'", *ps.p);
            }
            r = -1;
        }
    }
    if (r < 0) return ps.st ? ps.st : nd__err(ND_ERR_INTERNAL, func, "parse failed without a message");
    t->root = r;
    /* a reduction only as the outermost call */
    for (int i = 0; i < t->count; i++)
        if (t->n[i].kind == EN_REDUCE && i != r)
            return nd__expr_err_at(ND_ERR_INVALID, func, expr, t->n[i].col, "a reduction must be the outermost call");
    return ND_OK;
}
