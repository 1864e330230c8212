"""Shard writer, manifests, the DuckDB catalog and landing."""
