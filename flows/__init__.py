"""Prefect flows and the `taskforge` CLI: thin wiring of the stages, no domain logic."""

from taskforge.flows.memory import keep_peak_memory_flat

keep_peak_memory_flat()
