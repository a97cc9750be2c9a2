// The Kotlin client against the Rust fixture server, started by the test over HTTP, in both
// eras (and once over stdio).

package io.github.oxmcp.tests

import io.github.oxmcp.CallOptions
import io.github.oxmcp.Client
import io.github.oxmcp.ClientOptions
import io.github.oxmcp.CompletionReference
import io.github.oxmcp.ContentBlock
import io.github.oxmcp.CreateMessageRequest
import io.github.oxmcp.CreateMessageResult
import io.github.oxmcp.ElicitAction
import io.github.oxmcp.ElicitRequest
import io.github.oxmcp.ElicitResult
import io.github.oxmcp.ElicitationHandler
import io.github.oxmcp.HttpSettings
import io.github.oxmcp.TokenProvider
import io.github.oxmcp.Era
import io.github.oxmcp.EraMode
import io.github.oxmcp.LoggingLevel
import io.github.oxmcp.McpException
import io.github.oxmcp.NotificationListener
import io.github.oxmcp.ProgressListener
import io.github.oxmcp.ProgressUpdate
import io.github.oxmcp.ReconnectPolicy
import io.github.oxmcp.ResourceContents
import io.github.oxmcp.Root
import io.github.oxmcp.RootsHandler
import io.github.oxmcp.SamplingContent
import io.github.oxmcp.SamplingHandler
import io.github.oxmcp.ServerNotification
import io.github.oxmcp.StdioCommand
import io.github.oxmcp.jsonPointer
import io.github.oxmcp.notifications
import java.util.Collections
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.async
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.withTimeoutOrNull

/** The text of the first content block, which must be text. */
fun firstText(content: List<ContentBlock>): String =
    (content.first() as? ContentBlock.Text)?.text ?: error("not text: ${content.first()}")

/** Answers every elicitation by accepting `{"ok":true}` (or a name), and records the questions. */
class RecordingElicitation : ElicitationHandler {
    val questions: MutableList<ElicitRequest> = Collections.synchronizedList(mutableListOf())

    override suspend fun elicit(request: ElicitRequest): ElicitResult {
        questions += request
        val form = request as? ElicitRequest.Form ?: return ElicitResult(ElicitAction.DECLINE)
        val answer = if (form.requestedSchemaJson.contains("\"name\"")) """{"name":"Ada"}""" else """{"ok":true}"""
        return ElicitResult(ElicitAction.ACCEPT, answer)
    }
}

/** Answers every sampling request with "Paris", and records the requests. */
class RecordingSampling : SamplingHandler {
    val requests: MutableList<CreateMessageRequest> = Collections.synchronizedList(mutableListOf())

    override suspend fun createMessage(request: CreateMessageRequest): CreateMessageResult {
        requests += request
        delay(10) // a real model takes a while: the answer comes from another thread
        return CreateMessageResult(content = listOf(SamplingContent.Text("Paris")), model = "kotlin-test-model")
    }
}

/** Every notification, for tests to wait on. */
class Inbox : NotificationListener {
    val seen: MutableList<ServerNotification> = Collections.synchronizedList(mutableListOf())
    private val arrivals = Channel<ServerNotification>(Channel.UNLIMITED)

    override fun onNotification(notification: ServerNotification) {
        seen += notification
        arrivals.trySend(notification)
    }

    /** Waits (at most [timeoutMs]) for a notification that matches. */
    suspend fun await(timeoutMs: Long = 5_000, matches: (ServerNotification) -> Boolean): ServerNotification =
        poll(timeoutMs, matches) ?: throw AssertionFailed("no matching notification within $timeoutMs ms; seen: $seen")

    /** The next notification that matches, or null after [timeoutMs]. */
    suspend fun poll(timeoutMs: Long, matches: (ServerNotification) -> Boolean): ServerNotification? =
        withTimeoutOrNull(timeoutMs) {
            var found: ServerNotification? = null
            while (found == null) {
                val next = arrivals.receive()
                if (matches(next)) found = next
            }
            found
        }

    fun progressCount(): Int = synchronized(seen) { seen.count { it is ServerNotification.Progress } }

    /** Whether no notification so far matches (the listener may add one meanwhile: iterate under its lock). */
    fun none(matches: (ServerNotification) -> Boolean): Boolean = synchronized(seen) { seen.none(matches) }
}

