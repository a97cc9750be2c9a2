//! The HTTP exchanges of the OAuth client: JSON documents, form and JSON POSTs, all
//! bounded in size, never following redirects, and only over https (plain http only to
//! a loopback host).

use std::borrow::Cow;
use std::time::Duration;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, CONTENT_TYPE};
use reqwest::{Response, StatusCode, Url};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use url::Host;

use super::AuthError;

/// The largest OAuth document or answer read.
const BODY_LIMIT: usize = 256 * 1024;
/// The header of a server's DPoP nonce (RFC 9449 §8).
pub(crate) const DPOP_NONCE: &str = "dpop-nonce";
/// How long one OAuth request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// The client the OAuth flows use: no redirects followed (an authorization server's
/// answer must come from the URL the client chose), bounded time.
pub(crate) fn client() -> Result<reqwest::Client, AuthError> {
    crate::transport::http::tls::client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(REQUEST_TIMEOUT)
        .build()
        .map_err(|e| AuthError::http("(client)", e))
}

/// Checks that the OAuth client may talk to `url`: https, or plain http to a loopback
/// host (`127.0.0.0/8`, `::1`, `localhost`), where no network sees the traffic. Every
/// exchange of this module checks it, and so does the authorization URL before the user
/// is sent there.
pub(crate) fn require_https(url: &Url) -> Result<(), AuthError> {
    let loopback = match url.host() {
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        Some(Host::Domain(domain)) => domain.eq_ignore_ascii_case("localhost"),
        None => false,
    };
    match url.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        _ => Err(AuthError::invalid_url(
            url,
            "OAuth endpoints must use https (plain http only on a loopback host)",
        )),
    }
}

/// What a GET of a metadata document found.
pub(crate) enum Fetched<T> {
    Found(T),
    /// The server has no such document (4xx): the caller tries the next URL.
    Absent,
}

/// GETs a JSON document; a 4xx answer means it is absent.
pub(crate) async fn get_json<T: DeserializeOwned>(http: &reqwest::Client, url: &Url) -> Result<Fetched<T>, AuthError> {
    require_https(url)?;
    let response = http
        .get(url.clone())
        .header(ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| AuthError::http(url, e))?;
    let status = response.status();
    if status.is_client_error() {
        return Ok(Fetched::Absent);
    }
    if !status.is_success() {
        return Err(AuthError::http(url, format!("HTTP {status}")));
    }
    let body = read(url, response).await?;
    serde_json::from_slice(&body)
        .map(Fetched::Found)
        .map_err(|e| AuthError::invalid(url, e))
}

/// What a form POST brought back: the decoded answer (an OAuth error answer is
/// [`AuthError::Refused`]) and the DPoP nonce the server sent with it (RFC 9449 §8).
pub(crate) struct FormAnswer<T> {
    pub answer: Result<T, AuthError>,
    pub dpop_nonce: Option<String>,
}

/// POSTs a form and reads the JSON answer; only a failure to exchange is an error here.
pub(crate) async fn post_form<T: DeserializeOwned>(
    http: &reqwest::Client,
    url: &Url,
    headers: HeaderMap,
    form: &[(&str, Cow<'_, str>)],
) -> Result<FormAnswer<T>, AuthError> {
    require_https(url)?;
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let response = http
        .post(url.clone())
        .headers(headers)
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(ACCEPT, "application/json")
        .body(body)
        .send()
        .await
        .map_err(|e| AuthError::http(url, e))?;
    let dpop_nonce = response
        .headers()
        .get(DPOP_NONCE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let status = response.status();
    let body = read(url, response).await?;
    Ok(FormAnswer {
        answer: decode(url, status, &body),
        dpop_nonce,
    })
}

/// POSTs a JSON document and reads the JSON answer.
pub(crate) async fn post_json<T: DeserializeOwned>(
    http: &reqwest::Client,
    url: &Url,
    document: &impl serde::Serialize,
) -> Result<T, AuthError> {
    require_https(url)?;
    let body = serde_json::to_vec(document).map_err(|e| AuthError::invalid(url, e))?;
    let request = http
        .post(url.clone())
        .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
        .header(ACCEPT, "application/json")
        .body(body);
    answer(url, request).await
}

async fn answer<T: DeserializeOwned>(url: &Url, request: reqwest::RequestBuilder) -> Result<T, AuthError> {
    let response = request.send().await.map_err(|e| AuthError::http(url, e))?;
    let status = response.status();
    let body = read(url, response).await?;
    decode(url, status, &body)
}

fn decode<T: DeserializeOwned>(url: &Url, status: StatusCode, body: &[u8]) -> Result<T, AuthError> {
    if !status.is_success() {
        return Err(refusal(url, status, body));
    }
    serde_json::from_slice(body).map_err(|e| AuthError::invalid(url, e))
}

/// The OAuth error of a refused request (RFC 6749 §5.2), or the bare status.
fn refusal(url: &Url, status: StatusCode, body: &[u8]) -> AuthError {
    #[derive(Deserialize)]
    struct ErrorAnswer {
        error: String,
        error_description: Option<String>,
    }
    match serde_json::from_slice::<ErrorAnswer>(body) {
        Ok(answer) => AuthError::Refused {
            error: answer.error,
            description: answer.error_description,
        },
        Err(_) => AuthError::http(url, format!("HTTP {status}")),
    }
}

async fn read(url: &Url, mut response: Response) -> Result<Vec<u8>, AuthError> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| AuthError::http(url, e))? {
        if body.len() + chunk.len() > BODY_LIMIT {
            return Err(AuthError::invalid(url, "the answer is too large"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// `Basic base64(urlencode(id) ":" urlencode(secret))` (RFC 6749 §2.3.1), marked
/// sensitive so it is never logged.
pub(crate) fn basic_authorization(client_id: &str, secret: &str) -> Result<HeaderValue, AuthError> {
    let encode = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let credentials = STANDARD.encode(format!("{}:{}", encode(client_id), encode(secret)));
    let mut value = HeaderValue::try_from(format!("Basic {credentials}"))
        .map_err(|_| AuthError::invalid_url("(client credentials)", "not a valid header value"))?;
    value.set_sensitive(true);
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_authorization_encodes_both_parts() {
        let value = basic_authorization("id:1", "s e").unwrap();
        let encoded = value.to_str().unwrap().strip_prefix("Basic ").unwrap();
        let decoded = String::from_utf8(STANDARD.decode(encoded).unwrap()).unwrap();
        assert_eq!(decoded, "id%3A1:s+e");
        assert!(value.is_sensitive());
    }

    #[test]
    fn only_https_or_loopback_http() {
        let allowed = |url: &str| require_https(&Url::parse(url).unwrap()).is_ok();
        for ok in [
            "https://auth.example.com/token",
            "http://127.0.0.1:8080/token",
            "http://127.8.9.10/token",
            "http://[::1]:8080/token",
            "http://localhost:3000/token",
            "http://LOCALHOST/token",
        ] {
            assert!(allowed(ok), "{ok}");
        }
        for refused in [
            "http://auth.example.com/token",
            "http://localhost.example.com/token",
            "http://10.0.0.1/token",
            "http://[::2]/token",
            "ftp://127.0.0.1/token",
            "file:///etc/passwd",
        ] {
            assert!(!allowed(refused), "{refused}");
        }
    }
}
