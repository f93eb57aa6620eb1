// CUDA graphs: the graph slots of the descriptor (src/core/backend.h; the
// contract users see is in include/ndgpu/runtime.h). A capture is CUDA
// stream capture in thread-local mode on a library stream, with the
// thread's allocations on the device served from a private pool
// (memory.cu) and the stream out of the pools' fences (stream.cu); the
// captured graph is instantiated once and launched with cudaGraphLaunch.
#include "cuda/cuda_backend.h"
#include "cuda/cuda_util.cuh"

namespace {
struct capture {
    cudaStream_t s;
    int dev;
    nd_pool *pool;
};
struct exec {
    cudaGraphExec_t ge;
    nd_pool *pool;
};

// The capture is over (ended or failed): the stream is fenced again and the
// thread allocates from the device's pool.
void finish(capture *c)
{
    nd__cuda_graph_pool_end_capture(c->dev);
    nd__cuda_stream_set_capturing(c->dev, c->s, false);
}
} // namespace

extern "C" nd_status nd__cuda_graph_begin(void *stream, int dev, void **state)
{
    static const char *fn = "nd_graph_begin";
    if (!stream) return nd__err(ND_ERR_INVALID, fn, "the default stream of cuda:%d cannot be captured", dev);
    if (nd__cuda_pool_kind(dev) == ND_POOL_KIND_ASYNC)
        return nd__err(ND_ERR_UNSUPPORTED, fn,
                       "cuda:%d is served by the stream-ordered pool (ND_POOL=async), whose allocations a capture "
                       "would turn into graph memory nodes; capture with the caching pool",
                       dev);
    capture *c = (capture *)nd__calloc(1, sizeof *c);
    if (!c) return nd__err(ND_ERR_NOMEM, fn, "out of host memory");
    c->s = nd_stream_of(stream);
    c->dev = dev;
    if (!(c->pool = nd__cuda_graph_pool_open(dev))) {
        nd__free(c);
        return nd__err(ND_ERR_NOMEM, fn, "out of host memory for the capture's pool");
    }
    nd__cuda_stream_set_capturing(dev, stream, true);
    nd_device_guard g(dev);
    cudaError_t e = cudaStreamBeginCapture(c->s, cudaStreamCaptureModeThreadLocal);
    if (e != cudaSuccess) {
        finish(c);
        nd__cuda_graph_pool_orphan(c->pool);
        nd__free(c);
        return nd_cuda_status(e, fn, "cudaStreamBeginCapture");
    }
    *state = c;
    return ND_OK;
}

extern "C" nd_status nd__cuda_graph_end(void *state, int dev, void **out, int64_t *nodes)
{
    static const char *fn = "nd_graph_end";
    capture *c = (capture *)state;
    nd_device_guard g(dev);
    cudaGraph_t graph = nullptr;
    cudaError_t e = cudaStreamEndCapture(c->s, &graph);
    finish(c);
    nd_status st = ND_OK;
    exec *x = nullptr;
    if (e != cudaSuccess || !graph) {
        // something queued on the stream could not be captured
        (void)cudaGetLastError();
        st = nd__err(ND_ERR_UNSUPPORTED, fn, "the capture failed: %s",
                     e != cudaSuccess ? cudaGetErrorString(e) : "no graph");
    } else {
        size_t n = 0;
        x = (exec *)nd__calloc(1, sizeof *x);
        if (!x) st = nd__err(ND_ERR_NOMEM, fn, "out of host memory");
        else if ((e = cudaGraphGetNodes(graph, nullptr, &n)) != cudaSuccess) st = nd_cuda_status(e, fn, "cudaGraphGetNodes");
        else if ((e = cudaGraphInstantiate(&x->ge, graph, 0)) != cudaSuccess) st = nd_cuda_status(e, fn, "cudaGraphInstantiate");
        *nodes = (int64_t)n;
    }
    if (graph && cudaGraphDestroy(graph) != cudaSuccess) (void)cudaGetLastError();
    if (st) {
        nd__free(x);
        nd__cuda_graph_pool_orphan(c->pool);
        nd__free(c);
        return st;
    }
    x->pool = c->pool;
    nd__free(c);
    *out = x;
    return ND_OK;
}

extern "C" nd_status nd__cuda_graph_launch(void *state, void *stream, int dev)
{
    exec *x = (exec *)state;
    nd_device_guard g(dev);
    ND_CUDA_TRY(cudaGraphLaunch(x->ge, nd_stream_of(stream)), "nd_graph_launch");
    return ND_OK;
}

extern "C" void nd__cuda_graph_destroy(void *state, int dev)
{
    exec *x = (exec *)state;
    nd_device_guard g(dev);
    // launches still queued use the private pool's memory
    if (cudaDeviceSynchronize() != cudaSuccess) (void)cudaGetLastError();
    if (cudaGraphExecDestroy(x->ge) != cudaSuccess) (void)cudaGetLastError();
    nd__cuda_graph_pool_orphan(x->pool);
    nd__free(x);
}