class ProgressInbox : ProgressListener {
    val updates: MutableList<ProgressUpdate> = Collections.synchronizedList(mutableListOf())
    val arrivals = Channel<ProgressUpdate>(Channel.UNLIMITED)

    override fun onProgress(update: ProgressUpdate) {
        updates += update
        arrivals.trySend(update)
    }
}

class ConnectedClient(val client: Client, val elicitation: RecordingElicitation, val sampling: RecordingSampling, val inbox: Inbox)

suspend fun connect(url: String, era: EraMode?): ConnectedClient {
    val elicitation = RecordingElicitation()
    val sampling = RecordingSampling()
    val inbox = Inbox()
    val roots = object : RootsHandler {
        override suspend fun listRoots() = listOf(Root("file:///work/a", "a"), Root("file:///work/b"))
    }
    val options = ClientOptions(
        name = "kotlin-tests",
        version = "1.0",
        era = era,
        timeoutMs = 20_000,
        elicitation = elicitation,
        sampling = sampling,
        roots = roots,
        notifications = inbox,
    )
    return ConnectedClient(Client.connectHttp(url, options), elicitation, sampling, inbox)
}

/** Runs [body] with a fresh client of [url] in [era], and disconnects. */
suspend fun withClient(url: String, era: EraMode?, body: suspend (ConnectedClient) -> Unit) {
    val connected = connect(url, era)
    try {
        body(connected)
    } finally {
        connected.client.disconnect()
        connected.client.close()
    }
}

