// The HTTP endpoint's settings (HttpOptions) of a Kotlin server: path, stateless mode, Origin
// and Host checks, body limit, JSON-only answers, session limit, the old HTTP+SSE endpoints,
// CORS, the other bounds, and shutdown by its deadline. Checked with the Kotlin client and
// with raw HTTP requests.

package io.github.oxmcp.tests

import io.github.oxmcp.CallOptions
import io.github.oxmcp.Client
import io.github.oxmcp.ClientOptions
import io.github.oxmcp.EraMode
import io.github.oxmcp.EventBytesKept
import io.github.oxmcp.HttpOptions
import io.github.oxmcp.McpException
import io.github.oxmcp.Server
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout

/** Serves a fresh [kotlinServer] with [options], runs [body] with its URL, and stops it. */
suspend fun withServer(options: HttpOptions?, body: suspend (url: String) -> Unit) {
    val server = kotlinServer()
    try {
        body(server.serveHttp("127.0.0.1:0", options))
    } finally {
        server.shutdown()
        server.close()
    }
}

/** The legacy `notifications/initialized` a client sends after `initialize`. */
const val INITIALIZED = """{"jsonrpc":"2.0","method":"notifications/initialized"}"""

/** A `tools/call` of `wait_for_cancel`, which runs until cancelled. */
const val WAIT_FOR_CANCEL = """{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait_for_cancel"}}"""

/** The headers of a request as an MCP client sends it (JSON, accepting JSON or SSE). */
val JSON_REQUEST = mapOf("Content-Type" to "application/json", "Accept" to "application/json, text/event-stream")

/** The port's root URL of an endpoint URL, e.g. `http://127.0.0.1:4000`. */
fun origin(url: String): String = java.net.URI(url).let { "${it.scheme}://${it.host}:${it.port}" }

