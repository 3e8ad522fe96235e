//! Shared helpers for the sieve benchmarks.
