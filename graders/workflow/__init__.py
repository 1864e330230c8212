"""Workflow grading: the standard-library grader program of workflow deliverables (it travels with each
task and runs in the sandbox) and its in-process scorer."""
