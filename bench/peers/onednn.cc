#include "bench/peers/onednn.h"

#include <omp.h>

#include <oneapi/dnnl/dnnl.hpp>

#include "bench/timing.h"

namespace tuneforge::bench {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

// Fills a oneDNN memory with a constant (values do not matter for timing).
void Fill(memory& m, float v) {
  auto* p = static_cast<float*>(m.get_data_handle());
  size_t n = m.get_desc().get_size() / sizeof(float);
  for (size_t i = 0; i < n; ++i) p[i] = v;
}

double TimeConv(const ConvShape& s, int groups, int threads,
                dnnl::algorithm algorithm = dnnl::algorithm::convolution_direct) {
  omp_set_num_threads(threads);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  int oh = (s.h + 2 * s.pad - s.r) / s.stride + 1, ow = (s.w + 2 * s.pad - s.s) / s.stride + 1;
  memory::dims src_dims = {s.n, s.c, s.h, s.w}, dst_dims = {s.n, s.k, oh, ow};
  memory::dims wei_dims = groups == 1 ? memory::dims{s.k, s.c, s.r, s.s}
                                      : memory::dims{groups, s.k / groups, s.c / groups, s.r, s.s};
  auto src_md = memory::desc(src_dims, dt::f32, tag::any);
  auto wei_md = memory::desc(wei_dims, dt::f32, tag::any);
  auto dst_md = memory::desc(dst_dims, dt::f32, tag::any);
  auto pd = dnnl::convolution_forward::primitive_desc(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                      algorithm, src_md, wei_md, dst_md,
                                      {s.stride, s.stride}, {s.pad, s.pad}, {s.pad, s.pad}),
      eng);
  memory src(pd.src_desc(), eng), wei(pd.weights_desc(), eng), dst(pd.dst_desc(), eng);
  Fill(src, 0.5f);
  Fill(wei, 0.25f);
  dnnl::convolution_forward conv(pd);
  return TimeSeconds([&] {
    conv.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
    strm.wait();
  });
}

}  // namespace

double TimeOneDnnMatmul(int m, int n, int k, int threads) {
  omp_set_num_threads(threads);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);
  auto a_md = memory::desc({m, k}, dt::f32, tag::ab);
  auto b_md = memory::desc({k, n}, dt::f32, tag::any);
  auto c_md = memory::desc({m, n}, dt::f32, tag::ab);
  auto pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, c_md), eng);
  memory a(pd.src_desc(), eng), b(pd.weights_desc(), eng), c(pd.dst_desc(), eng);
  Fill(a, 0.5f);
  Fill(b, 0.25f);
  dnnl::matmul mm(pd);
  return TimeSeconds([&] {
    mm.execute(strm, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
    strm.wait();
  });
}

double TimeOneDnnConv2d(const ConvShape& shape, int threads) { return TimeConv(shape, 1, threads); }

double TimeOneDnnWinogradConv2d(const ConvShape& shape, int threads) {
  try {
    return TimeConv(shape, 1, threads, dnnl::algorithm::convolution_winograd);
  } catch (const dnnl::error&) {  // no implementation for this shape or machine
    return 0;
  }
}

double TimeOneDnnDepthwiseConv2d(const ConvShape& shape, int threads) {
  return TimeConv(shape, shape.c, threads);
}

}  // namespace tuneforge::bench
