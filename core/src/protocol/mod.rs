//! Wire types of every protocol revision from 2024-11-05 to 2026-07-28, the JSON-RPC
//! envelope, error codes, and protocol versions and eras.
//!
//! One type per concept across revisions: fields that only some revisions know are
//! optional, and the dispatcher fills in what the negotiated revision needs
//! (`resultType`, caching hints, server info).

mod capabilities;
mod completion;
mod content;
mod elicitation;
mod error;
pub mod headers;
pub mod jsonrpc;
mod lifecycle;
mod logging;
pub mod meta;
pub mod methods;
mod mrtr;
mod number;
mod progress;
mod prompts;
mod resources;
pub(crate) mod result;
mod roots;
mod sampling;
pub mod skills;
mod subscriptions;
mod tasks;
mod tools;
mod version;

pub use capabilities::*;
pub use completion::*;
pub use content::*;
pub use elicitation::*;
pub use error::{code, ErrorObject};
pub use jsonrpc::{Incoming, InvalidMessage, Message, Notification, Request, RequestId, Response};
pub use lifecycle::*;
pub use logging::*;
pub use meta::{Meta, RequestMeta};
pub use mrtr::*;
pub use progress::*;
pub use prompts::*;
pub use resources::*;
pub use result::{CacheScope, CacheableResult, EmptyResult, ProtocolResult, ResultType};
pub use roots::*;
pub use sampling::*;
pub use subscriptions::*;
pub use tasks::{Task, TaskStatus};
pub use tools::*;
pub use version::{Era, ProtocolVersion};

/// The identifier of the tasks extension (2026-07-28, SEP-2663), in both sides'
/// `extensions` capabilities.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
