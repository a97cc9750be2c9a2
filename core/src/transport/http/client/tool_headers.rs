//! What the transport learns from final responses: the legacy version an `initialize`
//! answer settled on, and the `x-mcp-header` parameters of every listed tool, which the
//! modern era mirrors into `Mcp-Param-*` headers (re-listed when a `tools/call` is refused
//! with HeaderMismatch).

use std::sync::atomic::Ordering;

use reqwest::header::HeaderValue;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::message::{result_of, FinalResponse, Outgoing};
use super::Shared;
use crate::protocol::headers::header_params;
use crate::protocol::jsonrpc;
use crate::protocol::{methods, RequestId};

/// How many pages of `tools/list` a HeaderMismatch refresh reads at most.
const MAX_REFRESH_PAGES: usize = 32;

impl Shared {
    /// Bookkeeping on a final response: the negotiated legacy version, tool schemas.
    pub(super) fn learn_from(&self, message: &Outgoing, reply: &FinalResponse) {
        if reply.error.is_some() {
            return;
        }
        match message.method() {
            methods::INITIALIZE => {
                #[derive(Deserialize)]
                struct Initialized {
                    #[serde(rename = "protocolVersion")]
                    protocol_version: String,
                }
                if let Some(result) = result_of::<Initialized>(&reply.text) {
                    self.state().negotiated_version = HeaderValue::from_str(&result.protocol_version).ok();
                }
            }
            methods::TOOLS_LIST => {
                if let Some(page) = result_of::<ToolsPage>(&reply.text) {
                    self.remember_tools(page.tools);
                }
            }
            _ => {}
        }
    }

    fn remember_tools(&self, tools: Vec<ListedTool>) {
        let mut state = self.state();
        for tool in tools {
            match header_params(&tool.input_schema) {
                Ok(params) => {
                    state.tool_headers.insert(tool.name, params);
                }
                Err(_) => {
                    state.tool_headers.remove(&tool.name);
                }
            }
        }
    }

    /// Lists the tools again on behalf of `call` (with its `_meta`), without delivering
    /// anything. True when the whole list was read.
    pub(super) async fn refresh_tools(&self, call: &Outgoing) -> bool {
        let meta = call.meta_for_follow_up();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_REFRESH_PAGES {
            let n = self.next_internal_id.fetch_add(1, Ordering::Relaxed);
            let id = RequestId::String(format!("oxmcp-http-tools-refresh-{n}").into());
            let mut params = Map::new();
            if let Some(cursor) = cursor.take() {
                params.insert("cursor".into(), Value::String(cursor));
            }
            params.insert("_meta".into(), Value::Object(meta.clone()));
            let list = Outgoing::parse(jsonrpc::request_text(&id, methods::TOOLS_LIST, Some(&params)));
            let reply = match self.send_post(&list).await {
                Ok(sent) => self.read_reply(&list, sent, false).await,
                Err(error) => Err(error),
            };
            let page = match reply {
                Ok(FinalResponse { error: None, text }) => result_of::<ToolsPage>(&text),
                _ => None,
            };
            let Some(page) = page else { return false };
            self.remember_tools(page.tools);
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => return true,
            }
        }
        false
    }
}

#[derive(Deserialize)]
struct ToolsPage {
    #[serde(default)]
    tools: Vec<ListedTool>,
    #[serde(default, rename = "nextCursor")]
    next_cursor: Option<String>,
}

#[derive(Deserialize)]
struct ListedTool {
    name: String,
    #[serde(default, rename = "inputSchema")]
    input_schema: Map<String, Value>,
}
