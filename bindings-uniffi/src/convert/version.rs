//! Protocol eras: the one a client asks for ([`EraMode`]) and the one a connection or
//! request is in ([`Era`]). Mirrors `oxmcp::protocol::version` and the client's era option.

use oxmcp::protocol as core;

/// Which protocol era to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, uniffi::Enum)]
pub enum EraMode {
    /// Probe with `server/discover`; fall back to the `initialize` handshake.
    #[default]
    Auto,
    /// Always the `initialize` handshake (2025-11-25 and earlier).
    Legacy,
    /// Always per-request metadata (2026-07-28).
    Modern,
}

impl From<EraMode> for oxmcp::client::EraMode {
    fn from(mode: EraMode) -> Self {
        match mode {
            EraMode::Auto => oxmcp::client::EraMode::Auto,
            EraMode::Legacy => oxmcp::client::EraMode::Legacy,
            EraMode::Modern => oxmcp::client::EraMode::Modern,
        }
    }
}

/// The era of a connection or request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, uniffi::Enum)]
pub enum Era {
    /// `initialize` handshake, sessions (2024-11-05 to 2025-11-25).
    Legacy,
    /// Per-request metadata, multi round-trip requests (2026-07-28 on).
    Modern,
}

impl From<core::Era> for Era {
    fn from(era: core::Era) -> Self {
        match era {
            core::Era::Legacy => Era::Legacy,
            core::Era::Modern => Era::Modern,
        }
    }
}
