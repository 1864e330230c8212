"""MLE grading: competition metrics, medal thresholds from a leaderboard, and the grading report of a
submission CSV against the private answers."""
