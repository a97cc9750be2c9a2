//! The bundled listener: binds a socket and serves the endpoint on it, within the
//! connection limits of its [`HttpConfig`]: a header-read timeout (which also closes idle
//! kept-alive connections), a cap on open connections, and a shutdown that lets requests
//! in flight finish up to a deadline.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::{Extension, Router};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower_layer::Layer;

use super::endpoint::Endpoint;
use super::HttpConfig;
use crate::server::Server;

/// A running HTTP listener.
pub struct HttpServerHandle {
    local_addr: SocketAddr,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<io::Result<()>>,
}

impl HttpServerHandle {
    /// The address the listener is bound to (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The endpoint's URL on this address.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.local_addr)
    }

    /// Stops serving: the listener closes, streams that only wait for events end, requests
    /// in flight may finish until the configured
    /// [`shutdown_timeout`](HttpConfig::shutdown_timeout), then they are cancelled and every
    /// connection is closed. Returns once all of that is done.
    pub async fn shutdown(self) -> io::Result<()> {
        self.shutdown.cancel();
        self.wait().await
    }

    /// Waits until the listener ends.
    pub async fn wait(self) -> io::Result<()> {
        self.task.await.unwrap_or_else(|e| Err(io::Error::other(e)))
    }
}

impl Server {
    /// Binds `addr` (use `127.0.0.1`: local servers must not listen on every interface)
    /// and serves the endpoint in the background. Sockets get `TCP_NODELAY`.
    pub async fn bind_http(
        &self,
        addr: impl tokio::net::ToSocketAddrs,
        config: HttpConfig,
    ) -> crate::Result<HttpServerHandle> {
        let listener = TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        let config = HttpConfig {
            guard: config.guard.for_address(local_addr.ip()),
            ..config
        };
        let endpoint = Endpoint::new(self.clone(), config, Some(&format!("http://{local_addr}")))?;
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(serve(listener, endpoint, shutdown.clone()));
        Ok(HttpServerHandle {
            local_addr,
            shutdown,
            task,
        })
    }

    /// Serves the endpoint on `addr` until the process ends.
    pub async fn serve_http(&self, addr: impl tokio::net::ToSocketAddrs, config: HttpConfig) -> crate::Result<()> {
        Ok(self.bind_http(addr, config).await?.wait().await?)
    }
}

/// What every connection of one listener shares.
struct Connections {
    router: Router,
    http: hyper::server::conn::http1::Builder,
    /// The endpoint's own: connections finish their requests in flight, then close.
    closing: CancellationToken,
    /// Connections close at once.
    aborting: CancellationToken,
    tracker: TaskTracker,
}

/// Accepts connections until `shutdown`, then shuts the endpoint down.
async fn serve(listener: TcpListener, endpoint: Arc<Endpoint>, shutdown: CancellationToken) -> io::Result<()> {
    let config = &endpoint.config;
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(config.header_read_timeout);
    let connections = Arc::new(Connections {
        router: Arc::clone(&endpoint).router(),
        http,
        closing: endpoint.closing.clone(),
        aborting: CancellationToken::new(),
        tracker: TaskTracker::new(),
    });
    let permits = Arc::new(Semaphore::new(config.max_connections.max(1)));
    loop {
        // A permit first: past the cap, clients wait in the listen backlog.
        let permit = tokio::select! {
            permit = Arc::clone(&permits).acquire_owned() => permit.map_err(io::Error::other)?,
            _ = shutdown.cancelled() => break,
        };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = shutdown.cancelled() => break,
        };
        match accepted {
            Ok((tcp, peer)) => {
                let _ = tcp.set_nodelay(true);
                let connection = Arc::clone(&connections);
                connections.tracker.spawn(connection.serve(tcp, peer, permit));
            }
            Err(error) => pause_after(&error).await,
        }
    }
    drop(listener);
    shut_down(&endpoint, &connections).await;
    Ok(())
}

/// The listener stops, streams that only wait end, requests in flight may finish until the
/// deadline; then everything left is cancelled and closed.
async fn shut_down(endpoint: &Endpoint, connections: &Connections) {
    endpoint.begin_close();
    connections.tracker.close();
    let finished = tokio::time::timeout(endpoint.config.shutdown_timeout, connections.tracker.wait()).await;
    if finished.is_err() {
        tracing::debug!("shutdown deadline reached: cancelling the requests still in flight");
    }
    endpoint.end_all();
    connections.aborting.cancel();
    connections.tracker.wait().await;
}

impl Connections {
    /// Serves one connection until it ends, the listener shuts down gracefully (after its
    /// request in flight), or shutdown aborts it.
    async fn serve(self: Arc<Self>, tcp: TcpStream, peer: SocketAddr, permit: OwnedSemaphorePermit) {
        let _permit = permit;
        // Handlers see the peer (`HttpRequest::peer`), as under axum's `ConnectInfo`.
        let router = Extension(ConnectInfo(peer)).layer(self.router.clone());
        let service = TowerToHyperService::new(router);
        let connection = self.http.serve_connection(TokioIo::new(tcp), service);
        let mut connection = std::pin::pin!(connection);
        tokio::select! {
            _ = connection.as_mut() => return,
            _ = self.closing.cancelled() => connection.as_mut().graceful_shutdown(),
            _ = self.aborting.cancelled() => return,
        }
        tokio::select! {
            _ = connection => {}
            _ = self.aborting.cancelled() => {}
        }
    }
}

/// After a failed accept: connection-level errors (the peer gave up) are the peer's;
/// anything else (out of file descriptors) calls for a pause before trying again.
async fn pause_after(error: &io::Error) {
    use io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if !matches!(error.kind(), ConnectionAborted | ConnectionRefused | ConnectionReset) {
        tracing::warn!(%error, "accepting a connection failed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
