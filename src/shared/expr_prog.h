/*
 * The contract of the backends' expr slot (src/core/backend.h): a fused
 * elementwise program, made by src/expr from an expression and run by a
 * backend in one pass over memory.
 *
 * A program is a list of instructions over values: the array operands
 * (arguments, broadcast by the core to the output's shape), constants
 * (one element each, read with step 0) and temporaries (one block of
 * elements each). Every instruction is one of the library's own
 * elementwise steps on its loop dtype, exactly as the unfused op would
 * run it: a unary or binary op on operands that already have the op's
 * loop dtype, a cast (astype), or a where (bit select of one itemsize).
 * The last instruction writes the output. The planner (src/expr) inserts
 * the casts the unfused ops make, so running the instructions in order,
 * element by element, gives the unfused chain's bits.
 *
 * Integer power with an array exponent never reaches a backend (its
 * negative-exponent error needs the whole exponent before any write): the
 * core evaluates such programs op by op.
 */
#ifndef ND_SHARED_EXPR_PROG_H
#define ND_SHARED_EXPR_PROG_H
#include <stdint.h>

#include "ndgpu/elementwise.h"

/* At most this many array arguments, instructions, constants and
 * temporaries (the parser refuses bigger expressions first). */
#define ND_EXPR_MAX_ARGS 16
#define ND_EXPR_MAX_INSNS 128
#define ND_EXPR_MAX_CONSTS 64
#define ND_EXPR_MAX_TMPS 64

typedef enum {
    ND_EXPR_UNARY,  /* dst = op(src[0]) on loop dtype t; dst has dtype res */
    ND_EXPR_BINARY, /* dst = op(src[0], src[1]) on loop dtype t */
    ND_EXPR_CAST,   /* dst (dtype res) = src[0] (dtype t) cast, astype's conversion */
    ND_EXPR_WHERE   /* dst = src[0] ? src[1] : src[2]; src[0] bool, the others and dst of dtype t == res */
} nd_expr_kind;

typedef enum {
    ND_EXPR_REF_ARG,   /* idx: the operand's position in the list the core passes */
    ND_EXPR_REF_CONST, /* idx: into consts */
    ND_EXPR_REF_TMP,   /* idx: a temporary slot (slots are reused once their value is dead) */
    ND_EXPR_REF_OUT    /* the output (only the last instruction's dst) */
} nd_expr_ref_kind;

typedef struct nd_expr_ref {
    uint8_t kind; /* nd_expr_ref_kind */
    uint8_t idx;
} nd_expr_ref;

typedef struct nd_expr_insn {
    uint8_t kind; /* nd_expr_kind */
    uint8_t nsrc;
    int16_t op;   /* nd_unary_op / nd_binary_op */
    nd_dtype t;   /* loop dtype (cast: the source dtype) */
    nd_dtype res; /* dtype of dst */
    nd_expr_ref dst;
    nd_expr_ref src[3];
} nd_expr_insn;

typedef struct nd_expr_prog {
    int ninsn;
    int nargs;  /* array operands the backend receives */
    int nconst;
    int ntmp;   /* temporary slots */
    nd_dtype res;
    nd_dtype arg_dtype[ND_EXPR_MAX_ARGS];
    int tmp_itemsize; /* bytes per element of every temporary slot (the widest value they hold) */
    nd_dtype const_dtype[ND_EXPR_MAX_CONSTS];
    _Alignas(16) unsigned char consts[ND_EXPR_MAX_CONSTS][16]; /* one element each, in const_dtype */
    nd_expr_insn insn[ND_EXPR_MAX_INSNS];
} nd_expr_prog;

#endif
