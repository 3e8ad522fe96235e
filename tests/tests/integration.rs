//! The one end-to-end test binary: drives the sieve binaries on fixtures.
