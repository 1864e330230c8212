"""SWE grading: test-log parsing and SWE-bench verdicts, patches, the sandboxed test harness over a
repository snapshot, and the trainer's sandboxed reward."""
