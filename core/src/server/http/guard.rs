//! Origin and Host checks against DNS rebinding.

use http::HeaderMap;

/// Host names a loopback-bound server answers to.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// Which browsers' pages and which Host names may reach the endpoint.
#[derive(Debug, Clone)]
pub(crate) struct Guard {
    /// Allowed `Origin` values (scheme://host[:port]); a request without `Origin` passes.
    pub(crate) origins: Vec<String>,
    /// Allowed host names (without port); empty allows any.
    pub(crate) hosts: Vec<String>,
    /// Whether `hosts` is the loopback default rather than a list the user gave.
    pub(crate) default_hosts: bool,
}

impl Default for Guard {
    /// Loopback only: the right default for a local server.
    fn default() -> Self {
        Guard {
            origins: LOOPBACK_HOSTS
                .iter()
                .flat_map(|host| [format!("http://{host}"), format!("https://{host}")])
                .collect(),
            hosts: LOOPBACK_HOSTS.iter().map(|h| (*h).to_owned()).collect(),
            default_hosts: true,
        }
    }
}

impl Guard {
    /// The guard of an endpoint bound to `address`: one bound to a non-loopback address
    /// serves remote clients by whatever name they know it, so its default is any `Host`
    /// (the `Origin` check still keeps other sites' pages out).
    pub(crate) fn for_address(mut self, address: std::net::IpAddr) -> Self {
        if self.default_hosts && !address.is_loopback() {
            self.hosts.clear();
        }
        self
    }

    /// `Err` with the reason when the request must be refused with 403.
    pub(crate) fn check(&self, headers: &HeaderMap) -> Result<(), String> {
        if let Some(origin) = headers.get(http::header::ORIGIN) {
            let origin = origin
                .to_str()
                .map_err(|_| "the Origin header is not text".to_owned())?;
            if !self.origin_allowed(origin) {
                return Err(format!("origin {origin:?} is not allowed"));
            }
        }
        if !self.hosts.is_empty() {
            let host = headers
                .get(http::header::HOST)
                .and_then(|h| h.to_str().ok())
                .ok_or_else(|| "the Host header is missing".to_owned())?;
            if !self
                .hosts
                .iter()
                .any(|allowed| host_name(host).eq_ignore_ascii_case(allowed))
            {
                return Err(format!("host {host:?} is not allowed"));
            }
        }
        Ok(())
    }

    /// Allowed origins match exactly, or on scheme and host with any port.
    fn origin_allowed(&self, origin: &str) -> bool {
        self.origins.iter().any(|allowed| {
            origin.eq_ignore_ascii_case(allowed)
                || origin
                    .get(..allowed.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(allowed))
                    && origin[allowed.len()..]
                        .strip_prefix(':')
                        .is_some_and(|port| port.bytes().all(|b| b.is_ascii_digit()))
        })
    }
}

/// The host of a Host header, without its port.
fn host_name(host: &str) -> &str {
    if host.starts_with('[') {
        return host.split_inclusive(']').next().unwrap_or(host);
    }
    host.rsplit_once(':').map_or(host, |(name, _)| name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(k, v)| (http::HeaderName::from_static(k), v.parse().unwrap()))
            .collect()
    }

    #[test]
    fn loopback_defaults() {
        let guard = Guard::default();
        assert!(guard.check(&headers(&[("host", "127.0.0.1:8000")])).is_ok());
        assert!(guard
            .check(&headers(&[("host", "localhost"), ("origin", "http://localhost:3000")]))
            .is_ok());
        assert!(guard.check(&headers(&[("host", "[::1]:9")])).is_ok());
        assert!(
            guard.check(&headers(&[("host", "evil.example:8000")])).is_err(),
            "DNS rebinding"
        );
        assert!(guard
            .check(&headers(&[("host", "localhost"), ("origin", "http://evil.example")]))
            .is_err());
        assert!(guard
            .check(&headers(&[
                ("host", "localhost"),
                ("origin", "http://localhost.evil.example")
            ]))
            .is_err());
        assert!(guard.check(&headers(&[])).is_err(), "no Host");
    }

    #[test]
    fn bound_to_every_interface_any_host_by_default() {
        let remote = Guard::default().for_address([0, 0, 0, 0].into());
        assert!(remote.check(&headers(&[("host", "mcp.example:8000")])).is_ok());
        assert!(remote
            .check(&headers(&[("host", "mcp.example"), ("origin", "http://evil.example")]))
            .is_err());
        let local = Guard::default().for_address([127, 0, 0, 1].into());
        assert!(local.check(&headers(&[("host", "mcp.example")])).is_err());
        let listed = Guard {
            hosts: vec!["mcp.example".into()],
            default_hosts: false,
            ..Guard::default()
        };
        let listed = listed.for_address([0, 0, 0, 0].into());
        assert!(listed.check(&headers(&[("host", "other.example")])).is_err());
    }

    #[test]
    fn configured_hosts_and_origins() {
        let guard = Guard {
            origins: vec!["https://app.example".into()],
            hosts: Vec::new(),
            default_hosts: false,
        };
        assert!(guard
            .check(&headers(&[("host", "anything"), ("origin", "https://app.example")]))
            .is_ok());
        assert!(guard
            .check(&headers(&[("host", "anything"), ("origin", "https://other.example")]))
            .is_err());
    }
}
