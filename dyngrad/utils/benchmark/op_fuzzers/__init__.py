"""Ready-made Fuzzers for common op shapes (unary, binary, spectral)."""
