//! [`LoopbackRedirect`]: the redirect of a desktop or command-line app, received on
//! 127.0.0.1 (RFC 8252 §7.3).

use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{RawQuery, State};
use axum::response::Html;
use axum::routing::get;
use axum::Router;
use tokio::sync::{mpsc, Mutex as AsyncMutex};

use super::AuthError;

/// Where the browser is sent back to on the listener.
const CALLBACK_PATH: &str = "/callback";

/// How long [`receive`](LoopbackRedirect::receive) waits for the user by default.
pub const LOOPBACK_WAIT: Duration = Duration::from_secs(300);

/// The page the browser shows once it has come back.
const DONE_PAGE: &str = "<!doctype html><meta charset=utf-8><title>Signed in</title>\
    <p>Authorization is complete. You may close this window and return to the app.</p>";

/// A listener on 127.0.0.1 that receives the authorization server's redirect: the redirect
/// URI of an app that signs its user in through the system browser. It listens from
/// [`bind`](Self::bind) on, so that its port (part of the registered redirect URI) stays
/// the same for every authorization; only the browser on this machine can reach it.
///
/// ```no_run
/// use oxmcp::client::auth::{ClientMetadata, LoopbackRedirect, OAuthProvider};
///
/// # fn run() -> std::io::Result<()> {
/// let redirect = std::sync::Arc::new(LoopbackRedirect::bind(0)?);
/// let metadata = ClientMetadata::new("My app", redirect.redirect_uri());
/// let provider = OAuthProvider::authorization_code(metadata, move |url| {
///     let redirect = redirect.clone();
///     async move {
///         println!("Sign in at {url}");
///         redirect.receive(oxmcp::client::auth::LOOPBACK_WAIT).await
///     }
/// });
/// # drop(provider); Ok(()) }
/// ```
pub struct LoopbackRedirect {
    listener: std::net::TcpListener,
    redirect_uri: String,
    /// One authorization waits at a time.
    waiting: AsyncMutex<()>,
}

impl LoopbackRedirect {
    /// Listens on 127.0.0.1:`port` (0: a free port the system picks).
    pub fn bind(port: u16) -> io::Result<LoopbackRedirect> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        Ok(LoopbackRedirect {
            listener,
            redirect_uri: format!("http://127.0.0.1:{port}{CALLBACK_PATH}"),
            waiting: AsyncMutex::new(()),
        })
    }

    /// The redirect URI to register: `http://127.0.0.1:<port>/callback`.
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// Waits, at most `wait`, for the browser to come back to the redirect URI, shows it a
    /// page that says the app may be returned to, and gives the URL it came back to (with
    /// the authorization response: `code`, `state`, `iss`, or `error`).
    pub async fn receive(&self, wait: Duration) -> Result<String, AuthError> {
        let _one_at_a_time = self.waiting.lock().await;
        let listener = self.tokio_listener()?;
        let (arrived, mut arrivals) = mpsc::channel::<String>(1);
        let base = self.redirect_uri.clone();
        let router = Router::new()
            .route(
                CALLBACK_PATH,
                get(
                    |State(arrived): State<Arc<Arrived>>, RawQuery(query): RawQuery| async move {
                        let url = match query {
                            Some(query) => format!("{}?{query}", arrived.base),
                            None => arrived.base.clone(),
                        };
                        let _ = arrived.sender.try_send(url);
                        Html(DONE_PAGE)
                    },
                ),
            )
            .with_state(Arc::new(Arrived { base, sender: arrived }));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = tokio::spawn(async move {
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
        });
        let received = tokio::time::timeout(wait, arrivals.recv()).await;
        let _ = stop.send(());
        let _ = serving.await;
        match received {
            Ok(Some(url)) => Ok(url),
            _ => Err(AuthError::Redirect(format!(
                "the browser did not come back to {} within {} s",
                self.redirect_uri,
                wait.as_secs()
            ))),
        }
    }

    /// The listener, for tokio (made from a clone, so that it keeps listening afterwards).
    fn tokio_listener(&self) -> Result<tokio::net::TcpListener, AuthError> {
        self.listener
            .try_clone()
            .and_then(tokio::net::TcpListener::from_std)
            .map_err(|e| AuthError::Redirect(format!("the loopback listener failed: {e}")))
    }
}

/// Where a callback handler sends the URL the browser came back to.
struct Arrived {
    base: String,
    sender: mpsc::Sender<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn gives_the_url_the_browser_came_back_to_and_keeps_its_port() {
        let redirect = Arc::new(LoopbackRedirect::bind(0).unwrap());
        let uri = redirect.redirect_uri().to_owned();
        assert!(
            uri.starts_with("http://127.0.0.1:") && uri.ends_with("/callback"),
            "{uri}"
        );
        for round in 0..2 {
            let waiting = tokio::spawn({
                let redirect = Arc::clone(&redirect);
                async move { redirect.receive(Duration::from_secs(10)).await }
            });
            let http = reqwest::Client::new();
            // A favicon request first, as browsers make, changes nothing.
            let base = uri.trim_end_matches("/callback");
            let _ = http.get(format!("{base}/favicon.ico")).send().await;
            let page = http.get(format!("{uri}?code=c{round}&state=s")).send().await.unwrap();
            assert!(page.text().await.unwrap().contains("You may close this window"));
            assert_eq!(waiting.await.unwrap().unwrap(), format!("{uri}?code=c{round}&state=s"));
        }
        let late = redirect.receive(Duration::from_millis(50)).await;
        assert!(matches!(late, Err(AuthError::Redirect(_))), "{late:?}");
    }
}
