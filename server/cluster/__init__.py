"""Cluster mode (docs/cluster.md): many ``guobiao serve`` nodes sharing Redis and PostgreSQL. The
single-process default never imports this package."""
