//! The certificates every HTTP client of oxmcp trusts (the MCP transport, the OAuth client,
//! a server's token verifiers).
//!
//! The platform's own verifier everywhere but Android (reqwest's default, through
//! rustls-platform-verifier). On Android that verifier must first be handed the app's
//! `Context` through JNI, which a library loaded by JNA (the Kotlin binding) is never given:
//! its first https request would panic in the TLS handshake. There, the Mozilla roots
//! compiled in (`webpki-root-certs`) are trusted instead, so that an app's client reaches
//! public servers; certificates the user installed on the device are not trusted.

/// A reqwest client builder that trusts what this platform's clients trust.
pub(crate) fn client_builder() -> reqwest::ClientBuilder {
    let builder = reqwest::Client::builder();
    #[cfg(target_os = "android")]
    let builder = builder.tls_certs_only(compiled_in_roots());
    builder
}

/// The Mozilla roots, as reqwest certificates.
#[cfg(any(target_os = "android", test))]
fn compiled_in_roots() -> impl Iterator<Item = reqwest::Certificate> {
    webpki_root_certs::TLS_SERVER_ROOT_CERTS
        .iter()
        .filter_map(|der| reqwest::Certificate::from_der(der).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_trusting_only_the_compiled_in_roots_builds() {
        assert!(compiled_in_roots().count() > 100);
        reqwest::Client::builder()
            .tls_certs_only(compiled_in_roots())
            .build()
            .expect("a client trusting the Mozilla roots");
    }
}
