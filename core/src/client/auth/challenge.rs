//! The `Bearer` (or `DPoP`) challenge of a `WWW-Authenticate` header (RFC 6750 §3,
//! RFC 9449 §7.1, RFC 9728 §5.1).

/// What a server's `Bearer` challenge says: where its protected resource metadata is,
/// which scopes the refused request needs, and why it was refused.
///
/// ```
/// use oxmcp::client::auth::BearerChallenge;
///
/// let challenge = BearerChallenge::parse(
///     r#"Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource""#,
/// )
/// .unwrap();
/// assert!(challenge.insufficient_scope());
/// assert_eq!(challenge.scope.as_deref(), Some("files:read files:write"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BearerChallenge {
    /// The URL of the protected resource metadata document (RFC 9728 §5.1).
    pub resource_metadata: Option<String>,
    /// The space-separated scopes the request needs.
    pub scope: Option<String>,
    /// The error code, e.g. `invalid_token` or `insufficient_scope`.
    pub error: Option<String>,
}

impl BearerChallenge {
    /// The first `Bearer` (or `DPoP`, RFC 9449 §7.1) challenge of one `WWW-Authenticate`
    /// header value, or `None` when the value holds neither. Unknown parameters are
    /// ignored.
    pub fn parse(header: &str) -> Option<BearerChallenge> {
        let mut tokens = Tokens { rest: header };
        let mut challenge = None;
        while let Some(token) = tokens.next_token() {
            if tokens.at('=') {
                // A parameter of the current challenge.
                tokens.skip('=');
                let value = tokens.value();
                if let Some(challenge) = challenge.as_mut() {
                    set_param(challenge, &token, value);
                }
            } else if challenge.is_some() {
                // The next challenge begins: the Bearer one is complete.
                break;
            } else if token.eq_ignore_ascii_case("bearer") || token.eq_ignore_ascii_case("dpop") {
                challenge = Some(BearerChallenge::default());
            }
            tokens.skip(',');
        }
        challenge
    }

    /// The first `Bearer` challenge among several `WWW-Authenticate` header values.
    pub fn from_headers<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<BearerChallenge> {
        values.into_iter().find_map(BearerChallenge::parse)
    }

    /// Whether the server refused the request for want of scope (a step-up is needed).
    pub fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

fn set_param(challenge: &mut BearerChallenge, name: &str, value: String) {
    let slot = match name.to_ascii_lowercase().as_str() {
        "resource_metadata" => &mut challenge.resource_metadata,
        "scope" => &mut challenge.scope,
        "error" => &mut challenge.error,
        _ => return,
    };
    *slot = Some(value);
}

/// A cursor over the header's tokens, quoted strings and separators.
struct Tokens<'a> {
    rest: &'a str,
}

impl Tokens<'_> {
    fn trim(&mut self) {
        self.rest = self.rest.trim_start_matches([' ', '\t']);
    }

    fn at(&mut self, c: char) -> bool {
        self.trim();
        self.rest.starts_with(c)
    }

    fn skip(&mut self, c: char) {
        while self.at(c) {
            self.rest = &self.rest[c.len_utf8()..];
        }
    }

    /// A token (a scheme or parameter name), or `None` at the end.
    fn next_token(&mut self) -> Option<String> {
        self.skip(',');
        let end = self.rest.find(['=', ',', ' ', '\t']).unwrap_or(self.rest.len());
        if end == 0 {
            return None;
        }
        let token = self.rest[..end].to_owned();
        self.rest = &self.rest[end..];
        Some(token)
    }

    /// A parameter value: a quoted string (with `\` escapes) or a token.
    fn value(&mut self) -> String {
        self.trim();
        let Some(quoted) = self.rest.strip_prefix('"') else {
            let end = self.rest.find([',', ' ', '\t']).unwrap_or(self.rest.len());
            let value = self.rest[..end].to_owned();
            self.rest = &self.rest[end..];
            return value;
        };
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.rest = &quoted[i + 1..];
                    return value;
                }
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                c => value.push(c),
            }
        }
        // An unterminated string ends at the end of the header.
        self.rest = "";
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_quoted_and_bare_parameters() {
        let c = BearerChallenge::parse(r#"Bearer realm="mcp", error=invalid_token, scope="a b""#).unwrap();
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
        assert_eq!(c.scope.as_deref(), Some("a b"));
        assert_eq!(c.resource_metadata, None);
    }

    #[test]
    fn finds_bearer_among_other_schemes() {
        let c = BearerChallenge::parse(
            r#"Basic realm="x", Bearer resource_metadata="https://h/.well-known/x", Other algs="ES256""#,
        )
        .unwrap();
        assert_eq!(c.resource_metadata.as_deref(), Some("https://h/.well-known/x"));
        assert_eq!(c.scope, None);
    }

    #[test]
    fn unescapes_quoted_strings() {
        let c = BearerChallenge::parse(r#"bearer error_description="say \"no\"", scope="x""#).unwrap();
        assert_eq!(c.scope.as_deref(), Some("x"));
    }

    #[test]
    fn no_bearer_challenge() {
        assert_eq!(BearerChallenge::parse(r#"Basic realm="x""#), None);
        assert_eq!(BearerChallenge::parse(""), None);
        assert_eq!(BearerChallenge::parse("Bearer"), Some(BearerChallenge::default()));
    }
}
