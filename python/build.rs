//! Empty: it makes `[build-dependencies]` of Cargo.toml count, so the
//! extension's compiler-side crates have the features the rest of the
//! workspace gives them (see the comment there).
fn main() {}
