// The Kotlin server (tools, resources and prompts implemented in Kotlin) served by the oxmcp
// core over HTTP to the Kotlin client in both eras, and over stdio to the Rust fixture client.

package io.github.oxmcp.tests

import io.github.oxmcp.CallOptions
import io.github.oxmcp.CancellationHandle
import io.github.oxmcp.CompletionReference
import io.github.oxmcp.ContentBlock
import io.github.oxmcp.DefinitionKind
import io.github.oxmcp.EraMode
import io.github.oxmcp.Icon
import io.github.oxmcp.McpException
import io.github.oxmcp.ResourceContents
import io.github.oxmcp.Returned
import io.github.oxmcp.Server
import io.github.oxmcp.ServerNotification
import io.github.oxmcp.ServerOptions
import io.github.oxmcp.SubscriptionFilter
import io.github.oxmcp.Tool
import io.github.oxmcp.jsonPointer
import io.github.oxmcp.jsonPointerString
import java.util.concurrent.TimeUnit
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.async
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout

/** The `com.example/tag` member of a `_meta` object given as JSON text (see [tag]). */
fun tagOf(metaJson: String?): String? = metaJson?.let { jsonPointerString(it, "/com.example~1tag") }

/**
 * The server [make] builds, served over HTTP on first use (shut down and freed when the
 * suite ends), and its URL.
 */
fun Suite.servedHttp(make: () -> Server): Lazy<Pair<Server, String>> = lazy {
    val server = make()
    val url = runBlocking { server.serveHttp("127.0.0.1:0") }
    cleanup {
        runBlocking { server.shutdown() }
        server.close()
    }
    server to url
}

