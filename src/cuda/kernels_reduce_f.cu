// Reduction kernels of the input dtypes float32 and float64 (see src/cuda/reduce_kern.cuh;
// one file per dtype group so that make -j compiles them in parallel).
#include "cuda/reduce_kern.cuh"

template <int DT>
static nd_rk_launcher entry_of(int cls)
{
    switch (cls) {
        NDR_CLASSES_FLOAT(NDR_ENTRY_CASE, _)
    default: return nd_rk_entry<DT, NDR_SUM>(); // NDR_FSUM: integer inputs only, never asked
    }
}

nd_rk_launcher nd__rk_launcher_f(nd_dtype dt, int cls)
{
    switch (dt) {
    case ND_FLOAT32: return entry_of<ND_FLOAT32>(cls);
    case ND_FLOAT64: return entry_of<ND_FLOAT64>(cls);
    default: return entry_of<ND_FLOAT64>(cls); // not one of this file's dtypes: never asked
    }
}
