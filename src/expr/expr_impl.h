/*
 * Internal to src/expr: the parsed expression (a tree of nodes in post
 * order), the parser (parse.c), and the compiled form that the cache holds
 * (expr.c: typing, the fused program, the op-by-op evaluation).
 */
#ifndef ND_EXPR_IMPL_H
#define ND_EXPR_IMPL_H
#include "core/internal.h"
#include "shared/expr_prog.h"

/* Limits of the language (docs/expr.md). */
#define ND_EXPR_MAX_LEN 4096   /* characters of an expression */
#define ND_EXPR_MAX_DEPTH 64   /* nesting of parentheses, calls and unary operators */
#define ND_EXPR_MAX_NODES 256  /* operands, literals and operations */
#define ND_EXPR_MAX_NAMES 64   /* nargs */

typedef enum {
    EN_ARG,    /* a named operand: arg = its index in names */
    EN_LIT,    /* a weak literal: s */
    EN_UNARY,  /* op(a) */
    EN_BINARY, /* op(a, b) */
    EN_WHERE,  /* where(a, b, c) */
    EN_CAST,   /* dtype(a): dt */
    EN_REDUCE  /* op(a, axis=...): only the outermost call */
} en_kind;

typedef struct en_node {
    uint8_t kind;
    int16_t op;   /* nd_unary_op, nd_binary_op, nd_reduce_op */
    int a, b, c;  /* children (node indices; -1: none) */
    int col;      /* 1-based column of the node's operator or name, for messages */
    int arg;      /* EN_ARG */
    nd_scalar s;  /* EN_LIT */
    nd_dtype dt;  /* EN_CAST: the target; after typing: the value's dtype (a literal: its default dtype) */
    /* EN_REDUCE */
    int naxes;    /* -1: all axes (no axis=, or axis=None) */
    int axes[ND_MAX_DIMS];
} en_node;

typedef struct en_tree {
    en_node *n; /* [ND_EXPR_MAX_NODES] */
    int count;
    int root;
} en_tree;

/* Parse expr (len characters, checked by the caller) with the operand
 * names names[0..nargs) into t (t->n has room for ND_EXPR_MAX_NODES).
 * Errors: ND_ERR_INVALID with "func: <what> at column N in \"expr\"". */
ND_INTERNAL nd_status nd__expr_parse(const char *func, const char *expr, int nargs, const char *const *names,
                                     en_tree *t);
/* Set the error "func: <msg> at column col in \"expr\"" (the expression
 * shortened when long) and return code. */
ND_INTERNAL nd_status nd__expr_err_at(nd_status code, const char *func, const char *expr, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Test hook: nd_expr_eval evaluated op by op with the library's ops
 * (the path of a device without the fused slot), on any device. */
ND_INTERNAL nd_status nd__expr_eval_unfused(nd_array **out, const char *expr, int nargs, const char *const *names,
                                            const nd_array *const *args);
#endif
