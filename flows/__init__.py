"""Prefect flows and the `taskforge` CLI: thin wiring of the stages, no domain logic."""
