//! State that outlives one request: the keys that seal `requestState`.
//!
//! In memory by default; replicas that must open each other's state share the keys.

pub mod sealing;

pub use sealing::{KeyRing, SealError, SealingKey};
