"""Typed errors shared by every stage; each message names the input and what to do."""

from __future__ import annotations

from taskforge.errors import TaskforgeError

__all__ = ["InfrastructureError", "InputError", "TaskforgeError", "UnknownFormatError"]


class InputError(TaskforgeError):
    """An input (trace file, resource, shard) is unreadable or not what it claims to be."""

    def __init__(self, source: str, problem: str):
        self.source = source
        self.problem = problem
        super().__init__(f"{source}: {problem}")


class UnknownFormatError(InputError):
    """No reader recognises the content of a file."""


class InfrastructureError(TaskforgeError):
    """Something outside the task failed (engine gone, endpoint down): retry, never count as a task failure."""