fun clientTests(suite: Suite) {
    val fixtureServer by lazy {
        HttpServerProcess(property("oxmcp.fixtureServer")).also { server -> suite.cleanup { server.close() } }
    }

    suite.test("client: auto mode settles on the modern era with the fixture server") {
        withClient(fixtureServer.url, null) { c ->
            val details = c.client.serverDetails()
            assertEquals(Era.MODERN, details.era, "era")
            assertEquals("2026-07-28", details.protocolVersion, "version")
            assertEquals("oxmcp-fixture", details.serverInfo?.name, "server name")
            check(details.capabilitiesJson.contains("\"tools\"")) { "capabilities: ${details.capabilitiesJson}" }
        }
    }

    for (era in listOf(EraMode.LEGACY, EraMode.MODERN)) {
        val tag = "client/${era.name.lowercase()}"

        suite.test("$tag: connects in the era asked for") {
            withClient(fixtureServer.url, era) { c ->
                val expected = if (era == EraMode.LEGACY) Era.LEGACY else Era.MODERN
                assertEquals(expected, c.client.serverDetails().era, "era")
                c.client.ping()
            }
        }

        suite.test("$tag: lists tools with their schemas and calls them") {
            withClient(fixtureServer.url, era) { c ->
                val tools = c.client.listAllTools()
                val names = tools.map { it.name }
                for (name in listOf("echo", "add", "slow", "fail", "confirm", "ask_llm")) {
                    check(name in names) { "$name missing from $names" }
                }
                val echo = tools.first { it.name == "echo" }
                assertEquals("Send the text back", echo.description, "echo's description")
                assertEquals("\"string\"", jsonPointer(echo.inputSchemaJson, "/properties/text/type"), "echo's schema")
                assertEquals(true, echo.annotations?.readOnlyHint, "echo's annotations")
                check(tools.first { it.name == "add" }.outputSchemaJson != null) { "add has an output schema" }

                val page = c.client.listTools()
                assertEquals(tools.size, page.tools.size, "one page holds every tool")

                val result = c.client.callTool("echo", """{"text":"hello from kotlin"}""")
                assertEquals(false, result.isError, "isError")
                assertEquals("hello from kotlin", firstText(result.content), "echo")

                val sum = c.client.callTool("add", """{"a":2,"b":40}""")
                assertEquals("42", jsonPointer(sum.structuredContentJson!!, "/result"), "structured sum")

                val image = c.client.callTool("image")
                val pixel = image.content[1] as ContentBlock.Image
                assertEquals("image/png", pixel.mimeType, "image type")
            }
        }

        suite.test("$tag: reads resources and templates, completes a variable") {
            withClient(fixtureServer.url, era) { c ->
                val resources = c.client.listAllResources()
                val readme = resources.first { it.uri == "file:///readme.md" }
                assertEquals("text/markdown", readme.mimeType, "readme's MIME type")
                val contents = c.client.readResource("file:///readme.md").contents.single() as ResourceContents.Text
                assertEquals("# oxmcp example\nHello.", contents.text, "readme")
                val blob = c.client.readResource("file:///pixel.bin").contents.single() as ResourceContents.Blob
                assertEquals("AAEC", blob.blob, "blob")

                val templates = c.client.listAllResourceTemplates()
                check(templates.any { it.uriTemplate == "greeting://{name}" }) { "templates: $templates" }
                val greeting = c.client.readResource("greeting://ada").contents.single() as ResourceContents.Text
                assertEquals("Hello, ada!", greeting.text, "greeting")

                val completion = c.client.complete(CompletionReference.ResourceTemplate("greeting://{name}"), "name", "a")
                assertEquals(listOf("ada", "alan"), completion.values, "completions")
            }
        }

        suite.test("$tag: gets a prompt with arguments") {
            withClient(fixtureServer.url, era) { c ->
                val review = c.client.listAllPrompts().first { it.name == "review" }
                assertEquals(listOf("code" to true, "language" to false), review.arguments.map { it.name to it.required }, "arguments")
                val prompt = c.client.getPrompt("review", mapOf("code" to "fn main() {}", "language" to "rust"))
                val message = prompt.messages.single()
                assertEquals("Please review this rust:\nfn main() {}", firstText(listOf(message.content)), "prompt text")
                val missing = assertThrows<McpException.Remote> { c.client.getPrompt("review") }
                assertEquals(-32602L, missing.code, "a missing required argument")
            }
        }

        suite.test("$tag: a Kotlin handler answers the server's elicitation") {
            withClient(fixtureServer.url, era) { c ->
                val result = c.client.callTool("confirm")
                assertEquals("confirmed: {\"ok\":true}", firstText(result.content), "confirm")
                val question = c.elicitation.questions.single() as ElicitRequest.Form
                assertEquals("Confirm?", question.message, "the question")
                assertEquals("\"boolean\"", jsonPointer(question.requestedSchemaJson, "/properties/ok/type"), "schema")
            }
        }

        suite.test("$tag: a Kotlin handler answers the server's sampling request") {
            withClient(fixtureServer.url, era) { c ->
                val result = c.client.callTool("ask_llm")
                assertEquals("the model said: Paris", firstText(result.content), "ask_llm")
                val request = c.sampling.requests.single()
                val asked = request.messages.single().content.single() as SamplingContent.Text
                assertEquals("What is the capital of France?", asked.text, "the question")
                assertEquals(200L, request.maxTokens, "maxTokens")
            }
        }

        suite.test("$tag: a Kotlin handler lists the roots") {
            withClient(fixtureServer.url, era) { c ->
                assertEquals("file:///work/a,file:///work/b", firstText(c.client.callTool("roots").content), "roots")
            }
        }

        suite.test("$tag: a Kotlin client says its roots changed") {
            withClient(fixtureServer.url, era) { c ->
                c.client.notifyRootsListChanged()
                val heard = c.inbox.poll(if (era == EraMode.LEGACY) 5_000 else 300) {
                    it is ServerNotification.LogMessage && it.logger == "roots"
                } as ServerNotification.LogMessage?
                if (era == EraMode.LEGACY) {
                    checkNotNull(heard) { "the server asked for the roots again and logged them" }
                    assertEquals("[\"file:///work/a\",\"file:///work/b\"]", heard.dataJson, "the roots it got")
                } else {
                    check(heard == null) { "2026-07-28 has no such notification: nothing was sent" }
                }
            }
        }

        suite.test("$tag: progress reaches the call's listener") {
            withClient(fixtureServer.url, era) { c ->
                val progress = ProgressInbox()
                val result = c.client.callTool("slow", """{"steps":3}""", CallOptions(progress = progress))
                assertEquals("done after 3 steps", firstText(result.content), "slow")
                assertEquals(listOf(1.0, 2.0, 3.0), progress.updates.map { it.progress }, "progress values")
                assertEquals(3.0, progress.updates.last().total, "total")
                assertEquals("step 3", progress.updates.last().message, "message")
            }
        }

        suite.test("$tag: cancelling the coroutine cancels the request") {
            withClient(fixtureServer.url, era) { c ->
                val progress = ProgressInbox()
                coroutineScope {
                    val call = async { c.client.callTool("slow", """{"steps":200}""", CallOptions(progress = progress)) }
                    withTimeout(5_000) { progress.arrivals.receive() } // the tool is running
                    val started = System.nanoTime()
                    call.cancel()
                    val outcome = runCatching { call.await() }.exceptionOrNull()
                    check(outcome is CancellationException) { "expected a cancellation, got $outcome" }
                    val tookMs = (System.nanoTime() - started) / 1_000_000
                    check(tookMs < 2_000) { "cancelling took $tookMs ms" }
                }
                // The server stops the tool: its progress notifications stop coming.
                delay(300)
                val before = c.inbox.progressCount()
                delay(500)
                assertEquals(before, c.inbox.progressCount(), "progress notifications after the cancellation")
                check(progress.updates.size < 50) { "the tool ran on: ${progress.updates.size} reports" }
                // The connection is still good.
                assertEquals("still here", firstText(c.client.callTool("echo", """{"text":"still here"}""").content), "echo")
            }
        }

        suite.test("$tag: a cancellation handle cancels the request") {
            withClient(fixtureServer.url, era) { c ->
                val handle = io.github.oxmcp.CancellationHandle()
                coroutineScope {
                    val call = async {
                        runCatching { c.client.callTool("slow", """{"steps":200}""", CallOptions(cancellation = handle)) }
                    }
                    delay(200)
                    check(!handle.isCancelled()) { "a new handle is not cancelled" }
                    handle.cancel()
                    val outcome = withTimeout(2_000) { call.await() }.exceptionOrNull()
                    check(outcome is McpException.Cancelled) { "expected Cancelled, got $outcome" }
                    check(handle.isCancelled()) { "the handle says it is cancelled" }
                }
            }
        }

        suite.test("$tag: lists, completions, reads and prompts take call options") {
            withClient(fixtureServer.url, era) { c ->
                val cancelled = CallOptions(cancellation = io.github.oxmcp.CancellationHandle().also { it.cancel() })
                assertThrows<McpException.Cancelled> { c.client.listTools(options = cancelled) }
                assertThrows<McpException.Cancelled> { c.client.listResources(options = cancelled) }
                assertThrows<McpException.Cancelled> { c.client.listResourceTemplates(options = cancelled) }
                assertThrows<McpException.Cancelled> { c.client.listPrompts(options = cancelled) }
                val greeting = CompletionReference.ResourceTemplate("greeting://{name}")
                assertThrows<McpException.Cancelled> { c.client.complete(greeting, "name", "a", options = cancelled) }
                assertThrows<McpException.Cancelled> { c.client.readResource("file:///readme.md", cancelled) }
                assertThrows<McpException.Cancelled> { c.client.getPrompt("review", mapOf("code" to "x"), cancelled) }
                val patient = CallOptions(timeoutMs = 5_000)
                check(c.client.listTools(options = patient).tools.isNotEmpty()) { "tools listed" }
                val names = c.client.complete(greeting, "name", "a", options = patient)
                assertEquals(listOf("ada", "alan"), names.values, "completions")
            }
        }

        suite.test("$tag: a call times out") {
            withClient(fixtureServer.url, era) { c ->
                val timeout = assertThrows<McpException.Timeout> {
                    c.client.callTool("slow", """{"steps":100}""", CallOptions(timeoutMs = 150))
                }
                assertEquals(150L, timeout.afterMs, "the timeout")
            }
        }

        suite.test("$tag: server errors surface as McpException, tool failures as isError") {
            withClient(fixtureServer.url, era) { c ->
                val unknown = assertThrows<McpException.Remote> { c.client.callTool("no_such_tool") }
                assertEquals(-32602L, unknown.code, "unknown tool")
                check(unknown.detail.contains("no_such_tool")) { "detail: ${unknown.detail}" }
                // Since 2025-11-25, arguments that break the schema are a tool error the model can read.
                val badArguments = c.client.callTool("add", """{"a":"two","b":1}""")
                assertEquals(true, badArguments.isError, "arguments that break the schema")
                check(firstText(badArguments.content).contains("invalid arguments")) { "text: ${badArguments.content}" }
                val failed = c.client.callTool("fail")
                assertEquals(true, failed.isError, "isError")
                check(firstText(failed.content).contains("the tool failed on purpose")) { "text: ${failed.content}" }
                assertThrows<McpException.InvalidInput> { c.client.callTool("echo", "{not json") }
                assertThrows<McpException.InvalidInput> { c.client.callTool("echo", "[1,2]") }
            }
        }

        suite.test("$tag: notifications come as a Flow, which completes once disconnected") {
            val c = connect(fixtureServer.url, era)
            c.client.setLogLevel(LoggingLevel.INFO)
            c.client.callTool("log")
            val log = withTimeout(5_000) { c.client.notifications().first { it is ServerNotification.LogMessage } }
            assertEquals(LoggingLevel.INFO, (log as ServerNotification.LogMessage).level, "the first level at or above info")
            c.client.disconnect()
            withTimeout(5_000) { c.client.notifications().toList() }
        }

        suite.test("$tag: log messages and resource updates reach the notification listener") {
            withClient(fixtureServer.url, era) { c ->
                c.client.setLogLevel(LoggingLevel.INFO)
                c.client.callTool("log")
                val log = c.inbox.await { it is ServerNotification.LogMessage } as ServerNotification.LogMessage
                assertEquals(LoggingLevel.INFO, log.level, "the first level at or above info")
                assertEquals("fixture", log.logger, "logger")
                check(c.inbox.none { it is ServerNotification.LogMessage && it.level == LoggingLevel.DEBUG }) {
                    "a debug message came through"
                }

                c.client.subscribeResource("file:///readme.md")
                c.client.callTool("touch", """{"name":"file:///readme.md"}""")
                val updated = c.inbox.await { it is ServerNotification.ResourceUpdated } as ServerNotification.ResourceUpdated
                assertEquals("file:///readme.md", updated.uri, "updated URI")
            }
        }
    }

    suite.test("client/http: headers and the bearer token reach the server") {
        // A bare JDK HTTP server that records the headers of what it is sent and answers 503.
        val seen = Collections.synchronizedList(mutableListOf<Map<String, String>>())
        val fake = com.sun.net.httpserver.HttpServer.create(java.net.InetSocketAddress("127.0.0.1", 0), 0)
        fake.createContext("/mcp") { exchange ->
            seen += exchange.requestHeaders.mapValues { it.value.joinToString(",") }.mapKeys { it.key.lowercase() }
            exchange.sendResponseHeaders(503, -1)
            exchange.close()
        }
        fake.start()
        try {
            var asked = 0
            val token = object : TokenProvider {
                override suspend fun token(): String? = "t0k3n-${++asked}"
            }
            val http = HttpSettings(headers = mapOf("X-Tenant" to "acme"), token = token, legacySseFallback = false)
            val options = ClientOptions(name = "kotlin-tests", version = "1.0", era = EraMode.MODERN, timeoutMs = 5_000)
            assertThrows<McpException> { Client.connectHttp("http://127.0.0.1:${fake.address.port}/mcp", options, http) }
            val first = seen.firstOrNull() ?: throw AssertionFailed("the server saw no request")
            assertEquals("acme", first["x-tenant"], "the extra header")
            assertEquals("Bearer t0k3n-1", first["authorization"], "the bearer token")
            assertThrows<McpException.InvalidInput> {
                Client.connectHttp("http://127.0.0.1:1/mcp", options, HttpSettings(headers = mapOf("bad header" to "x")))
            }
        } finally {
            fake.stop(0)
        }
    }

    suite.test("client/http: transport settings: request timeout, message size, reconnection") {
        val options = ClientOptions(name = "kotlin-tests", version = "1.0", era = EraMode.MODERN, timeoutMs = 20_000)
        val quick = Client.connectHttp(fixtureServer.url, options, HttpSettings(requestTimeoutMs = 300))
        try {
            // The slow tool answers after 2 s (no progress asked for): the HTTP request gives up first.
            val gaveUp = assertThrows<McpException.Remote> { quick.callTool("slow", """{"steps":40}""") }
            check(gaveUp.detail.contains("timed out")) { "detail: ${gaveUp.detail}" }
            assertEquals("fast", firstText(quick.callTool("echo", """{"text":"fast"}""").content), "a quick call")
        } finally {
            quick.disconnect()
            quick.close()
        }
        val small = Client.connectHttp(fixtureServer.url, options, HttpSettings(maxMessageSize = 4_096, reconnect = ReconnectPolicy(100, 1_000, 2)))
        try {
            assertEquals("short", firstText(small.callTool("echo", """{"text":"short"}""").content), "a short answer")
            val tooLarge = assertThrows<McpException.Remote> { small.callTool("echo", """{"text":"${"x".repeat(10_000)}"}""") }
            check(tooLarge.detail.contains("4096-byte limit")) { "detail: ${tooLarge.detail}" }
        } finally {
            small.disconnect()
            small.close()
        }
        for (bad in listOf(HttpSettings(connectTimeoutMs = -1), HttpSettings(maxMessageSize = -1), HttpSettings(reconnect = ReconnectPolicy(1, 1, -1)))) {
            assertThrows<McpException.InvalidInput> { Client.connectHttp(fixtureServer.url, options, bad) }
        }
        assertThrows<McpException.InvalidInput> { Client.connectHttp(fixtureServer.url, options.copy(timeoutMs = -1)) }
    }

    suite.test("client/stdio: a client freed without disconnect() still stops its server process") {
        val binary = java.io.File(property("oxmcp.fixtureServer")).canonicalPath
        fun servers() = ProcessHandle.current().children().filter { child ->
            child.info().command().map { java.io.File(it).canonicalPath == binary }.orElse(false)
        }.toList()
        val before = servers().map { it.pid() }.toSet()
        val options = ClientOptions(name = "kotlin-tests", version = "1.0", era = EraMode.MODERN)
        val client = Client.spawn(StdioCommand(program = binary, quiet = true), options)
        val spawned = servers().filter { it.pid() !in before }
        assertEquals(1, spawned.size, "server processes started")
        client.ping()
        client.close() // frees the native object; no disconnect()
        withTimeout(10_000) {
            while (spawned.single().isAlive) delay(50)
        }
    }

    suite.test("client/stdio: the client's limits hold against fixture-hostile, a server that misbehaves on purpose") {
        val slowRoots = object : RootsHandler {
            override suspend fun listRoots(): List<Root> {
                delay(500) // long enough for the flood to pile up
                return listOf(Root("file:///work"))
            }
        }
        val limited = ClientOptions(
            name = "kotlin-tests", version = "1.0", era = EraMode.LEGACY, roots = slowRoots, maxListPages = 3, maxServerRequests = 2,
        )
        val hostile = StdioCommand(program = property("oxmcp.fixtureHostile"), quiet = true)
        val client = Client.spawn(hostile, limited)
        try {
            val endless = assertThrows<McpException.Protocol> { client.listAllTools() }
            check(endless.detail.contains("3 pages")) { "detail: ${endless.detail}" }
            assertEquals("2 answered, 4 refused", firstText(client.callTool("flood", """{"count":6}""").content), "the flood")
        } finally {
            client.disconnect()
            client.close()
        }
        val unlimited = Client.spawn(hostile, limited.copy(maxServerRequests = 16))
        try {
            assertEquals("6 answered, 0 refused", firstText(unlimited.callTool("flood", """{"count":6}""").content), "the flood")
        } finally {
            unlimited.disconnect()
            unlimited.close()
        }
        assertThrows<McpException.InvalidInput> { Client.spawn(hostile, limited.copy(maxListPages = -1)) }
    }

    suite.test("client/stdio: spawns the fixture server and talks to it") {
        val options = ClientOptions(name = "kotlin-tests", version = "1.0", era = EraMode.LEGACY)
        val program = property("oxmcp.fixtureServer")
        assertThrows<McpException.InvalidInput> { Client.spawn(StdioCommand(program = program, shutdownGraceMs = -1), options) }
        val command = StdioCommand(program = program, quiet = true, maxMessageSize = 1_000_000, shutdownGraceMs = 1_000)
        val client = Client.spawn(command, options)
        try {
            assertEquals(Era.LEGACY, client.serverDetails().era, "era")
            assertEquals("over stdio", firstText(client.callTool("echo", """{"text":"over stdio"}""").content), "echo")
        } finally {
            client.disconnect()
            client.close()
        }
    }
}
