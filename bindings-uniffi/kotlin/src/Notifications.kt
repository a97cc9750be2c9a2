// Written by hand beside the bindings UniFFI generates (and compiled with them): the stream of
// notifications as Kotlin code consumes streams.

package io.github.oxmcp

import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow

/**
 * The connection's notifications (list changes, resource updates, log messages, progress) as
 * a [Flow] over [Client.nextNotification]: collecting it reads them in order, from the oldest
 * not read yet since the client connected, and completes once the client is disconnected.
 * Collectors share that one feed: collect it in one place.
 */
fun Client.notifications(): Flow<ServerNotification> = flow {
    while (true) {
        emit(nextNotification() ?: break)
    }
}
