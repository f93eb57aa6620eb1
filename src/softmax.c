/* nd_softmax, nd_log_softmax, nd_logsumexp, nd_cross_entropy (issue 15,
 * area sm): validation, axes, dtypes and outs; the kernels are the
 * backends' softmax / cross_entropy slots (src/softmax.h). STUB. */
#include "softmax.h"
#include "prof.h"

nd_status nd_softmax(nd_array **out, const nd_array *x, int axis)
{
    ND_PROF_OP("softmax", out, x);
    (void)axis;
    return nd__err(ND_ERR_UNSUPPORTED, "nd_softmax", "not implemented yet");
}

nd_status nd_log_softmax(nd_array **out, const nd_array *x, int axis)
{
    ND_PROF_OP("log_softmax", out, x);
    (void)axis;
    return nd__err(ND_ERR_UNSUPPORTED, "nd_log_softmax", "not implemented yet");
}

nd_status nd_logsumexp(nd_array **out, const nd_array *x, int naxes, const int *axes, bool keepdims)
{
    ND_PROF_OP("logsumexp", out, x);
    (void)naxes, (void)axes, (void)keepdims;
    return nd__err(ND_ERR_UNSUPPORTED, "nd_logsumexp", "not implemented yet");
}

nd_status nd_cross_entropy(nd_array **out, const nd_array *logits, const nd_array *labels, int class_axis,
                           nd_reduction reduction, int64_t ignore_index)
{
    ND_PROF_OP("cross_entropy", out, logits, labels);
    (void)class_axis, (void)reduction, (void)ignore_index;
    return nd__err(ND_ERR_UNSUPPORTED, "nd_cross_entropy", "not implemented yet");
}
