//! Helpers for the end-to-end test binary in `tests/integration.rs`.
