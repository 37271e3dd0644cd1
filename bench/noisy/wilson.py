"""The 95 % Wilson score interval of a rate, shared by noisy.py and simulate.py."""
import math


def wilson(x, n, z=1.959963984540054):
    """The interval of x successes in n trials (z: the normal quantile)."""
    if n == 0:
        return (0.0, 1.0)
    p = x / n
    d = 1 + z * z / n
    c = p + z * z / (2 * n)
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, (c - h) / d), min(1.0, (c + h) / d))
