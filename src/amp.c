/* Loss scaling (issue 15, area amp): nd_amp_unscale_check (the backends'
 * amp_unscale slot, grouped by device) and the GradScaler state machine
 * (nd_grad_scaler_*). STUB. */
#include "softmax.h"
#include <stdlib.h>

#include "prof.h"

nd_status nd_amp_unscale_check(nd_array *const *arrays, int n, double inv_scale, bool *found_inf)
{
    ND_PROF_OP_N("amp_unscale_check", NULL, n, (const nd_array *const *)arrays);
    (void)inv_scale;
    if (found_inf) *found_inf = false;
    return nd__err(ND_ERR_UNSUPPORTED, "nd_amp_unscale_check", "not implemented yet");
}

struct nd_grad_scaler {
    nd_grad_scaler_config c;
};

void nd_grad_scaler_config_init(nd_grad_scaler_config *c)
{
    if (!c) return;
    c->init_scale = 65536.0, c->growth_factor = 2.0, c->backoff_factor = 0.5, c->growth_interval = 2000;
    c->enabled = true;
}

nd_status nd_grad_scaler_create(nd_grad_scaler **out, const nd_grad_scaler_config *c)
{
    (void)out, (void)c;
    return nd__err(ND_ERR_UNSUPPORTED, "nd_grad_scaler_create", "not implemented yet");
}

void nd_grad_scaler_destroy(nd_grad_scaler *s) { free(s); }

nd_status nd_grad_scaler_scale(nd_array **out, const nd_grad_scaler *s, const nd_array *loss)
{
    (void)out, (void)s, (void)loss;
    return nd__err(ND_ERR_UNSUPPORTED, "nd_grad_scaler_scale", "not implemented yet");
}

nd_status nd_grad_scaler_unscale(nd_grad_scaler *s, nd_array *const *grads, int n, bool *found_inf)
{
    (void)s, (void)grads, (void)n, (void)found_inf;
    return nd__err(ND_ERR_UNSUPPORTED, "nd_grad_scaler_unscale", "not implemented yet");
}

bool nd_grad_scaler_should_step(const nd_grad_scaler *s) { return s != NULL; }

nd_status nd_grad_scaler_update(nd_grad_scaler *s, bool found_inf)
{
    (void)s, (void)found_inf;
    return nd__err(ND_ERR_UNSUPPORTED, "nd_grad_scaler_update", "not implemented yet");
}

double nd_grad_scaler_get_scale(const nd_grad_scaler *s) { return s ? s->c.init_scale : 1.0; }

nd_status nd_grad_scaler_set_scale(nd_grad_scaler *s, double scale)
{
    (void)s, (void)scale;
    return nd__err(ND_ERR_UNSUPPORTED, "nd_grad_scaler_set_scale", "not implemented yet");
}

void nd_grad_scaler_get_state(const nd_grad_scaler *s, int64_t *growth_tracker, int64_t *skipped_steps)
{
    (void)s;
    if (growth_tracker) *growth_tracker = 0;
    if (skipped_steps) *skipped_steps = 0;
}
