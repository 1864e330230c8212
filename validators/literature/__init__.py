"""The literature family's strategies: leaks in the prompt, reachability of the gold papers through the
task's own tools, and distractors that are really wrong."""
