/*
 * Helpers of the profiler hooks (the ND_PROF_* scopes of src/core/prof.h in
 * the public operations): the name and the timed device of a transfer.
 */
#ifndef ND_PRH_H
#define ND_PRH_H
#include "core/prof.h"

/* "copy_h2d", "copy_d2h", "copy_d2d" or "copy_h2h" for a copy from one
 * device to another (the host is the CPU device). */
static inline const char *nd__prh_xfer_name(nd_device from, nd_device to)
{
    const bool hf = from.type == ND_DEVICE_CPU, ht = to.type == ND_DEVICE_CPU;
    return hf ? (ht ? "copy_h2h" : "copy_h2d") : (ht ? "copy_d2h" : "copy_d2d");
}

/* The device a transfer is timed on: its GPU side (the target between two
 * devices, the CPU between host arrays). */
static inline nd_device nd__prh_xfer_dev(nd_device from, nd_device to)
{
    return to.type != ND_DEVICE_CPU ? to : from;
}

/* The transfer of bytes from one device to another, in the open scope. */
#define ND_PRH_TRANSFER(from, to, bytes) \
    ND_PROF_TRANSFER(nd__prh_xfer_name((from), (to)), (bytes), nd__prh_xfer_dev((from), (to)))

/* The hook of the tiny hot ops (nd_add, nd_sum, ...: a public function
 * whose whole body is one call of its implementation): slow is a call of
 * a cold, never-inlined copy of the function whose first statement is the
 * scope (ND_PROF_OP ...; return the implementation), fast the plain call.
 * While no session runs, the function is a load, a branch and a tail call
 * (a scope in the function itself would give it a frame and a check after
 * the call). Use as the function's only statement. */
#define ND_PRH_HOT(slow, fast)                                  \
    do {                                                        \
        if (ND_UNLIKELY(nd__prof_running())) return (slow);     \
        return (fast);                                          \
    } while (0)
#define ND_PRH_COLD __attribute__((noinline, cold))

#endif /* ND_PRH_H */
