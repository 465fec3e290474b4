"""Benchmark scripts (not tests): ``python -m benchmarks.bench_core``."""
