/*
 * Helpers of the profiler hooks (the ND_PROF_* scopes of src/prof.h in
 * the public operations): the name and the timed device of a transfer.
 */
#ifndef ND_PRH_H
#define ND_PRH_H
#include "prof.h"

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

#endif /* ND_PRH_H */
