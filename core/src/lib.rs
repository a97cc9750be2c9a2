//! # oxmcp
//!
//! The Model Context Protocol, written once in Rust: a server and a client that speak
//! both protocol eras (the `initialize` handshake of 2024-11-05 to 2025-11-25, and the
//! stateless per-request metadata of 2026-07-28) over stdio, in-memory pairs and more.
//!
//! - [`server`]: define tools, resources and prompts; serve them.
//! - [`client`]: connect to a server, negotiate the era, call it.
//! - [`protocol`]: the wire types of every revision.
//! - [`transport`]: how bytes move.

#![warn(missing_docs)]

pub mod client;
mod connection;
mod error;
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub mod fuzzing;
#[cfg(feature = "oauth")]
mod oauth;
pub mod protocol;
pub mod server;
pub mod state;
pub mod transport;

pub use error::{Error, Result};

/// A boxed, sendable future: what handler and store traits return, so that bindings and
/// users can implement them without naming their future types.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// A boxed error from user code (an authorizer, a token source, a credential provider).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Locks `mutex`, also after a thread panicked while holding it: every value the crate
/// keeps behind a mutex stays consistent between statements, so a poisoned lock is safe
/// to use.
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Reads behind `lock`, also after a panic (as [`lock`]).
pub(crate) fn read<T>(lock: &std::sync::RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|e| e.into_inner())
}

/// Writes behind `lock`, also after a panic (as [`lock`]).
pub(crate) fn write<T>(lock: &std::sync::RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(|e| e.into_inner())
}
