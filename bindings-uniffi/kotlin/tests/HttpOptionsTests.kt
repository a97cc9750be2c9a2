// The HTTP endpoint's settings (HttpOptions) of a Kotlin server: path, stateless mode, Origin
// and Host checks, body limit, JSON-only answers, session limit, the old HTTP+SSE endpoints,
// CORS. Checked with the Kotlin client and with raw HTTP requests.

package io.github.oxmcp.tests

import io.github.oxmcp.CallOptions
import io.github.oxmcp.Client
import io.github.oxmcp.ClientOptions
import io.github.oxmcp.EraMode
import io.github.oxmcp.HttpOptions
import io.github.oxmcp.McpException
import io.github.oxmcp.Server
import kotlinx.coroutines.runBlocking

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
            assertEquals("mcp-session-id", answer.headers["access-control-expose-headers"], "expose-headers")
        }
        withServer(HttpOptions(allowedOrigins = listOf(page))) { url ->
            assertEquals(null, rawPost(url, headers = mapOf("Origin" to page)).headers["access-control-allow-origin"], "no CORS by default")
        }
    }

    suite.test("server/http-options: negative numbers are refused") {
        val server = Server("bad", "1.0")
        try {
            val bad = listOf(
                HttpOptions(sessionIdleTimeoutMs = -1), HttpOptions(maxSessions = -1), HttpOptions(bodyLimit = -1),
                HttpOptions(eventsKept = -1), HttpOptions(retryMs = -1),
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
