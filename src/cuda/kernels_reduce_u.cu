// Reduction kernels of the input dtypes uint8, uint16, uint32, uint64 and of bool, and any/all of the signed
// integers (nd_r_kernel_dtype; see src/cuda/reduce_kern.cuh;
// one file per dtype group so that make -j compiles them in parallel).
#include "cuda/reduce_kern.cuh"

template <int DT>
static nd_rk_launcher entry_of(int cls)
{
    switch (cls) {
        NDR_CLASSES_INT(NDR_ENTRY_CASE, _)
    default: return nd_rk_entry<DT, NDR_SUM>(); // not asked for
    }
}

nd_rk_launcher nd__rk_launcher_u(nd_dtype dt, int cls)
{
    switch (dt) {
    case ND_UINT8: return entry_of<ND_UINT8>(cls);
    case ND_UINT16: return entry_of<ND_UINT16>(cls);
    case ND_UINT32: return entry_of<ND_UINT32>(cls);
    case ND_UINT64: return entry_of<ND_UINT64>(cls);
    default: return entry_of<ND_UINT64>(cls); // not one of this file's dtypes: never asked
    }
}
