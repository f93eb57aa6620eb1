/* CPU fused unscale-and-check (issue 15, area amp). STUB. */
#include "cpu/mx.h"

nd_status nd__cpu_amp_unscale(nd_array *const *xs, int n, double inv_scale, bool *found)
{
    (void)xs, (void)n, (void)inv_scale;
    *found = false;
    return nd__err(ND_ERR_UNSUPPORTED, "nd_amp_unscale_check", "not implemented yet");
}
