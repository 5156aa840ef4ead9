// oneDNN (Debian's libdnnl, OpenMP runtime) as a benchmark peer, run at its
// best: the primitives choose their own (blocked) layouts for weights and,
// for convolution, activations; reorders happen outside the timed region.
#pragma once

namespace tuneforge::bench {

// Seconds per C[M,N] = A[M,K] * B[K,N], float32.
double TimeOneDnnMatmul(int m, int n, int k, int threads);

struct ConvShape {
  int n, c, h, w, k, r, s, stride, pad;
};
// Seconds per NCHW conv2d, float32, direct algorithm chosen by oneDNN.
double TimeOneDnnConv2d(const ConvShape& shape, int threads);
// The same by oneDNN's Winograd (on AVX-512 its F(2x2, 3x3)), the peer of
// tuneforge's Winograd forms; 0 where oneDNN has no Winograd for the shape
// or the machine (it does not on AVX2).
double TimeOneDnnWinogradConv2d(const ConvShape& shape, int threads);
// Seconds per depthwise NCHW conv2d (groups = channels), float32.
double TimeOneDnnDepthwiseConv2d(const ConvShape& shape, int threads);

}  // namespace tuneforge::bench
