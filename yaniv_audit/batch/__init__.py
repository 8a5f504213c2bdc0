"""Many logs: bulk work on a pool of workers (bulk), on Dask (distributed), simulated
games (simulate) and the throughput benchmark (bench, chess_bench). Imports the
core, reading and writing, and the archive only (docs/design.md)."""
