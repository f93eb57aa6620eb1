/* Shared by tests/test_profiler_ops*.c: the events of the real ops (the
 * hooks of src/core/prof.h in every public operation). */
#ifndef ND_TEST_PROFILER_OPS_H
#define ND_TEST_PROFILER_OPS_H
#include "test_util.h"

/* The devices the cases run on: the CPU and, with a GPU (the emulated one
 * in the emu build), cuda:0. */
int prh_devices(nd_device *devs);
/* Start a session with the given recording. */
void prh_start(bool shapes, bool memory);
/* Stop it and return the events. */
const nd_profiler_event *prh_stop(size_t *n);
/* The depth-0 events that are not memory events: their number, and the
 * index in ev of the first (-1 none). */
int prh_top(const nd_profiler_event *ev, size_t n, int64_t *first);
/* An array of shape shape on dev holding k*0.25 - 1.25 (k = 0, 1, ...; never
 * all zero) cast to t. */
nd_array *prh_arr(nd_dtype t, int ndim, const int64_t *shape, nd_device dev);
/* The sweep of every hooked operation (tests/test_profiler_ops_sweep.c). */
void prh_add_sweep(TCase *tc);

#endif
