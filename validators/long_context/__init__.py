"""The long-context family's strategies: leaks in the prompt, evidence spans, answerability, the
shortcut solvers (hardness) and scorer determinism."""
