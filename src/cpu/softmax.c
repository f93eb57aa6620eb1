/* CPU softmax family and cross-entropy (issue 15, area sm). STUB. */
#include "cpu/mx.h"

nd_status nd__cpu_softmax(int mode, nd_array *out, const nd_array *x, int64_t outer, int64_t n, int64_t inner)
{
    (void)mode, (void)out, (void)x, (void)outer, (void)n, (void)inner;
    return nd__err(ND_ERR_UNSUPPORTED, "nd_softmax", "not implemented yet");
}

nd_status nd__cpu_cross_entropy(nd_array *loss, const nd_array *logits, const nd_array *labels, int64_t outer,
                                int64_t C, int64_t inner, int64_t ignore_index, bool *bad, int64_t *bad_label)
{
    (void)loss, (void)logits, (void)labels, (void)outer, (void)C, (void)inner, (void)ignore_index, (void)bad_label;
    *bad = false;
    return nd__err(ND_ERR_UNSUPPORTED, "nd_cross_entropy", "not implemented yet");
}
