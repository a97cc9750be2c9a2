// Written by hand beside the bindings UniFFI generates (and copied into the package with them):
// the stream of notifications as Swift code consumes streams.

extension Client {
    /// The connection's notifications (list changes, resource updates, log messages, progress)
    /// as an `AsyncStream` over `nextNotification()`: in order, from the oldest not read yet
    /// since the client connected, ending once the client is disconnected. Iterations share
    /// that one feed: iterate it in one place.
    public var notifications: AsyncStream<ServerNotification> {
        AsyncStream(unfolding: { await self.nextNotification() })
    }
}
