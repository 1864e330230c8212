"""The workflow family's strategies: the package audit, sandboxed no-op and reference gradings, leaks of
the reference, grader perturbation and the descendant judge."""
