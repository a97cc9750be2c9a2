//! What arrives from the server, frame by frame: responses go to the requests waiting
//! for them, notifications (and progress) to their listeners, and the server's own
//! requests to [`server_requests`](super::server_requests).

use std::sync::Arc;

use super::{lock, Client, ServerNotification};
use crate::protocol::jsonrpc::{self, Incoming, Message};
use crate::transport::Frame;

impl Client {
    /// Routes one frame from the server; the read loop calls it for each, in order.
    pub(super) fn on_frame(&self, frame: Frame) {
        let (bytes, answering) = match frame {
            Frame::Message(bytes) => (bytes, None),
            Frame::Answering { message, request } => (message, Some(request)),
            Frame::Oversized { .. } => {
                tracing::warn!("dropped an oversized message from the server");
                return;
            }
            Frame::SessionExpired => return self.renew_session_now(),
        };
        let messages = match jsonrpc::parse(&bytes) {
            Ok(Incoming::Single(message)) => vec![message],
            Ok(Incoming::Batch(entries)) => entries.into_iter().filter_map(|e| e.ok()).collect(),
            Err(invalid) => {
                tracing::warn!(%invalid, "dropped an unreadable message from the server");
                return;
            }
        };
        for message in messages {
            match message {
                Message::Response(response) => {
                    lock(&self.inner.progress).remove(&response.id);
                    let _unknown = self.inner.connection.pending().resolve(response);
                }
                Message::Notification(notification) => {
                    let decoded = ServerNotification::decode(&notification.method, notification.params.as_deref());
                    if let ServerNotification::Progress(progress) = &decoded {
                        // Taken out of the map: the callback runs with no lock of the
                        // client held, so it may call the client (a Kotlin or Swift
                        // callback), or take a lock of its host (Python's GIL).
                        let watch = lock(&self.inner.progress)
                            .get(&progress.progress_token)
                            .map(|watch| (Arc::clone(&watch.arrived), watch.callback.clone()));
                        if let Some((arrived, callback)) = watch {
                            arrived.notify_one();
                            if let Some(callback) = callback {
                                callback(progress.clone());
                            }
                        }
                    }
                    if let ServerNotification::LogMessage(message) = &decoded {
                        if let Some(on_log) = self.relay_of(answering.as_ref()).and_then(|relay| relay.on_log) {
                            on_log(message.clone());
                        }
                    }
                    self.inner.lists.on_notification(&decoded);
                    if let Some(listener) = &self.inner.options.listener {
                        listener(&decoded);
                    }
                    self.tell_followers(&decoded);
                    let _ = self.inner.notifications.send(decoded);
                }
                Message::Request(request) => self.accept_server_request(request, answering.clone()),
            }
        }
    }
}
