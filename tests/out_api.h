/* The out test's call adapters: one per public function that takes an
 * `nd_array **out` parameter, in the tables of tests/test_out_api_core.c
 * and tests/test_out_api_families.c; tests/test_out_api.c runs each
 * through the out rule's core cases. tools/out_api.py reads the public
 * header and checks that every such function has an entry (`make
 * check-out-api`, part of `make test`); `python3 tools/out_api.py stubs
 * tests/test_out_api_*.c` writes adapter stubs for the missing ones.
 *
 * An adapter calls its function with inputs from the fixture (real,
 * non-zero values on the test's device) and the given out-pointer, so the
 * same call gives a fresh result (out NULL) and writes a given out. Calls
 * that draw random numbers make their generator from a fixed seed each
 * time. */
#ifndef ND_OUT_API_H
#define ND_OUT_API_H
#include <stddef.h>

#include "ndgpu.h"

typedef struct out_fx {
    nd_device dev;
    nd_array *a;      /* float64 (2,3), mixed signs */
    nd_array *b;      /* float64 (2,3), mixed signs */
    nd_array *pos;    /* float64 (2,3) in (0, 1): the domain of log, arcsin, ... */
    nd_array *big;    /* float64 (2,3) > 1: arccosh's domain */
    nd_array *an;     /* float64 (2,3): a with one NaN */
    nd_array *ia;     /* int64 (2,3), mixed signs */
    nd_array *ib;     /* int64 (2,3), positive */
    nd_array *v3;     /* float64 (3,) */
    nd_array *sq;     /* float64 (3,3), symmetric positive definite */
    nd_array *srt;    /* float64 (5,), sorted */
    nd_array *cx;     /* complex128 (2,3) */
    nd_array *mask;   /* bool (2,3) */
    nd_array *mask3;  /* bool (3,) */
    nd_array *idx;    /* int64 (2,) indices into an axis of extent 3 */
    nd_array *idx21;  /* int64 (2,1) indices into axis 1 of a */
    nd_array *reps;   /* int64 (3,) repetition counts */
    nd_array *labels; /* int64 (2,) class indices of a's rows */
    nd_array *prob;   /* float64 (2,3) probabilities */
} out_fx;

typedef nd_status (*out_call)(nd_array **out, const out_fx *f);

/* Flags of an entry. */
enum {
    OUT_UNDEFINED = 1u << 0, /* the values are unspecified (nd_empty): the out rule's checks only */
};

typedef struct out_api_entry {
    const char *name; /* the public function */
    out_call call;
    unsigned flags;
} out_api_entry;

/* The adapter of the public function fn: out_api_<fn>(o, f). */
#define OUT_ADAPTER(fn) static nd_status out_api_##fn(nd_array **o, const out_fx *f __attribute__((unused)))
/* A table entry (tools/out_api.py looks for its expansion). */
#define OUT_ENTRY(fn, flags) {#fn, out_api_##fn, (flags)}

extern const out_api_entry out_api_core[];
extern const size_t out_api_core_n;
extern const out_api_entry out_api_families[];
extern const size_t out_api_families_n;

#endif