fun serverTests(suite: Suite) {
    val probe = ServerProbe()
    val served by suite.servedHttp { kotlinServer(probe) }
    val url by lazy { served.second }

    suite.test("server: serveHttp binds loopback and returns the endpoint's URL") {
        check(Regex("""http://127\.0\.0\.1:\d+/mcp""").matches(url)) { "url: $url" }
    }

    suite.test("server: a tool reads, renders and calls what its own server offers, and pings its client") {
        val server = kotlinServer()
        server.addTool(
            Tool(name = "own", description = "Uses its own server", inputSchemaJson = NO_ARGUMENTS),
            tool { _, context ->
                context.ping()
                val memo = context.readResource("memo://today").contents.first() as ResourceContents.Text
                val review = context.getPrompt("review", mapOf("code" to "x = 1")).messages.first().content as ContentBlock.Text
                val sum = firstText(context.callTool("add", """{"a":2,"b":3}""").content)
                val refused = assertThrows<McpException.Remote> { context.callTool("add", """{"a":"two"}""") }
                Returned.Text("${memo.text} | ${review.text} | $sum | ${refused.code}")
            },
        )
        try {
            val url = server.serveHttp("127.0.0.1:0")
            for (era in listOf(EraMode.LEGACY, EraMode.MODERN)) {
                withClient(url, era) { c ->
                    val said = firstText(c.client.callTool("own").content)
                    assertEquals("buy milk | Please review this code:\nx = 1 | 5 | -32602", said, "$era")
                }
            }
        } finally {
            server.shutdown()
            server.close()
        }
    }

    suite.test("server: lists told changed by the server, by a handler to its own client, and by enabling") {
        val server = kotlinServer()
        server.addTool(
            Tool(name = "tell", inputSchemaJson = NO_ARGUMENTS),
            tool { _, context ->
                context.notifySessionListChanged(DefinitionKind.PROMPT)
                Returned.Text("told")
            },
        )
        try {
            val url = server.serveHttp("127.0.0.1:0")
            for (era in listOf(EraMode.LEGACY, EraMode.MODERN)) {
                withClient(url, era) { c ->
                    c.client.listen(SubscriptionFilter(toolsListChanged = true, promptsListChanged = true, resourcesListChanged = true))
                    // A change told before the client's stream is up reaches nobody: tell until it arrives.
                    suspend fun heard(tell: suspend () -> Unit, matches: (ServerNotification) -> Boolean) =
                        (1..5).any { tell(); c.inbox.poll(1_000, matches) != null }
                    check(heard({ server.notifyListChanged(DefinitionKind.RESOURCE) }) { it is ServerNotification.ResourceListChanged }) { "$era: resources" }
                    check(heard({ c.client.callTool("tell") }) { it is ServerNotification.PromptListChanged }) { "$era: prompts" }
                    check(server.setEnabled(DefinitionKind.TOOL, "shout", false)) { "$era: disabled" }
                    check(c.inbox.poll(5_000) { it is ServerNotification.ToolListChanged } != null) { "$era: tools" }
                    check(c.client.listAllTools().none { it.name == "shout" }) { "$era: shout is hidden" }
                    check(!server.setEnabled(DefinitionKind.TOOL, "shout", false)) { "$era: disabled already" }
                    check(server.setEnabled(DefinitionKind.TOOL, "shout", true)) { "$era: enabled" }
                    check(c.client.listAllTools().any { it.name == "shout" }) { "$era: shout is back" }
                }
            }
        } finally {
            server.shutdown()
            server.close()
        }
    }

    suite.test("server: a definition the core rejects throws InvalidInput") {
        val server = Server("bad", "1.0")
        try {
            assertThrows<McpException.InvalidInput> {
                server.addTool(Tool(name = "bad name", inputSchemaJson = """{"type":"object"}"""), tool { _, _ -> Returned.Text("") })
            }
            assertThrows<McpException.InvalidInput> {
                server.addTool(Tool(name = "t", inputSchemaJson = """{"type":"string"}"""), tool { _, _ -> Returned.Text("") })
            }
            assertThrows<McpException.InvalidInput> {
                server.addTool(Tool(name = "t", inputSchemaJson = "{oops"), tool { _, _ -> Returned.Text("") })
            }
        } finally {
            server.close()
        }
    }

    suite.test("server: ServerOptions bound each client's requests in flight and subscriptions") {
        val bounded = ServerProbe()
        val server = kotlinServer(bounded, ServerOptions(maxInFlight = 1, maxSubscriptions = 1, endGraceMs = 1_000))
        try {
            withClient(server.serveHttp("127.0.0.1:0"), EraMode.LEGACY) { c ->
                c.client.subscribeResource("memo://today")
                val tooMany = assertThrows<McpException.Remote> { c.client.subscribeResource("greeting://ada") }
                check(tooMany.detail.contains("at most 1")) { "subscribe: ${tooMany.detail}" }
                coroutineScope {
                    val call = async { c.client.callTool("wait_for_cancel") }
                    withTimeout(5_000) { bounded.handlerStarted.await() }
                    val busy = assertThrows<McpException.Remote> { c.client.callTool("shout", """{"text":"x"}""") }
                    check(busy.detail.contains("at most 1")) { "second call: ${busy.detail}" }
                    call.cancel()
                }
            }
        } finally {
            server.shutdown()
            server.close()
        }
    }

    suite.test("server: ServerOptions describe the server, page its lists and declare what will come") {
        val options = ServerOptions(
            title = "Described",
            description = "A server with options",
            websiteUrl = "https://example.com/described",
            icons = listOf(Icon(src = "https://example.com/icon.png", mimeType = "image/png")),
            pageSize = 1,
            declare = listOf("prompts"),
        )
        val server = Server("described", "2.0", null, options)
        try {
            for (name in listOf("a", "b", "c")) {
                server.addTool(Tool(name = name, inputSchemaJson = """{"type":"object"}"""), tool { _, _ -> Returned.Text(name) })
            }
            withClient(server.serveHttp("127.0.0.1:0"), EraMode.LEGACY) { c ->
                val details = c.client.serverDetails()
                assertEquals("Described", details.serverInfo?.title, "title")
                assertEquals("A server with options", details.serverInfo?.description, "description")
                assertEquals("https://example.com/described", details.serverInfo?.websiteUrl, "web site")
                val capabilities = details.capabilitiesJson
                check(jsonPointer(capabilities, "/prompts") != null && jsonPointer(capabilities, "/tools") != null) { capabilities }
                check(jsonPointer(capabilities, "/resources") == null) { "nothing says resources: $capabilities" }
                assertEquals(1, c.client.listTools(null).tools.size, "a page")
                assertEquals(listOf("a", "b", "c"), c.client.listAllTools().map { it.name }, "every page")
            }
        } finally {
            server.shutdown()
            server.close()
        }
        assertThrows<McpException.InvalidInput> { Server("bad", "1.0", null, ServerOptions(declare = listOf("logging"))).close() }
    }

    suite.test("server: ServerOptions refuse negative numbers") {
        val bad = listOf(
            ServerOptions(maxInFlight = -1),
            ServerOptions(maxSubscriptions = -1),
            ServerOptions(endGraceMs = -1),
            ServerOptions(clientRequestTimeoutMs = -1),
        )
        for (options in bad) {
            assertThrows<McpException.InvalidInput> { Server("bad", "1.0", null, options).close() }
        }
    }

    suite.test("server: a server freed without shutdown() stops listening") {
        val server = kotlinServer()
        val address = server.serveHttp("127.0.0.1:0")
        withClient(address, EraMode.MODERN) { c -> c.client.ping() }
        server.close() // frees the native object; no shutdown()
        val port = Regex(""":(\d+)/""").find(address)!!.groupValues[1].toInt()
        withTimeout(10_000) {
            while (true) {
                val refused = runCatching { java.net.Socket("127.0.0.1", port).close() }.isFailure
                if (refused) break
                delay(50)
            }
        }
    }

    for (era in listOf(EraMode.LEGACY, EraMode.MODERN)) {
        val tag = "server/${era.name.lowercase()}"

        suite.test("$tag: Kotlin tools are listed and called, arguments checked by the core") {
            withClient(url, era) { c ->
                assertEquals("oxmcp-kotlin-example", c.client.serverDetails().serverInfo?.name, "server name")
                assertEquals("A server written in Kotlin.", c.client.serverDetails().instructions, "instructions")
                val tools = c.client.listAllTools().associateBy { it.name }
                check("shout" in tools && "ask_name" in tools) { "tools: ${tools.keys}" }
                assertEquals("\"string\"", jsonPointer(tools.getValue("echo").inputSchemaJson, "/properties/text/type"), "schema")
                assertEquals("HELLO", firstText(c.client.callTool("shout", """{"text":"hello"}""").content), "shout")
                val sum = c.client.callTool("add", """{"a":20,"b":22}""")
                assertEquals("42", jsonPointer(sum.structuredContentJson!!, "/result"), "add")
                // The core checks arguments against the schema before the Kotlin handler runs.
                val missing = c.client.callTool("shout", "{}")
                assertEquals(true, missing.isError, "missing argument")
                check(firstText(missing.content).contains("invalid arguments")) { "text: ${missing.content}" }
            }
        }

        suite.test("$tag: any method through request(), with JSON text") {
            withClient(url, era) { c ->
                val listed = c.client.request("tools/list")
                check(jsonPointerString(listed, "/tools/0/name") != null) { "tools/list: $listed" }
                val called = c.client.request("tools/call", """{"name":"shout","arguments":{"text":"raw"}}""")
                assertEquals("RAW", jsonPointerString(called, "/content/0/text"), "raw call")
                val unknown = assertThrows<McpException.Remote> { c.client.request("no/such/method") }
                assertEquals(-32601L, unknown.code, "unknown method")
            }
        }

        suite.test("$tag: a Kotlin tool asks the client through its Context") {
            withClient(url, era) { c ->
                val runsBefore = probe.askRuns.get()
                val result = c.client.callTool("ask_name")
                assertEquals("hello Ada (${era.name})", firstText(result.content), "ask_name")
                assertEquals(1, c.elicitation.questions.size, "questions asked")
                // Modern era: the first run ends with input_required, the retry runs it again.
                val runs = probe.askRuns.get() - runsBefore
                assertEquals(if (era == EraMode.MODERN) 2 else 1, runs, "handler runs")
            }
        }

        suite.test("$tag: a Kotlin tool reports progress") {
            withClient(url, era) { c ->
                val progress = ProgressInbox()
                assertEquals("counted", firstText(c.client.callTool("count", null, CallOptions(progress = progress)).content), "count")
                assertEquals(listOf(1.0, 2.0, 3.0), progress.updates.map { it.progress }, "progress")
            }
        }

        suite.test("$tag: cancelling the client's coroutine cancels the Kotlin tool's coroutine") {
            withClient(url, era) { c ->
                probe.handlerStarted = CompletableDeferred()
                probe.handlerCancelled = CompletableDeferred()
                coroutineScope {
                    val call = async { c.client.callTool("wait_for_cancel") }
                    withTimeout(5_000) { probe.handlerStarted.await() }
                    call.cancel()
                    check(runCatching { call.await() }.exceptionOrNull() is CancellationException) { "not cancelled" }
                }
                withTimeout(5_000) { probe.handlerCancelled.await() }
            }
        }

        suite.test("$tag: Kotlin exceptions become tool errors or JSON-RPC errors") {
            withClient(url, era) { c ->
                val boom = c.client.callTool("boom")
                assertEquals(true, boom.isError, "isError")
                check(firstText(boom.content).contains("kotlin says no")) { "text: ${boom.content}" }
                val rejected = assertThrows<McpException.Remote> { c.client.callTool("reject") }
                assertEquals(-32042L, rejected.code, "code")
                assertEquals("rejected by kotlin", rejected.detail, "detail")
                assertEquals("\"test\"", jsonPointer(rejected.dataJson!!, "/why"), "data")
            }
        }

        suite.test("$tag: Kotlin resources, templates and prompts") {
            withClient(url, era) { c ->
                val memo = c.client.readResource("memo://today").contents.single() as ResourceContents.Text
                assertEquals("buy milk", memo.text, "memo")
                val greeting = c.client.readResource("greeting://grace").contents.single() as ResourceContents.Text
                assertEquals("Hello, grace!", greeting.text, "template")
                val unknown = assertThrows<McpException.Remote> { c.client.readResource("memo://tomorrow") }
                check(unknown.code == -32002L || unknown.code == -32602L) { "code ${unknown.code}" }
                val prompt = c.client.getPrompt("review", mapOf("code" to "val x = 1", "language" to "kotlin"))
                assertEquals("Please review this kotlin:\nval x = 1", firstText(listOf(prompt.messages.single().content)), "prompt")
                val languages = c.client.complete(CompletionReference.Prompt("review"), "language", "s")
                assertEquals(listOf("swift"), languages.values, "prompt argument completions")
                val names = c.client.complete(CompletionReference.ResourceTemplate("greeting://{name}"), "name", "a")
                assertEquals(listOf("ada", "alan"), names.values, "template variable completions")
                assertEquals(false, names.hasMore, "hasMore")
            }
        }

        suite.test("$tag: _meta crosses on content items, resource contents and results") {
            withClient(url, era) { c ->
                val result = c.client.callTool("tagged")
                assertEquals("result", tagOf(result.metaJson), "the result's _meta")
                val (text, image, embedded, link) = result.content
                assertEquals("text", tagOf((text as ContentBlock.Text).metaJson), "text item")
                assertEquals("image", tagOf((image as ContentBlock.Image).metaJson), "image item")
                embedded as ContentBlock.EmbeddedResource
                assertEquals("embedded", tagOf(embedded.metaJson), "embedded item")
                assertEquals("contents", tagOf((embedded.contents as ResourceContents.Text).metaJson), "embedded contents")
                assertEquals("link", tagOf((link as ContentBlock.ResourceLink).resource.metaJson), "resource link")

                val read = c.client.readResource("memo://today")
                assertEquals("contents", tagOf((read.contents.single() as ResourceContents.Text).metaJson), "read contents")
                assertEquals("read", tagOf(read.metaJson), "the read result's _meta")
                assertEquals(null, tagOf(c.client.readResource("greeting://ada").metaJson), "a result given no _meta")

                val prompt = c.client.getPrompt("review", mapOf("code" to "x"))
                assertEquals("prompt", tagOf(prompt.metaJson), "the prompt result's _meta")
                assertEquals("message", tagOf((prompt.messages.single().content as ContentBlock.Text).metaJson), "message")

                // The handler sees the request's _meta (a progress token here) and the client's capabilities.
                val seen = c.client.callTool("request_meta", null, CallOptions(progress = ProgressInbox())).content
                check(jsonPointer(firstText(seen), "/progressToken") != null) { "request _meta: ${firstText(seen)}" }
                val capabilities = (seen[1] as ContentBlock.Text).text
                check(jsonPointer(capabilities, "/elicitation") != null) { "client capabilities: $capabilities" }
                assertEquals("kotlin-tests 1.0", (seen[2] as ContentBlock.Text).text, "who the client said it is")
                // A legacy session has an id; a 2026-07-28 request over HTTP stands alone.
                val session = (seen[3] as ContentBlock.Text).text
                if (era == EraMode.LEGACY) check(Regex("[0-9a-f]{32}").matches(session)) { "session: $session" }
                else assertEquals("none", session, "no session for a modern request")

                // An item given no _meta has none.
                assertEquals(null, (c.client.callTool("shout", """{"text":"x"}""").content.single() as ContentBlock.Text).metaJson, "plain")
            }
        }

        suite.test("$tag: reading, listing, subscribing and getting a prompt take call options") {
            withClient(url, era) { c ->
                val handle = CancellationHandle()
                handle.cancel()
                val cancelled = CallOptions(cancellation = handle)
                assertThrows<McpException.Cancelled> { c.client.listAllTools(cancelled) }
                assertThrows<McpException.Cancelled> { c.client.listAllResources(cancelled) }
                assertThrows<McpException.Cancelled> { c.client.listAllResourceTemplates(cancelled) }
                assertThrows<McpException.Cancelled> { c.client.listAllPrompts(cancelled) }
                assertThrows<McpException.Cancelled> { c.client.subscribeResource("memo://today", cancelled) }
                assertThrows<McpException.InvalidInput> { c.client.unsubscribeResource("memo://today", CallOptions(timeoutMs = -1)) }
                check(c.client.listAllPrompts(CallOptions(timeoutMs = 10_000)).any { it.name == "review" }) { "listed with options" }
                c.client.subscribeResource("memo://today", CallOptions(timeoutMs = 10_000))
                assertThrows<McpException.Cancelled> { c.client.readResource("memo://today", CallOptions(cancellation = handle)) }
                assertThrows<McpException.Cancelled> { c.client.getPrompt("review", mapOf("code" to "x"), CallOptions(cancellation = handle)) }
                assertThrows<McpException.InvalidInput> { c.client.readResource("memo://today", CallOptions(timeoutMs = -1)) }
                val read = c.client.readResource("memo://today", CallOptions(timeoutMs = 10_000))
                assertEquals("buy milk", (read.contents.single() as ResourceContents.Text).text, "read with options")
            }
        }

        suite.test("$tag: tools added and removed at runtime, with list-changed notifications") {
            withClient(url, era) { c ->
                c.client.listen(SubscriptionFilter(toolsListChanged = true))
                val (server, _) = served
                val name = "temp_${era.name.lowercase()}"
                // Legacy era: the notification travels on the GET stream, which the client opens in the
                // background after the handshake; a change made before it is up reaches nobody. So
                // change the list until a notification comes (a few times at most), each time
                // replacing the tool the attempt before added.
                var notified = false
                for (attempt in 1..5) {
                    server.removeTool(name)
                    server.addTool(Tool(name = name, inputSchemaJson = """{"type":"object"}"""), tool { _, _ -> Returned.Text("temporary") })
                    notified = c.inbox.poll(1_000) { it is ServerNotification.ToolListChanged } != null
                    if (notified) break
                }
                check(notified) { "no ToolListChanged after 5 changes" }
                assertEquals("temporary", firstText(c.client.callTool(name).content), "the new tool")
                check(server.removeTool(name)) { "removeTool says it existed" }
                check(c.client.listAllTools().none { it.name == name }) { "the tool is gone" }
            }
        }
    }

    for (era in listOf(EraMode.LEGACY, EraMode.MODERN)) {
        suite.test("server/proxy/${era.name.lowercase()}: a server serves another through a client, under a namespace") {
            val upstream = connect(url, EraMode.MODERN)
            val front = Server("front", "1.0")
            try {
                front.proxy(upstream.client, "kt")
                val frontUrl = front.serveHttp("127.0.0.1:0")
                withClient(frontUrl, era) { c ->
                    val names = c.client.listAllTools().map { it.name }
                    check("kt_shout" in names && "shout" !in names) { "tools: $names" }
                    assertEquals("PROXIED", firstText(c.client.callTool("kt_shout", """{"text":"proxied"}""").content), "kt_shout")
                    // The Kotlin tool's question reaches the client of the proxy.
                    val asked = firstText(c.client.callTool("kt_ask_name").content)
                    check(asked.startsWith("hello Ada")) { "kt_ask_name: $asked" }
                    assertEquals(1, c.elicitation.questions.size, "questions asked of the proxy's client")
                }
            } finally {
                front.shutdown()
                front.close()
                upstream.client.disconnect()
                upstream.client.close()
            }
        }
    }

    suite.test("server/stdio: the Rust fixture client calls the Kotlin server") {
        val launcher = javaLauncher("io.github.oxmcp.tests.KotlinServerKt")
        val process = ProcessBuilder(property("oxmcp.fixtureClient"), launcher.path)
            .redirectErrorStream(true)
            .start()
        val output = StringBuilder()
        val reader = Thread { output.append(process.inputStream.bufferedReader().readText()) }
        reader.isDaemon = true
        reader.start()
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly()
            throw AssertionFailed("the Rust client did not finish: $output")
        }
        reader.join(5_000)
        assertEquals(0, process.exitValue(), "the Rust client's exit status (output: $output)")
        val text = output.toString()
        for (expected in listOf(
            "\"era\":\"legacy\"", "\"era\":\"modern\"", "oxmcp-kotlin-example", "\"text\":\"hello\"",
            "\"structuredContent\":{\"result\":5}", "Hello, ada!", "Please review this code:",
        )) {
            check(text.contains(expected)) { "missing <$expected> in:\n$text" }
        }
    }
}
