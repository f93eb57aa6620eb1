// Streams and events on CUDA devices.
#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"

extern "C" nd_status nd__cuda_stream_create(void **handle, int dev)
{
    nd_device_guard g(dev);
    cudaStream_t s;
    ND_CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "nd_stream_create");
    *handle = (void *)s;
    return ND_OK;
}

extern "C" nd_status nd__cuda_stream_destroy(void *handle, int dev)
{
    nd_device_guard g(dev);
    ND_CUDA_TRY(cudaStreamSynchronize(nd_stream_of(handle)), "nd_stream_destroy");
    ND_CUDA_TRY(cudaStreamDestroy(nd_stream_of(handle)), "nd_stream_destroy");
    return ND_OK;
}

extern "C" nd_status nd__cuda_stream_synchronize(void *handle, int dev)
{
    nd_device_guard g(dev);
    ND_CUDA_TRY(cudaStreamSynchronize(nd_stream_of(handle)), "nd_stream_synchronize");
    return ND_OK;
}

extern "C" nd_status nd__cuda_event_create(void **handle, int dev)
{
    nd_device_guard g(dev);
    cudaEvent_t e;
    ND_CUDA_TRY(cudaEventCreate(&e), "nd_event_create");
    *handle = (void *)e;
    return ND_OK;
}

extern "C" nd_status nd__cuda_event_record(void *event, void *stream, int dev)
{
    nd_device_guard g(dev);
    ND_CUDA_TRY(cudaEventRecord((cudaEvent_t)event, nd_stream_of(stream)), "nd_event_record");
    return ND_OK;
}

extern "C" nd_status nd__cuda_event_synchronize(void *event, int dev)
{
    nd_device_guard g(dev);
    ND_CUDA_TRY(cudaEventSynchronize((cudaEvent_t)event), "nd_event_synchronize");
    return ND_OK;
}

extern "C" nd_status nd__cuda_event_elapsed(float *ms, void *start, void *end, int dev)
{
    nd_device_guard g(dev);
    ND_CUDA_TRY(cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)end), "nd_event_elapsed_ms");
    return ND_OK;
}

extern "C" void nd__cuda_event_destroy(void *event, int dev)
{
    nd_device_guard g(dev);
    cudaEventDestroy((cudaEvent_t)event);
}
