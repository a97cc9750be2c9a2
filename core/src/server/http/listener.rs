//! The bundled listener: binds a socket and serves the endpoint's router on it.

use std::net::SocketAddr;

use tokio_util::sync::CancellationToken;

use super::HttpConfig;
use crate::server::Server;

/// A running HTTP listener.
pub struct HttpServerHandle {
    local_addr: SocketAddr,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
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

    /// Stops accepting connections and waits for the listener to end.
    pub async fn shutdown(self) -> std::io::Result<()> {
        self.shutdown.cancel();
        self.task.await.unwrap_or_else(|e| Err(std::io::Error::other(e)))
    }

    /// Waits until the listener ends.
    pub async fn wait(self) -> std::io::Result<()> {
        self.task.await.unwrap_or_else(|e| Err(std::io::Error::other(e)))
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
        use axum::serve::ListenerExt;
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let router = self.http_router(config);
        let shutdown = CancellationToken::new();
        let stop = shutdown.clone();
        let task = tokio::spawn(async move {
            axum::serve(listener, router)
                .with_graceful_shutdown(async move { stop.cancelled().await })
                .await
        });
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
