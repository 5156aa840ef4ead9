#!/usr/bin/python3
"""Exports the benchmark models to ONNX (batch 1, fp32, random weights, static
shapes) with Debian's python3-torch / python3-torchvision (run by Debian's
/usr/bin/python3, which sees those packages), and writes ONNX test
data beside each (test_data_set_0/input_0.pb, output_0.pb: PyTorch's own
output) with python3-onnx, so `tuneforge run` checks its outputs against
PyTorch's. Nothing here is committed as a binary: run it to make the files.

    bench/models/export_models.py --out /tmp/tf-models [--models resnet18,bert_layer]
"""
import argparse
import math
import os

import numpy as np
import onnx
from onnx import numpy_helper
import torch
import torch.nn as nn
import torchvision


class DcganGenerator(nn.Module):
    """The DCGAN generator (Radford et al.): z[100] -> 3x64x64 by transposed convs."""

    def __init__(self, nz=100, ngf=64):
        super().__init__()
        layers = []
        channels = [nz, ngf * 8, ngf * 4, ngf * 2, ngf]
        for i in range(4):
            stride, pad = (1, 0) if i == 0 else (2, 1)
            layers += [nn.ConvTranspose2d(channels[i], channels[i + 1], 4, stride, pad, bias=False),
                       nn.BatchNorm2d(channels[i + 1]), nn.ReLU(True)]
        layers += [nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False), nn.Tanh()]
        self.net = nn.Sequential(*layers)

    def forward(self, z):
        return self.net(z)


class BertLayer(nn.Module):
    """One BERT-base encoder layer written out (what an exporter sees of BERT):
    self-attention with 12 heads, residual + LayerNorm, GELU feed-forward."""

    def __init__(self, d=768, heads=12, ff=3072):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff1, self.ff2 = nn.Linear(d, ff), nn.Linear(ff, d)

    def split(self, x):
        b, s, _ = x.shape
        return x.reshape(b, s, self.heads, self.dh).transpose(1, 2)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.dh)
        ctx = torch.matmul(torch.softmax(scores, dim=-1), v).transpose(1, 2).reshape(b, s, d)
        h = self.ln1(x + self.o(ctx))
        return self.ln2(h + self.ff2(nn.functional.gelu(self.ff1(h))))


def models():
    return {
        "resnet18": (lambda: torchvision.models.resnet18(), (1, 3, 224, 224)),
        "resnet50": (lambda: torchvision.models.resnet50(), (1, 3, 224, 224)),
        "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(), (1, 3, 224, 224)),
        "dcgan": (lambda: DcganGenerator(), (1, 100, 1, 1)),
        "bert_layer": (lambda: BertLayer(), (1, 128, 768)),
    }


def export(name, out_dir, opset):
    make, shape = models()[name]
    torch.manual_seed(0)
    model = make().eval()
    x = torch.rand(*shape) * 2 - 1
    folder = os.path.join(out_dir, name)
    os.makedirs(os.path.join(folder, "test_data_set_0"), exist_ok=True)
    path = os.path.join(folder, "model.onnx")
    with torch.no_grad():
        torch.onnx.export(model, x, path, opset_version=opset, do_constant_folding=True,
                          input_names=["input"], output_names=["output"])
        y = model(x)
    onnx.checker.check_model(onnx.load(path))
    for kind, value in (("input_0", x), ("output_0", y)):
        tensor = numpy_helper.from_array(value.numpy().astype(np.float32), kind)
        with open(os.path.join(folder, "test_data_set_0", kind + ".pb"), "wb") as f:
            f.write(tensor.SerializeToString())
    print(f"{name}: {path}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default=",".join(models()))
    parser.add_argument("--opset", type=int, default=13)
    args = parser.parse_args()
    for name in args.models.split(","):
        export(name, args.out, args.opset)


if __name__ == "__main__":
    main()
