//! The one end-to-end test binary: drives the sieve binaries on fixtures.
//! Each area has its own module; tests are declared with `sieve_test!`.

#[macro_use]
mod util;

mod conventions;
mod hostile;
mod pipeline;
mod repo;
mod utf8;
