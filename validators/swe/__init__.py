"""The SWE family's strategies: the empty and solution patches graded in the sandbox, and the snapshot
and prompt leakage audit."""
