//! Completion handlers for prompt arguments and template variables.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::Arc;

use super::handler::{BoxFuture, HandlerError};
use crate::protocol::Completion;

/// The most values one completion result may carry.
pub(crate) const MAX_COMPLETION_VALUES: usize = 100;

/// Suggests values for one argument, given its partial value and the other arguments'
/// values.
pub trait CompletionHandler: Send + Sync + 'static {
    /// Returns candidate values (more than 100 are cut, with `hasMore` set).
    fn complete(
        &self,
        value: String,
        context: BTreeMap<String, String>,
    ) -> BoxFuture<'static, Result<Vec<String>, HandlerError>>;
}

impl<F, Fut> CompletionHandler for F
where
    F: Fn(String, BTreeMap<String, String>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Vec<String>> + Send + 'static,
{
    fn complete(
        &self,
        value: String,
        context: BTreeMap<String, String>,
    ) -> BoxFuture<'static, Result<Vec<String>, HandlerError>> {
        let future = self(value, context);
        Box::pin(async move { Ok(future.await) })
    }
}

/// Completion handlers by argument or variable name.
pub(crate) type CompletionHandlers = HashMap<String, Arc<dyn CompletionHandler>>;

/// Cuts `values` to the protocol's limit, recording the total.
pub(crate) fn completion_from(mut values: Vec<String>) -> Completion {
    let total = values.len();
    let has_more = total > MAX_COMPLETION_VALUES;
    values.truncate(MAX_COMPLETION_VALUES);
    Completion {
        values,
        total: Some(total as u64),
        has_more: Some(has_more),
    }
}
