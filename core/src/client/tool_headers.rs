//! The `x-mcp-header` parameters of the tools this client listed. The [`Envelope`] of a
//! `tools/call` of the 2026-07-28 era carries the `Mcp-Param-*` headers they imply, which
//! Streamable HTTP sends; when the server refuses the call with HeaderMismatch (-32020:
//! the tool changed since it was listed), the tools are listed again and the call is sent
//! once more.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::pages::Cursors;
use super::requests::cursor_params;
use super::{decode, lock, CallOptions, Client};
use crate::error::{Error, Result};
use crate::protocol::headers::{header_params, HeaderParam};
use crate::protocol::{code, methods, ListToolsResult, ProtocolVersion, Tool};
#[cfg(doc)]
use crate::transport::Envelope;

/// The header parameters of every listed tool that has some, by tool name.
#[derive(Default)]
pub(super) struct ToolHeaders(Mutex<HashMap<String, Vec<HeaderParam>>>);

impl ToolHeaders {
    /// Keeps what `tools/list` said about `tool` (forgets it when it has none).
    pub(super) fn remember(&self, tool: &str, params: Vec<HeaderParam>) {
        let mut known = lock(&self.0);
        if params.is_empty() {
            known.remove(tool);
        } else {
            known.insert(tool.to_owned(), params);
        }
    }

    /// The header parameters of the tool a `tools/call` names.
    fn of_call(&self, params: &Map<String, Value>) -> Vec<HeaderParam> {
        let Some(tool) = params.get("name").and_then(Value::as_str) else {
            return Vec::new();
        };
        lock(&self.0).get(tool).cloned().unwrap_or_default()
    }
}

impl Client {
    /// Lists every tool again, for their header parameters. Sent as plain requests (a
    /// `tools/list` takes no input rounds): going through [`Client::request`] would make
    /// the future of a `tools/call` contain itself.
    async fn relist_tools(&self) -> Result<()> {
        let version = self.protocol_version();
        let mut cursors = Cursors::new(methods::TOOLS_LIST, self.inner.options.max_list_pages);
        let mut cursor = None;
        loop {
            let mut params = self.era_params(cursor_params(cursor), version);
            let raw = self
                .send_request(
                    methods::TOOLS_LIST,
                    &mut params,
                    &CallOptions::default(),
                    Some(version),
                    &[],
                )
                .await?;
            let mut page: ListToolsResult = decode(&raw)?;
            self.keep_listed(&mut page.tools);
            cursor = match cursors.follow(page.next_cursor)? {
                Some(next) => Some(next),
                None => return Ok(()),
            };
        }
    }

    /// Drops listed tools whose `x-mcp-header` annotations break the spec's rules and
    /// remembers the header parameters of the others.
    pub(super) fn keep_listed(&self, tools: &mut Vec<Tool>) {
        tools.retain(|tool| match header_params(&tool.input_schema) {
            Ok(params) => {
                self.inner.tool_headers.remember(&tool.name, params);
                true
            }
            Err(reason) => {
                tracing::warn!(tool = %tool.name, %reason, "left out a tool with invalid x-mcp-header annotations");
                false
            }
        });
    }

    /// Sends a `tools/call` of the modern `version` with its tool's header parameters, and
    /// once more after listing the tools again when the server says they changed.
    pub(super) async fn call_tool_raw(
        &self,
        params: &mut Map<String, Value>,
        options: &CallOptions,
        version: ProtocolVersion,
    ) -> Result<Box<RawValue>> {
        let headers = &self.inner.tool_headers;
        let first = headers.of_call(params);
        match self
            .send_request(methods::TOOLS_CALL, params, options, Some(version), &first)
            .await
        {
            Err(Error::Remote(error)) if error.code == code::HEADER_MISMATCH => {
                tracing::debug!(tool = ?params.get("name"), "listing the tools again after a HeaderMismatch");
                if self.relist_tools().await.is_err() {
                    return Err(Error::Remote(error));
                }
                let again = headers.of_call(params);
                self.send_request(methods::TOOLS_CALL, params, options, Some(version), &again)
                    .await
            }
            other => other,
        }
    }
}
