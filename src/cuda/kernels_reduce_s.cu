// Reduction kernels of the input dtypes int8, int16, int32, int64 (see src/cuda/reduce_kern.cuh;
// one file per dtype group so that make -j compiles them in parallel).
#include "cuda/reduce_kern.cuh"

template <int DT>
static nd_rk_launcher entry_of(int cls)
{
    switch (cls) {
        NDR_CLASSES_SIGNED(NDR_ENTRY_CASE, _)
    default: return nd_rk_entry<DT, NDR_SUM>(); // not asked for (any/all run on the unsigned kernels)
    }
}

nd_rk_launcher nd__rk_launcher_s(nd_dtype dt, int cls)
{
    switch (dt) {
    case ND_INT8: return entry_of<ND_INT8>(cls);
    case ND_INT16: return entry_of<ND_INT16>(cls);
    case ND_INT32: return entry_of<ND_INT32>(cls);
    case ND_INT64: return entry_of<ND_INT64>(cls);
    default: return entry_of<ND_INT64>(cls); // not one of this file's dtypes: never asked
    }
}
