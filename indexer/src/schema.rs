//! The index schema: the only module that names fields.
//!
//! Placeholder; filled in when the indexer lands.
