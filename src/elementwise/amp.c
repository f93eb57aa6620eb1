/* Loss scaling: nd_amp_unscale_check and the
 * GradScaler state machine (nd_grad_scaler_*).
 *
 * nd_amp_unscale_check validates every array first (so that nothing is
 * written when one of them is bad), then hands each device's arrays to
 * its backend's amp_unscale slot in one call (one synchronisation per GPU
 * for the flag), in the order the devices first appear.
 *
 * The scaler follows torch.amp.GradScaler and ATen's _amp_update_scale_:
 * the scale is a float32 value (PyTorch keeps it in a float32 tensor), the
 * inverse scale handed to the unscale pass is float32(1 / double(scale))
 * (GradScaler.unscale_: scale.double().reciprocal().float()), and update
 * does, with found = the caller's flag or what unscale found:
 *   found:     scale = float32(scale * backoff), tracker = 0
 *   otherwise: tracker + 1 == growth_interval ?
 *                (new = float32(scale * growth); scale = new if finite;
 *                 tracker = 0)
 *              : tracker += 1 */
#include <math.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "core/out.h"
#include "core/prof.h"
#include "shared/softmax_slots.h"

#define UNSCALE_FN "nd_amp_unscale_check"

/* Validate the n arrays (all before any is written). */
static nd_status check_arrays(const char *fn, nd_array *const *arrays, int n)
{
    if (n < 0) return nd__err(ND_ERR_INVALID, fn, "n must be >= 0 (got %d)", n);
    if (n > 0) ND_CHECK_PTR(fn, arrays, "arrays");
    for (int i = 0; i < n; i++) {
        const nd_array *a = arrays[i];
        if (!a) return nd__err(ND_ERR_INVALID, fn, "arrays[%d] is NULL", i);
        if (!nd__is_float(a->dtype))
            return nd__err(ND_ERR_DTYPE, fn,
                           "arrays[%d] has dtype %s: loss scaling needs floating-point gradients "
                           "(float16, bfloat16, float32 or float64)",
                           i, nd_dtype_name(a->dtype));
        char name[32];
        snprintf(name, sizeof name, "arrays[%d]", i);
        nd_status st = nd__out_check_writable(fn, a, name);
        if (st) return st;
        if (!nd__backend(a->device) || !nd__backend(a->device)->amp_unscale) {
            char d[32];
            return nd__err(ND_ERR_UNSUPPORTED, fn, "arrays[%d]: no loss-scaling kernel for %s", i,
                           nd__device_name(a->device, d, sizeof d));
        }
    }
    return ND_OK;
}

/* The unscale pass after validation: group by device, one backend call
 * per device (zero-size arrays are left out: nothing to read or write). */
static nd_status unscale_grouped(const char *fn, nd_array *const *arrays, int n, double inv_scale, bool *found_inf)
{
    *found_inf = false;
    if (n == 0) return ND_OK;
    nd_array **group = nd__malloc(sizeof *group * (size_t)n);
    bool *done = nd__calloc((size_t)n, sizeof *done);
    if (!group || !done) {
        nd__free(group);
        nd__free(done);
        return nd__err(ND_ERR_NOMEM, fn, "out of host memory for %d arrays", n);
    }
    nd_status st = ND_OK;
    bool any = false;
    for (int i = 0; i < n && st == ND_OK; i++) {
        if (done[i]) continue;
        const nd_device dev = arrays[i]->device;
        int m = 0;
        for (int j = i; j < n; j++) {
            if (done[j] || !nd__same_device(arrays[j]->device, dev)) continue;
            done[j] = true;
            if (arrays[j]->size > 0) group[m++] = arrays[j];
        }
        if (m == 0) continue;
        bool found = false;
        st = nd__backend(dev)->amp_unscale(group, m, inv_scale, &found);
        any = any || found;
    }
    nd__free(group);
    nd__free(done);
    if (st) return st;
    *found_inf = any;
    return ND_OK;
}

nd_status nd_amp_unscale_check(nd_array *const *arrays, int n, double inv_scale, bool *found_inf)
{
    ND_PROF_OP_N("amp_unscale_check", NULL, n > 0 && arrays ? n : 0, (const nd_array *const *)arrays);
    ND_CHECK_PTR(UNSCALE_FN, found_inf, "found_inf");
    *found_inf = false;
    nd_status st = check_arrays(UNSCALE_FN, arrays, n);
    if (st) return st;
    return unscale_grouped(UNSCALE_FN, arrays, n, inv_scale, found_inf);
}

/* ------------------------------------------------------------------ */
/* The grad scaler                                                     */
/* ------------------------------------------------------------------ */
struct nd_grad_scaler {
    nd_grad_scaler_config c;
    float scale;            /* float32, as PyTorch's _scale tensor */
    int64_t growth_tracker; /* finite steps in a row since the last change */
    int64_t skipped;        /* steps whose gradients overflowed */
    bool unscaled;          /* unscale() called since the last update() */
    bool found;             /* what that unscale() found */
};

void nd_grad_scaler_config_init(nd_grad_scaler_config *c)
{
    if (!c) return;
    c->init_scale = 65536.0, c->growth_factor = 2.0, c->backoff_factor = 0.5, c->growth_interval = 2000;
    c->enabled = true;
}

/* A scale usable as float32: > 0 and finite once rounded to float32. */
static bool scale_ok(double v)
{
    float f = (float)v;
    return v > 0 && isfinite(f) && f > 0;
}

