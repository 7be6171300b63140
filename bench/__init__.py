"""Storyloom's benchmarks (see docs/benchmarks.md); ``scripts/bench`` runs them.

A package so that tests and the benchmarks share its helpers (``bench.generate``,
``bench.report``) by the same import path; the test servers and peers they share are
``tools.peers``.
"""
