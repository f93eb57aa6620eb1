// Reduction kernels of the input dtypes float16 and bfloat16 (see src/cuda/reduce_kern.cuh;
// one file per dtype group so that make -j compiles them in parallel).
#include "cuda/reduce_kern.cuh"

template <int DT>
static nd_rk_launcher entry_of(int cls)
{
    switch (cls) {
        NDR_CLASSES_FLOAT(NDR_ENTRY_CASE, _)
    default: return nd_rk_entry<DT, NDR_SUM>(); // NDR_FSUM: floats sum in double already
    }
}

nd_rk_launcher nd__rk_launcher_h(nd_dtype dt, int cls)
{
    switch (dt) {
    case ND_FLOAT16: return entry_of<ND_FLOAT16>(cls);
    case ND_BFLOAT16: return entry_of<ND_BFLOAT16>(cls);
    default: return entry_of<ND_BFLOAT16>(cls); // not one of this file's dtypes: never asked
    }
}
