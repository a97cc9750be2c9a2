//! The `WWW-Authenticate` challenges of RFC 6750 §3 (`Bearer`) and RFC 9449 §7.1
//! (`DPoP`), with the `resource_metadata` parameter of RFC 9728 §5.1.

/// What went wrong, as RFC 6750 §3.1 and RFC 9449 §7.1 name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChallengeError {
    /// No token was sent: the challenge only says how to get one.
    Missing,
    /// `invalid_token` (401).
    InvalidToken,
    /// `insufficient_scope` (403).
    InsufficientScope,
    /// `invalid_request` (400), e.g. two tokens in one request.
    InvalidRequest,
    /// `invalid_dpop_proof` (401).
    InvalidProof,
    /// `use_dpop_nonce` (401): retry with the nonce sent along.
    UseNonce,
}

impl ChallengeError {
    /// The error code, when there is one.
    pub(crate) fn code(self) -> Option<&'static str> {
        match self {
            ChallengeError::Missing => None,
            ChallengeError::InvalidToken => Some("invalid_token"),
            ChallengeError::InsufficientScope => Some("insufficient_scope"),
            ChallengeError::InvalidRequest => Some("invalid_request"),
            ChallengeError::InvalidProof => Some("invalid_dpop_proof"),
            ChallengeError::UseNonce => Some("use_dpop_nonce"),
        }
    }
}

/// How the client presented its token, and so how it is challenged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scheme {
    /// `Authorization: Bearer` (RFC 6750).
    Bearer,
    /// `Authorization: DPoP` with a `DPoP` proof (RFC 9449).
    Dpop,
}

/// The value of a `WWW-Authenticate` header: the scheme with the error, its description,
/// the scopes needed and the metadata URL; a DPoP challenge also names the proof
/// algorithms accepted.
pub(crate) fn challenge(
    scheme: Scheme,
    error: ChallengeError,
    description: Option<&str>,
    scopes: &[&str],
    metadata_url: &str,
) -> String {
    let mut parameters = Vec::new();
    if let Some(code) = error.code() {
        parameters.push(format!("error=\"{code}\""));
    }
    if let Some(description) = description {
        parameters.push(format!("error_description=\"{}\"", quoted(description)));
    }
    if !scopes.is_empty() {
        parameters.push(format!("scope=\"{}\"", quoted(&scopes.join(" "))));
    }
    parameters.push(format!("resource_metadata=\"{}\"", quoted(metadata_url)));
    match scheme {
        Scheme::Bearer => format!("Bearer {}", parameters.join(", ")),
        Scheme::Dpop => format!(
            "DPoP {}, algs=\"{}\"",
            parameters.join(", "),
            super::dpop::ALGORITHM_NAMES
        ),
    }
}

/// The text of a quoted-string: only printable ASCII (RFC 6750 §3 allows no more), with
/// `"` and `\` escaped.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            _ => out.push('?'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::auth::BearerChallenge;

    #[test]
    fn challenges_read_back_as_the_client_reads_them() {
        let text = challenge(
            Scheme::Bearer,
            ChallengeError::InsufficientScope,
            Some("needs \"write\" — now"),
            &["notes:read", "notes:write"],
            "https://rs.example/.well-known/oauth-protected-resource/mcp",
        );
        assert_eq!(
            text,
            "Bearer error=\"insufficient_scope\", error_description=\"needs \\\"write\\\" ? now\", \
             scope=\"notes:read notes:write\", \
             resource_metadata=\"https://rs.example/.well-known/oauth-protected-resource/mcp\""
        );
        let read = BearerChallenge::parse(&text).unwrap();
        assert!(read.insufficient_scope());
        assert_eq!(read.scope.as_deref(), Some("notes:read notes:write"));
        let missing = challenge(
            Scheme::Bearer,
            ChallengeError::Missing,
            None,
            &[],
            "https://rs.example/m",
        );
        assert_eq!(missing, "Bearer resource_metadata=\"https://rs.example/m\"");
        let nonce = challenge(
            Scheme::Dpop,
            ChallengeError::UseNonce,
            Some("send it"),
            &[],
            "https://rs.example/m",
        );
        assert_eq!(
            nonce,
            "DPoP error=\"use_dpop_nonce\", error_description=\"send it\", resource_metadata=\"https://rs.example/m\", \
             algs=\"ES256 RS256 PS256 EdDSA\""
        );
    }
}
