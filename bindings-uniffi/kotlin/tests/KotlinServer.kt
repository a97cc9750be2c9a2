// A server written in Kotlin on the oxmcp core: the tools, resources and prompts of the
// example server that the Rust fixture client calls (echo, add, greeting://{name}, review),
// plus tools that exercise the binding (elicitation through the Context, progress,
// cancellation, errors). `main` serves it over stdio.

package io.github.oxmcp.tests

import io.github.oxmcp.CallToolResult
import io.github.oxmcp.CompletionHandler
import io.github.oxmcp.ContentBlock
import io.github.oxmcp.Context
import io.github.oxmcp.ElicitAction
import io.github.oxmcp.ElicitRequest
import io.github.oxmcp.GetPromptResult
import io.github.oxmcp.McpException
import io.github.oxmcp.Prompt
import io.github.oxmcp.PromptArgument
import io.github.oxmcp.PromptHandler
import io.github.oxmcp.PromptMessage
import io.github.oxmcp.ReadResourceResult
import io.github.oxmcp.Resource
import io.github.oxmcp.ResourceContents
import io.github.oxmcp.ResourceHandler
import io.github.oxmcp.ResourceTemplate
import io.github.oxmcp.Returned
import io.github.oxmcp.Role
import io.github.oxmcp.Server
import io.github.oxmcp.ServerOptions
import io.github.oxmcp.Tool
import io.github.oxmcp.ToolAnnotations
import io.github.oxmcp.ToolHandler
import io.github.oxmcp.jsonPointer
import io.github.oxmcp.jsonPointerString
import java.util.concurrent.atomic.AtomicInteger
import kotlin.system.exitProcess
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.runBlocking

/** What the tools of [kotlinServer] saw, for the tests to check. */
class ServerProbe {
    /** Completes when the handler of `wait_for_cancel` is cancelled. */
    @Volatile var handlerCancelled = CompletableDeferred<Unit>()
    /** Completes when the handler of `wait_for_cancel` has started. */
    @Volatile var handlerStarted = CompletableDeferred<Unit>()
    /** How many times `ask_name` ran (twice per call in the modern era: once per round). */
    val askRuns = AtomicInteger()
}

fun text(value: String): ContentBlock = ContentBlock.Text(text = value)

/** A tool handler from a suspend lambda. */
fun tool(body: suspend (argumentsJson: String, context: Context) -> Returned) = object : ToolHandler {
    override suspend fun call(argumentsJson: String, context: Context) = body(argumentsJson, context)
}

/** Completes with the [choices] that start with what the user typed. */
fun completer(vararg choices: String) = object : CompletionHandler {
    override suspend fun complete(value: String, context: Map<String, String>) = choices.filter { it.startsWith(value) }
}

private const val TEXT_SCHEMA =
    """{"type":"object","properties":{"text":{"type":"string","description":"The text to send back."}},"required":["text"]}"""
const val NO_ARGUMENTS = """{"type":"object"}"""

/** A `_meta` object naming where it was put: `{"com.example/tag": where}`. */
fun tag(where: String) = """{"com.example/tag":"$where"}"""

/** The contents of the memo resource, tagged. */
fun memo(uri: String) = ResourceContents.Text(uri = uri, text = "buy milk", mimeType = "text/plain", metaJson = tag("contents"))

