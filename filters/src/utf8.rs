//! The UTF-8 cleaner (see the crate docs). Filled in by issue 2.
