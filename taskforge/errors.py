"""The base error of taskforge, in a module with no dependencies (the small reward install imports it too)."""


class TaskforgeError(Exception):
    """Base of every error taskforge raises on purpose; the CLI prints it as one line."""