fun httpOptionsTests(suite: Suite) {
    suite.test("server/http-options: a custom path in stateless mode serves both eras without sessions") {
        withServer(HttpOptions(path = "/custom/mcp", stateless = true)) { url ->
            check(url.endsWith("/custom/mcp")) { "url: $url" }
            for (era in listOf(EraMode.LEGACY, EraMode.MODERN)) {
                withClient(url, era) { c ->
                    assertEquals("HI", firstText(c.client.callTool("shout", """{"text":"hi"}""").content), "shout ($era)")
                }
            }
            val initialized = rawPost(url)
            assertEquals(200, initialized.status, "initialize")
            assertEquals(null, initialized.headers["mcp-session-id"], "session id in stateless mode")
            assertEquals(405, rawRequest(url, "GET", headers = mapOf("Accept" to "text/event-stream")).status, "GET stream")
            assertEquals(404, rawRequest(url, "POST", path = "/mcp").status, "the default path")
        }
        withServer(null) { url ->
            check(rawPost(url).headers["mcp-session-id"] != null) { "a stateful server gives a session id" }
        }
    }

    suite.test("server/http-options: allowed origins refuse other pages with 403") {
        withServer(HttpOptions(allowedOrigins = listOf("https://app.example"))) { url ->
            assertEquals(200, rawPost(url, headers = mapOf("Origin" to "https://app.example")).status, "allowed origin")
            assertEquals(200, rawPost(url, headers = mapOf("Origin" to "https://app.example:8443")).status, "any port")
            assertEquals(403, rawPost(url, headers = mapOf("Origin" to "https://evil.example")).status, "other origin")
            assertEquals(403, rawPost(url, headers = mapOf("Origin" to "http://localhost")).status, "loopback, no longer allowed")
            assertEquals(200, rawPost(url).status, "no Origin (not a browser)")
        }
        withServer(null) { url ->
            assertEquals(403, rawPost(url, headers = mapOf("Origin" to "https://app.example")).status, "default: loopback pages only")
        }
    }

    suite.test("server/http-options: allowed hosts refuse other Host names with 403") {
        withServer(HttpOptions(allowedHosts = listOf("mcp.example"))) { url ->
            assertEquals(200, rawPost(url, headers = mapOf("Host" to "mcp.example")).status, "allowed host")
            assertEquals(403, rawPost(url).status, "127.0.0.1 is no longer allowed")
        }
        withServer(HttpOptions(allowedHosts = emptyList())) { url ->
            assertEquals(200, rawPost(url, headers = mapOf("Host" to "anything.example")).status, "an empty list allows any host")
        }
        withServer(null) { url ->
            assertEquals(403, rawPost(url, headers = mapOf("Host" to "mcp.example")).status, "default: loopback names only")
        }
    }

    suite.test("server/http-options: a body over the limit gets 413") {
        withServer(HttpOptions(bodyLimit = 1_000)) { url ->
            assertEquals(200, rawPost(url).status, "a small body")
            assertEquals(413, rawPost(url, initializeBody("x".repeat(2_000))).status, "a large body")
        }
        withServer(null) { url ->
            assertEquals(200, rawPost(url, initializeBody("x".repeat(2_000))).status, "default limit: 4 MiB")
        }
    }

    suite.test("server/http-options: JSON-only answers drop the progress of a request") {
        withServer(HttpOptions(jsonResponse = true)) { url ->
            withClient(url, EraMode.MODERN) { c ->
                val progress = ProgressInbox()
                val result = c.client.callTool("count", null, CallOptions(progress = progress))
                assertEquals("counted", firstText(result.content), "count")
                assertEquals(0, progress.updates.size, "progress reports")
            }
        }
    }

    suite.test("server/http-options: past the session limit, a new legacy client is refused") {
        withServer(HttpOptions(maxSessions = 1)) { url ->
            withClient(url, EraMode.LEGACY) { first ->
                assertThrows<McpException> { connect(url, EraMode.LEGACY).client.close() }
                assertEquals("STILL", firstText(first.client.callTool("shout", """{"text":"still"}""").content), "the first client")
                // The modern era has no sessions: it is not limited.
                withClient(url, EraMode.MODERN) { c -> c.client.ping() }
            }
        }
    }

    suite.test("server/http-options: the old HTTP+SSE endpoints when asked for") {
        withServer(HttpOptions(legacySse = true)) { url ->
            val options = ClientOptions(name = "kotlin-tests", version = "1.0", era = EraMode.LEGACY)
            val client = Client.connectHttp(origin(url) + "/sse", options)
            try {
                assertEquals("OLD", firstText(client.callTool("shout", """{"text":"old"}""").content), "shout")
            } finally {
                client.disconnect()
                client.close()
            }
        }
        withServer(null) { url ->
            assertEquals(404, rawRequest(url, "GET", path = "/sse", headers = mapOf("Accept" to "text/event-stream")).status, "off by default")
        }
    }

    suite.test("server/http-options: CORS origins get the CORS headers") {
        val page = "https://app.example"
        withServer(HttpOptions(allowedOrigins = listOf(page), corsOrigins = listOf(page))) { url ->
            val answer = rawPost(url, headers = mapOf("Origin" to page))
            assertEquals(page, answer.headers["access-control-allow-origin"], "allow-origin")
            assertEquals("mcp-session-id, www-authenticate, dpop-nonce", answer.headers["access-control-expose-headers"], "expose-headers")
        }
        withServer(HttpOptions(allowedOrigins = listOf(page))) { url ->
            assertEquals(null, rawPost(url, headers = mapOf("Origin" to page)).headers["access-control-allow-origin"], "no CORS by default")
        }
    }

    suite.test("server/http-options: bounds on connections, requests, events and time keep the endpoint working") {
        val bounds = HttpOptions(
            newSessionTimeoutMs = 5_000, headerReadTimeoutMs = 5_000, bodyReadTimeoutMs = 5_000, shutdownTimeoutMs = 1_000,
            maxConnections = 4, maxInFlight = 4, eventBytesKept = EventBytesKept(perSession = 65_536, total = 1L shl 20),
        )
        withServer(bounds) { url ->
            for (era in listOf(EraMode.LEGACY, EraMode.MODERN)) {
                withClient(url, era) { c ->
                    assertEquals("HI", firstText(c.client.callTool("shout", """{"text":"hi"}""").content), "shout ($era)")
                }
            }
        }
    }

    suite.test("server/http-options: shutdown() ends streams and requests in flight by the shutdown timeout") {
        // On each of two listeners, a legacy GET stream and a call that never ends. shutdown()
        // stops both: it ends the streams, lets the calls run until shutdownTimeoutMs,
        // cancels them, closes every connection, and returns only then.
        val probe = ServerProbe()
        val server = kotlinServer(probe)
        val open = mutableListOf<OpenRequest>()
        try {
            val options = HttpOptions(shutdownTimeoutMs = 3_000)
            val urls = listOf(server.serveHttp("127.0.0.1:0", options), server.serveHttp("127.0.0.1:0", options))
            for (url in urls) {
                val session = rawPost(url).headers["mcp-session-id"] ?: error("no session id")
                val headers = mapOf("Mcp-Session-Id" to session, "Mcp-Protocol-Version" to "2025-11-25")
                assertEquals(202, rawPost(url, INITIALIZED, headers).status, "initialized")
                val stream = OpenRequest(url, "GET", headers + ("Accept" to "text/event-stream")).also { open += it }
                assertEquals(200, stream.head().status, "GET stream")
                probe.handlerStarted = CompletableDeferred()
                open += OpenRequest(url, "POST", headers + JSON_REQUEST, WAIT_FOR_CANCEL)
                withTimeout(5_000) { probe.handlerStarted.await() }
            }
            withTimeout(10_000) { server.shutdown() }
            open.forEachIndexed { i, request -> check(request.closedWithin(500)) { "connection $i still open after shutdown()" } }
            withTimeout(1_000) { probe.handlerCancelled.await() }
            for (url in urls) check(refused(url)) { "$url still accepts connections" }
        } finally {
            open.forEach { it.close() }
            server.close()
        }
    }

    suite.test("server/http-options: negative numbers are refused") {
        val server = Server("bad", "1.0")
        try {
            val bad = listOf(
                HttpOptions(sessionIdleTimeoutMs = -1), HttpOptions(maxSessions = -1), HttpOptions(bodyLimit = -1),
                HttpOptions(eventsKept = -1), HttpOptions(retryMs = -1), HttpOptions(newSessionTimeoutMs = -1),
                HttpOptions(headerReadTimeoutMs = -1), HttpOptions(bodyReadTimeoutMs = -1), HttpOptions(shutdownTimeoutMs = -1),
                HttpOptions(maxConnections = -1), HttpOptions(maxInFlight = -1),
                HttpOptions(eventBytesKept = EventBytesKept(perSession = 1_024, total = -1)),
            )
            for (options in bad) {
                assertThrows<McpException.InvalidInput> { server.serveHttp("127.0.0.1:0", options) }
            }
        } finally {
            runBlocking { server.shutdown() }
            server.close()
        }
    }
}
