//! Protocol revisions and the two eras they fall into.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The two incompatible wire eras of MCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// `initialize` handshake, sessions, server-to-client requests (2024-11-05 to 2025-11-25).
    Legacy,
    /// Per-request `_meta`, no handshake, multi round-trip requests (2026-07-28 on).
    Modern,
}

/// A protocol revision this implementation speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ProtocolVersion {
    /// The first published revision.
    #[serde(rename = "2024-11-05")]
    V2024_11_05,
    /// Streamable HTTP, batches, audio, tool annotations.
    #[serde(rename = "2025-03-26")]
    V2025_03_26,
    /// Structured tool output, elicitation, resource links; batches removed.
    #[serde(rename = "2025-06-18")]
    V2025_06_18,
    /// Icons, URL elicitation, sampling with tools, tasks.
    #[serde(rename = "2025-11-25")]
    V2025_11_25,
    /// The stateless modern era.
    #[serde(rename = "2026-07-28")]
    V2026_07_28,
}

impl ProtocolVersion {
    /// Every supported revision, newest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2026_07_28,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2024_11_05,
    ];
    /// The newest revision.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2026_07_28;
    /// The newest revision with an `initialize` handshake.
    pub const LATEST_LEGACY: ProtocolVersion = ProtocolVersion::V2025_11_25;

    /// The revision's date string, as on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }

    /// Looks a wire string up; `None` for revisions this implementation does not speak.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == text)
    }

    /// The era the revision belongs to.
    pub const fn era(self) -> Era {
        match self {
            ProtocolVersion::V2026_07_28 => Era::Modern,
            _ => Era::Legacy,
        }
    }

    /// Whether JSON-RPC batches are allowed (2025-03-26 only).
    pub fn allows_batches(self) -> bool {
        self == ProtocolVersion::V2025_03_26
    }

    /// Whether content may be audio (2025-03-26 on).
    pub fn has_audio(self) -> bool {
        self >= ProtocolVersion::V2025_03_26
    }

    /// Whether content may be a `resource_link` (2025-06-18 on).
    pub fn has_resource_links(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// Whether tool results may carry `structuredContent` (2025-06-18 on).
    pub fn has_structured_content(self) -> bool {
        self >= ProtocolVersion::V2025_06_18
    }

    /// Whether invalid tool arguments are reported as a tool execution error
    /// (`isError: true`) rather than -32602 (SEP-1303, 2025-11-25 on).
    pub fn reports_input_errors_as_results(self) -> bool {
        self >= ProtocolVersion::V2025_11_25
    }

    /// Whether tasks are part of the protocol (`params.task`, `tasks/result`, ...): in
    /// 2025-11-25 only; 2026-07-28 has them as an extension.
    pub fn has_tasks(self) -> bool {
        self == ProtocolVersion::V2025_11_25
    }

    /// The wire strings of every supported revision, newest first.
    pub fn all_strs() -> Vec<&'static str> {
        Self::ALL.iter().map(|v| v.as_str()).collect()
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
