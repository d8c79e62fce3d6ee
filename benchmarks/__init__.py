"""The host measured at scale. Each module runs from the repository root as
``.venv/bin/python -m benchmarks.NAME`` and says in its docstring what it
prints. They use turnproc's public names, the synthetic game
(:mod:`benchmarks.synthetic`) and their own servers (:mod:`benchmarks.servers`),
never the tests; the night's stored baseline is :mod:`benchmarks.baseline`."""