nd_status nd_grad_scaler_create(nd_grad_scaler **out, const nd_grad_scaler_config *c)
{
    ND_PROF_OP_N("grad_scaler_create", NULL, 0, NULL);
    const char *fn = "nd_grad_scaler_create";
    ND_CHECK_PTR(fn, out, "out");
    *out = NULL;
    nd_grad_scaler_config d;
    nd_grad_scaler_config_init(&d);
    if (c) d = *c;
    if (!scale_ok(d.init_scale))
        return nd__err(ND_ERR_INVALID, fn, "init_scale should be a positive finite float32 value (got %g)",
                       d.init_scale);
    if (!(d.growth_factor > 1))
        return nd__err(ND_ERR_INVALID, fn, "growth_factor should be > 1 (got %g)", d.growth_factor);
    if (!(d.backoff_factor > 0 && d.backoff_factor < 1))
        return nd__err(ND_ERR_INVALID, fn, "backoff_factor should be in (0, 1) (got %g)", d.backoff_factor);
    if (d.growth_interval < 1)
        return nd__err(ND_ERR_INVALID, fn, "growth_interval should be >= 1 (got %lld)", (long long)d.growth_interval);
    nd_grad_scaler *s = nd__calloc(1, sizeof *s);
    if (!s) return nd__err(ND_ERR_NOMEM, fn, "out of host memory");
    s->c = d;
    s->scale = d.enabled ? (float)d.init_scale : 1.0f;
    *out = s;
    return ND_OK;
}

void nd_grad_scaler_destroy(nd_grad_scaler *s) { nd__free(s); }

nd_status nd_grad_scaler_scale(nd_array **out, const nd_grad_scaler *s, const nd_array *loss)
{
    ND_PROF_OP("grad_scaler_scale", out, loss);
    const char *fn = "nd_grad_scaler_scale";
    ND_CHECK_PTR(fn, out, "out");
    ND_CHECK_PTR(fn, s, "s");
    ND_CHECK_PTR(fn, loss, "loss");
    nd_status st = nd_binary_scalar(out, ND_BINARY_MULTIPLY, loss, nd_scalar_float(nd_grad_scaler_get_scale(s)));
    return st ? nd__err_prefix(st, fn) : ND_OK;
}

nd_status nd_grad_scaler_unscale(nd_grad_scaler *s, nd_array *const *grads, int n, bool *found_inf)
{
    ND_PROF_OP_N("grad_scaler_unscale", NULL, n > 0 && grads ? n : 0, (const nd_array *const *)grads);
    const char *fn = "nd_grad_scaler_unscale";
    ND_CHECK_PTR(fn, s, "s");
    if (s->unscaled)
        return nd__err(ND_ERR_INVALID, fn, "unscale() has already been called on this scaler since the last update()");
    nd_status st = check_arrays(fn, grads, n);
    if (st) return st;
    /* PyTorch: inv_scale = self._scale.double().reciprocal().float() */
    const double inv = s->c.enabled ? (double)(float)(1.0 / (double)s->scale) : 1.0;
    bool found = false;
    st = unscale_grouped(fn, grads, n, inv, &found);
    if (st) return st;
    s->unscaled = true;
    s->found = found;
    if (found_inf) *found_inf = found;
    return ND_OK;
}

bool nd_grad_scaler_should_step(const nd_grad_scaler *s) { return s != NULL && !s->found; }

nd_status nd_grad_scaler_update(nd_grad_scaler *s, bool found_inf)
{
    ND_PROF_OP_N("grad_scaler_update", NULL, 0, NULL);
    ND_CHECK_PTR("nd_grad_scaler_update", s, "s");
    const bool found = found_inf || s->found;
    if (found) s->skipped++;
    if (s->c.enabled) {
        if (found) {
            s->scale = (float)((double)s->scale * s->c.backoff_factor);
            s->growth_tracker = 0;
        } else if (s->growth_tracker + 1 == s->c.growth_interval) {
            float grown = (float)((double)s->scale * s->c.growth_factor);
            if (isfinite(grown)) s->scale = grown; /* never past float32's range */
            s->growth_tracker = 0;
        } else {
            s->growth_tracker++;
        }
    }
    s->unscaled = false;
    s->found = false;
    return ND_OK;
}

double nd_grad_scaler_get_scale(const nd_grad_scaler *s) { return s && s->c.enabled ? (double)s->scale : 1.0; }

nd_status nd_grad_scaler_set_scale(nd_grad_scaler *s, double scale)
{
    ND_PROF_OP_N("grad_scaler_set_scale", NULL, 0, NULL);
    const char *fn = "nd_grad_scaler_set_scale";
    ND_CHECK_PTR(fn, s, "s");
    if (!scale_ok(scale))
        return nd__err(ND_ERR_INVALID, fn, "new_scale should be a positive finite float32 value (got %g)", scale);
    if (s->c.enabled) s->scale = (float)scale; /* a disabled scaler keeps scale 1 (GradScaler.update returns) */
    return ND_OK;
}

void nd_grad_scaler_get_state(const nd_grad_scaler *s, int64_t *growth_tracker, int64_t *skipped_steps)
{
    if (growth_tracker) *growth_tracker = s ? s->growth_tracker : 0;
    if (skipped_steps) *skipped_steps = s ? s->skipped : 0;
}
