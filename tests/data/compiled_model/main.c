/* A C program that runs a model compiled by `tuneforge compile --name model`
 * with no tuneforge at run time: reads input 0 (raw bytes) from argv[1],
 * runs the model twice (the static arena must not leak state between runs),
 * writes output 0 (raw bytes) to argv[2]. Exit 0 on success. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  size_t in_bytes = (size_t)model_INPUT0_ELEMENTS * sizeof(float);
  size_t out_bytes = (size_t)model_OUTPUT0_ELEMENTS * sizeof(float);
  float* in = malloc(in_bytes);
  float* out = malloc(out_bytes);
  float* again = malloc(out_bytes);
  FILE* f = fopen(argv[1], "rb");
  if (!f || fread(in, 1, in_bytes, f) != in_bytes) return 3;
  fclose(f);
  const void* inputs[] = {in};
  void* outputs[] = {out};
  if (model_run(inputs, outputs) != 0) return 4;
  void* outputs_again[] = {again};
  if (model_run(inputs, outputs_again) != 0) return 4;
  if (memcmp(out, again, out_bytes) != 0) return 5;
  f = fopen(argv[2], "wb");
  if (!f || fwrite(out, 1, out_bytes, f) != out_bytes) return 6;
  fclose(f);
  return 0;
}
