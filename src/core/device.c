/* Devices and the library's identity: how many devices of a type there
 * are, the default device (ND_DEVICE), a device's description, the
 * version and build line, and the library-wide precision setting the
 * backends read (TF32 matmuls). Reads the registry only. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

/* ------------------------------------------------------------------ */
/* Devices                                                             */
/* ------------------------------------------------------------------ */
int nd_cuda_device_count(void)
{
    const nd_backend *be = nd__backend(nd_cuda(0));
    return be ? be->device_count() : 0;
}

/* The number of usable devices of type t (0 when not compiled in). */
static int type_count(int t)
{
    const nd_backend *be = nd__registry[t].be;
    return be ? be->device_count() : 0;
}

char *nd_device_str(nd_device dev, char *buf, size_t cap)
{
    if (!buf || cap == 0) return buf;
    return nd__device_name(dev, buf, cap);
}

/* "cuda:1" -> cuda:1 ("cuda": id 0); false for an unknown name or a bad id. */
static bool parse_name(const char *s, nd_device *dev)
{
    const char *colon = strchr(s, ':');
    int t = nd__device_type_named(s, colon ? (size_t)(colon - s) : strlen(s));
    if (t < 0) return false;
    long id = 0;
    if (colon) {
        char *end = NULL;
        id = strtol(colon + 1, &end, 10);
        if (end == colon + 1 || *end != '\0' || id < 0 || id > 1 << 20) return false;
    }
    *dev = (nd_device){.type = (nd_device_type)t, .id = (int)id};
    return true;
}

nd_status nd_device_parse(nd_device *dev, const char *s)
{
    static const char *fn = "nd_device_parse";
    ND_CHECK_PTR(fn, dev, "dev");
    ND_CHECK_PTR(fn, s, "s");
    if (!parse_name(s, dev))
        return nd__err(ND_ERR_INVALID, fn, "unknown device '%s' (expected a name such as cpu, cuda or cuda:1)", s);
    return ND_OK;
}

/* ND_DEVICE names a device as users write it (parse_name); one that
 * is unknown or not usable falls back to the CPU. Without it: device 0 of
 * the first type in the registry that is not the host and has a usable
 * device, else the CPU. */
nd_device nd_default_device(void)
{
    const char *env = getenv("ND_DEVICE");
    if (env && *env) {
        nd_device d;
        return parse_name(env, &d) && d.id < type_count(d.type) ? d : nd_cpu();
    }
    for (int t = 0; t < ND_NUM_DEVICE_TYPES; t++)
        if (!nd__registry[t].host && type_count(t) > 0) return (nd_device){.type = (nd_device_type)t, .id = 0};
    return nd_cpu();
}

int nd_devices(nd_device *devs, int cap)
{
    int n = 0;
    for (int t = 0; t < ND_NUM_DEVICE_TYPES; t++)
        for (int i = 0, c = type_count(t); i < c; i++, n++)
            if (devs && n < cap) devs[n] = (nd_device){.type = (nd_device_type)t, .id = i};
    return n;
}

nd_status nd_device_get_info(nd_device_info *info, nd_device dev)
{
    ND_CHECK_PTR("nd_device_get_info", info, "info");
    if ((unsigned)dev.type >= (unsigned)ND_NUM_DEVICE_TYPES)
        return nd__err(ND_ERR_INVALID, "nd_device_get_info", "invalid device type %d", (int)dev.type);
    const nd_backend *be = nd__backend(dev);
    if (!be)
        return nd__err(ND_ERR_UNSUPPORTED, "nd_device_get_info", "libndgpu was built without %s (%s=0)",
                       nd__registry[dev.type].label, nd__registry[dev.type].label);
    return be->device_info(info, dev.id); /* the backend validates the id */
}

/* ------------------------------------------------------------------ */
/* Library information                                                 */
/* ------------------------------------------------------------------ */
#define ND_STR2(x) #x
#define ND_STR(x) ND_STR2(x)
const char *nd_version(void) { return ND_STR(ND_VERSION_MAJOR) "." ND_STR(ND_VERSION_MINOR) "." ND_STR(ND_VERSION_PATCH); }

/* "libndgpu 0.4.0; backends: cpu, cuda; BLAS: OpenBLAS (core Haswell);
 * threads: 8; CUDA runtime 13.0, ...": the compiled-in backends, then each
 * known backend's build line ("CUDA not compiled in" for one that is not). */
const char *nd_build_info(void)
{
    static _Thread_local char buf[512];
    size_t n = (size_t)snprintf(buf, sizeof buf, "libndgpu %s; backends: ", nd_version());
    const char *sep = "";
    for (int t = 0; t < ND_NUM_DEVICE_TYPES && n < sizeof buf; t++)
        if (nd__registry[t].be) {
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", sep, nd__registry[t].be->name);
            sep = ", ";
        }
    for (int t = 0; t < ND_NUM_DEVICE_TYPES && n < sizeof buf; t++) {
        char line[256];
        if (nd__registry[t].be) nd__registry[t].be->build_info(line, sizeof line);
        else snprintf(line, sizeof line, "%s not compiled in", nd__registry[t].label);
        n += (size_t)snprintf(buf + n, sizeof buf - n, "; %s", line);
    }
    return buf;
}

/* ------------------------------------------------------------------ */
/* Settings                                                            */
/* ------------------------------------------------------------------ */
/* The TF32 switch: -1 = not read from the environment yet. */
static atomic_int g_tf32 = -1;

void nd_set_matmul_tf32(bool allow) { atomic_store(&g_tf32, allow ? 1 : 0); }

bool nd_get_matmul_tf32(void)
{
    int v = atomic_load(&g_tf32);
    if (v < 0) {
        const char *e = getenv("ND_MATMUL_TF32");
        int init = e && (strcmp(e, "1") == 0 || strcmp(e, "true") == 0) ? 1 : 0;
        int expect = -1;
        atomic_compare_exchange_strong(&g_tf32, &expect, init);
        v = atomic_load(&g_tf32);
    }
    return v == 1;
}

bool nd__matmul_tf32(void) { return nd_get_matmul_tf32(); }
