"""Builders: one module (or package) per task family, turning resources into candidate tasks."""