fun kotlinServer(probe: ServerProbe = ServerProbe(), options: ServerOptions? = null): Server {
    val server = Server("oxmcp-kotlin-example", "0.1.0", "A server written in Kotlin.", options)
    server.addTool(
        Tool(
            name = "echo",
            description = "Send the text back",
            inputSchemaJson = TEXT_SCHEMA,
            annotations = ToolAnnotations(readOnlyHint = true),
        ),
        tool { args, _ -> Returned.Text(jsonPointerString(args, "/text")!!) },
    )
    server.addTool(
        Tool(
            name = "add",
            description = "Add two integers",
            inputSchemaJson = """{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}""",
            outputSchemaJson = """{"type":"object","properties":{"result":{"type":"integer"}},"required":["result"]}""",
        ),
        tool { args, _ ->
            // Data: its text as content, and (declared non-object) `{"result": sum}` as structure.
            Returned.Json((jsonPointer(args, "/a")!!.toLong() + jsonPointer(args, "/b")!!.toLong()).toString())
        },
    )
    server.addTool(
        Tool(name = "shout", description = "Upper-cases the text", inputSchemaJson = TEXT_SCHEMA),
        tool { args, _ -> Returned.Text(jsonPointerString(args, "/text")!!.uppercase()) },
    )
    server.addTool(
        Tool(name = "ask_name", description = "Asks the user's name (elicitation)", inputSchemaJson = NO_ARGUMENTS),
        tool { _, context ->
            probe.askRuns.incrementAndGet()
            val answer = context.elicit(
                ElicitRequest.Form(
                    message = "Your name?",
                    requestedSchemaJson = """{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}""",
                )
            )
            if (answer.action != ElicitAction.ACCEPT) {
                Returned.Text("no name: ${answer.action}")
            } else {
                Returned.Text("hello ${jsonPointerString(answer.contentJson!!, "/name")} (${context.era()})")
            }
        },
    )
    server.addTool(
        Tool(name = "count", description = "Reports progress three times", inputSchemaJson = NO_ARGUMENTS),
        tool { _, context ->
            for (step in 1..3) context.progress(step.toDouble(), 3.0, "step $step")
            Returned.Text("counted")
        },
    )
    server.addTool(
        Tool(name = "wait_for_cancel", description = "Runs until cancelled", inputSchemaJson = NO_ARGUMENTS),
        tool { _, _ ->
            try {
                probe.handlerStarted.complete(Unit)
                awaitCancellation()
            } finally {
                probe.handlerCancelled.complete(Unit)
            }
        },
    )
    server.addTool(
        Tool(name = "boom", description = "Throws a Kotlin exception", inputSchemaJson = NO_ARGUMENTS),
        tool { _, _ -> throw IllegalStateException("kotlin says no") },
    )
    server.addTool(
        Tool(name = "reject", description = "Answers with a JSON-RPC error", inputSchemaJson = NO_ARGUMENTS),
        tool { _, _ -> throw McpException.Remote(-32042L, "rejected by kotlin", """{"why":"test"}""") },
    )
    server.addTool(
        Tool(name = "tagged", description = "Content with _meta everywhere", inputSchemaJson = NO_ARGUMENTS),
        tool { _, _ ->
            Returned.Complete(CallToolResult(
                content = listOf(
                    ContentBlock.Text(text = "tagged", metaJson = tag("text")),
                    ContentBlock.Image(data = "AAEC", mimeType = "image/png", metaJson = tag("image")),
                    ContentBlock.EmbeddedResource(contents = memo("memo://today"), metaJson = tag("embedded")),
                    ContentBlock.ResourceLink(Resource(uri = "memo://today", name = "today", metaJson = tag("link"))),
                ),
                metaJson = tag("result"),
            ))
        },
    )
    server.addTool(
        Tool(name = "request_meta", description = "The request's _meta, the client's capabilities, who it is and its session", inputSchemaJson = NO_ARGUMENTS),
        tool { _, context ->
            val client = context.clientInfo()?.let { "${it.name} ${it.version}" } ?: "unknown"
            Returned.Items(
                listOf(
                    Returned.Text(context.metaJson() ?: "null"),
                    Returned.Text(context.clientCapabilitiesJson()),
                    Returned.Text(client),
                    Returned.Text(context.sessionId() ?: "none"),
                ),
            )
        },
    )
    server.addResource(
        Resource(uri = "memo://today", name = "today", mimeType = "text/plain"),
        object : ResourceHandler {
            override suspend fun read(uri: String, variables: Map<String, String>, context: Context) =
                ReadResourceResult(contents = listOf(memo(uri)), metaJson = tag("read"))
        },
    )
    server.addResourceTemplate(
        ResourceTemplate(uriTemplate = "greeting://{name}", name = "greeting", mimeType = "text/plain"),
        object : ResourceHandler {
            override suspend fun read(uri: String, variables: Map<String, String>, context: Context) =
                ReadResourceResult(
                    contents = listOf(ResourceContents.Text(uri = uri, text = "Hello, ${variables["name"]}!", mimeType = "text/plain")),
                    metaJson = null,
                )
        },
        mapOf("name" to completer("ada", "alan", "grace")),
    )
    server.addPrompt(
        Prompt(
            name = "review",
            description = "Review a piece of code",
            arguments = listOf(
                PromptArgument(name = "code", description = "The code to review", required = true),
                PromptArgument(name = "language", description = "Its language"),
            ),
        ),
        object : PromptHandler {
            override suspend fun get(arguments: Map<String, String>, context: Context): GetPromptResult {
                val language = arguments["language"] ?: "code"
                val request = ContentBlock.Text(text = "Please review this $language:\n${arguments["code"]}", metaJson = tag("message"))
                return GetPromptResult(messages = listOf(PromptMessage(Role.USER, request)), metaJson = tag("prompt"))
            }
        },
        mapOf("language" to completer("kotlin", "swift", "rust")),
    )
    return server
}

/** Serves [kotlinServer] over stdio until stdin closes. */
fun main() {
    val server = kotlinServer()
    runBlocking { server.serveStdio() }
    exitProcess(0)
}
