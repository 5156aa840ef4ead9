#!/usr/bin/python3
"""Fits the polynomials of vector_math.cc and prints them as C++ float literals.

Each is a weighted minimax fit (Lawson's iteration over least squares) of the
relative error on a dense grid, against 30-digit references from mpmath. Run it
to refit after changing a degree or an interval:
    /usr/bin/python3 common/codegen/llvm/vector_math_fit.py
"""
import mpmath
import numpy as np

mpmath.mp.dps = 30


def minimax(xs, powers, target, weight, iterations=300):
    """Coefficients c of sum(c[k] * xs**powers[k]) minimising max |weight * error|."""
    a = np.stack([xs**p for p in powers], axis=1)
    w = np.full_like(xs, 1 / len(xs))
    for _ in range(iterations):
        s = np.sqrt(w) * weight
        c, *_ = np.linalg.lstsq(a * s[:, None], target * s, rcond=None)
        error = np.abs((a @ c - target) * weight)
        w = w * error
        w /= w.sum()
    return c, error.max()


def reference(fn, xs):
    return np.array([float(fn(mpmath.mpf(float(x)))) for x in xs])


def show(name, coefficients, error):
    literals = ", ".join(np.format_float_scientific(np.float32(c), unique=True) + "f" for c in coefficients)
    print(f"// {name}: max relative error {error:.2e} before rounding to float\n{{{literals}}}")


def main():
    # exp(r) = 1 + r + r^2 * P(r) on the reduced range |r| <= ln2/2.
    r = np.linspace(-np.log(2) / 2, np.log(2) / 2, 4001)
    e = reference(mpmath.exp, r)
    show("exp: P, r^0 first", *minimax(r, [2, 3, 4, 5, 6], e - 1 - r, 1 / e))

    # log(1 + f) = f - f^2/2 + f^3 * P(f) for 1 + f in [sqrt(1/2), sqrt(2)).
    f = np.linspace(np.sqrt(0.5) - 1, np.sqrt(2) - 1, 6001)
    f = f[np.abs(f) > 1e-6]
    t = reference(lambda v: mpmath.log(1 + v), f)
    show("log: P, f^0 first", *minimax(f, list(range(3, 11)), t - f + f * f / 2, 1 / np.abs(t)))

    # tanh(x) = x + x^3 * P(x^2) for |x| < 0.625.
    x = np.linspace(1e-4, 0.625, 4001)
    t = reference(mpmath.tanh, x)
    show("tanh below 0.625: P, x^0 first", *minimax(x, [3, 5, 7, 9, 11], t - x, 1 / t))

    # erf(x) = x * P(x^2) for |x| < 1.
    x = np.linspace(1e-4, 1, 4001)
    t = reference(mpmath.erf, x)
    show("erf below 1: P, x^0 first", *minimax(x, [1, 3, 5, 7, 9, 11, 13], t, 1 / t))

    # erfc(x) = exp(-x^2) / x * Q(v) for 1 <= x <= 4, v = (1/x - 0.625) / 0.375 in [-1, 1].
    x = np.linspace(1, 4, 8001)
    q = np.array([float(mpmath.erfc(mpmath.mpf(float(xi))) * mpmath.exp(mpmath.mpf(float(xi)) ** 2) * float(xi))
                  for xi in x])
    v = (1 / x - 0.625) / 0.375
    show("erfc from 1 to 4: Q, v^0 first", *minimax(v, list(range(10)), q, 1 / q))


if __name__ == "__main__":
    main()
