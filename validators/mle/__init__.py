"""The MLE family's strategies: the sample submission as a no-op, files, leaderboard and best baseline as the
reference, leaks of the private answers, and grader determinism."""
