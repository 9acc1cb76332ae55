"""Benchmark runners: one class per engine, all doing the same work (see base.Engine)."""
