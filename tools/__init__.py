"""The repository's developer tools, outside the ``storyloom`` package (like ``bench/``):
importable with the checkout's root on ``sys.path``, never shipped in an installed Storyloom.

``tools.screenshots`` renders every window to PNG (``scripts/screenshots``); ``tools.peers``
runs the test servers and peers the tests and the benchmarks share.
"""
