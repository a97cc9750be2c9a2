// A Kotlin server's tools as tasks: a 2026-07-28 client that declares the extension gets a
// task to poll while the handler runs; one that does not gets the answer in place, or
// -32021 from a tool that requires a task. The Kotlin client's ToolTask polls, waits for,
// reads and cancels tasks in both eras; a server's task store keeps them across servers.

package io.github.oxmcp.tests

import io.github.oxmcp.CallOptions
import io.github.oxmcp.ElicitAction
import io.github.oxmcp.ElicitRequest
import io.github.oxmcp.EraMode
import io.github.oxmcp.HttpOptions
import io.github.oxmcp.McpException
import io.github.oxmcp.Returned
import io.github.oxmcp.Server
import io.github.oxmcp.ServerOptions
import io.github.oxmcp.TaskStatus
import io.github.oxmcp.TaskSupport
import io.github.oxmcp.Tool
import io.github.oxmcp.jsonPointer
import io.github.oxmcp.jsonPointerString
import java.nio.file.Files
import kotlinx.coroutines.delay
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse

fun tasksTests(suite: Suite) {
    suite.test("tasks: a Kotlin tool runs as a task for clients that declare the extension") {
        val server = Server("tasks", "1.0.0", null, null)
        server.addTool(Tool(name = "compute", inputSchemaJson = NO_ARGUMENTS), tool { _, _ -> Returned.Text("computed") }, task = TaskSupport.OPTIONAL)
        server.addTool(Tool(name = "must", inputSchemaJson = NO_ARGUMENTS), tool { _, _ -> Returned.Text("ok") }, task = TaskSupport.REQUIRED)
        try {
            val url = server.serveHttp("127.0.0.1:0", HttpOptions(jsonResponse = true))
            val created = modernPost(url, "tools/call", """"name":"compute","arguments":{}""", "compute", tasks = true)
            assertEquals("task", jsonPointerString(created, "/result/resultType"), "a task: $created")
            val id = jsonPointerString(created, "/result/taskId") ?: throw AssertionFailed("no task id: $created")
            var polled = ""
            for (attempt in 1..250) {
                polled = modernPost(url, "tasks/get", """"taskId":"$id"""", id, tasks = true)
                if (jsonPointerString(polled, "/result/status") == "completed") break
                Thread.sleep(20)
            }
            assertEquals("computed", jsonPointerString(polled, "/result/result/content/0/text"), "the task's result: $polled")
            val inPlace = modernPost(url, "tools/call", """"name":"compute","arguments":{}""", "compute", tasks = false)
            assertEquals("computed", jsonPointerString(inPlace, "/result/content/0/text"), "in place: $inPlace")
            val refused = modernPost(url, "tools/call", """"name":"must","arguments":{}""", "must", tasks = false)
            assertEquals("-32021", jsonPointer(refused, "/error/code"), "a required task: $refused")
        } finally {
            server.shutdown()
            server.close()
        }
    }
}

/** A server whose `sleep` tool (waits `ms`) may run as a task, `confirm` must (it asks the user), and `plain` never does. */
fun taskServer(options: ServerOptions = ServerOptions(taskPollIntervalMs = 50)): Server {
    val server = Server("tasks", "1.0.0", null, options)
    val sleepSchema = """{"type":"object","properties":{"ms":{"type":"integer"}},"required":["ms"]}"""
    server.addTool(Tool(name = "sleep", inputSchemaJson = sleepSchema), tool { args, context ->
        val ms = jsonPointer(args, "/ms")!!.toLong()
        check(context.isTask()) { "a task" }
        context.taskStatus("sleeping $ms ms")
        delay(ms)
        Returned.Text("slept $ms ms")
    }, task = TaskSupport.OPTIONAL)
    server.addTool(Tool(name = "confirm", inputSchemaJson = NO_ARGUMENTS), tool { _, context ->
        val answer = context.elicit(ElicitRequest.Form(message = "Sure?", requestedSchemaJson = """{"type":"object","properties":{"ok":{"type":"boolean"}}}"""))
        Returned.Text(if (answer.action == ElicitAction.ACCEPT) "confirmed" else "declined")
    }, task = TaskSupport.REQUIRED)
    server.addTool(Tool(name = "greet_later", inputSchemaJson = NO_ARGUMENTS), tool { _, context ->
        val answer = context.elicit(ElicitRequest.Form(message = "Your name?", requestedSchemaJson = """{"type":"object","properties":{"name":{"type":"string"}}}"""))
        context.beginTask()
        check(context.isTask()) { "a task by now" }
        Returned.Text("Hello, ${jsonPointerString(answer.contentJson ?: "{}", "/name")}!")
    }, task = TaskSupport.REQUIRED, asksBeforeTask = true)
    server.addTool(Tool(name = "report", inputSchemaJson = NO_ARGUMENTS), tool { _, context ->
        for (step in 1..2) {
            delay(20)
            context.progress(step.toDouble(), 2.0)
        }
        Returned.Text("reported")
    }, task = TaskSupport.REQUIRED)
    server.addTool(Tool(name = "plain", inputSchemaJson = NO_ARGUMENTS), tool { _, _ -> Returned.Text("plain") })
    return server
}

fun taskHandleTests(suite: Suite) {
    for (era in listOf(EraMode.LEGACY, EraMode.MODERN)) {
        suite.test("tasks/${era.name.lowercase()}: a ToolTask polls, waits for, reads and cancels a task") {
            val server = taskServer()
            try {
                val url = server.serveHttp("127.0.0.1:0", HttpOptions())
                withClient(url, era) { c ->
                    val task = c.client.callToolAsTask("sleep", """{"ms":200}""")
                    assertEquals(32, task.id()?.length, "a task id")
                    assertEquals(TaskStatus.WORKING, task.status()?.status, "working")
                    assertEquals("slept 200 ms", firstText(task.result().content), "the result")
                    assertEquals(TaskStatus.COMPLETED, task.wait()?.status, "completed")

                    val long = c.client.callToolAsTask("sleep", """{"ms":10000}""")
                    var said = long.status()
                    for (poll in 1..100) {
                        if (said?.statusMessage != null) break
                        delay(20)
                        said = long.status()
                    }
                    assertEquals("sleeping 10000 ms", said?.statusMessage, "what the task says it does")
                    long.cancel()
                    assertEquals(TaskStatus.CANCELLED, long.wait()?.status, "cancelled")
                    assertThrows<McpException.Cancelled> { long.result() }

                    assertEquals("confirmed", firstText(c.client.callTool("confirm").content), "a required task, followed")
                    assertEquals("Hello, Ada!", firstText(c.client.callTool("greet_later").content), "asked, then a task")
                    if (era == EraMode.LEGACY) {
                        // 2025-11-25: the call's progress token stays valid while its task runs.
                        val progress = ProgressInbox()
                        val reported = c.client.callTool("report", null, CallOptions(progress = progress))
                        assertEquals("reported", firstText(reported.content), "the task's result")
                        assertEquals(listOf(1.0, 2.0), progress.updates.map { it.progress }, "progress through the task")
                    }
                    val plain = c.client.callToolAsTask("plain")
                    assertEquals(null, plain.id(), "answered in place")
                    assertEquals("plain", firstText(plain.result().content), "its answer")
                }
            } finally {
                server.shutdown()
                server.close()
            }
        }
    }

    suite.test("tasks: a session sees only its own tasks, and tasks expire") {
        val server = taskServer(ServerOptions(taskTtlMs = 500, taskPollIntervalMs = 50))
        try {
            val url = server.serveHttp("127.0.0.1:0", HttpOptions())
            withClient(url, EraMode.LEGACY) { one ->
                withClient(url, EraMode.LEGACY) { other ->
                    val task = one.client.callToolAsTask("sleep", """{"ms":0}""")
                    assertEquals("slept 0 ms", firstText(task.result().content), "its result")
                    val refused = assertThrows<McpException.Remote> { other.client.toolTask(task.id()!!).status() }
                    assertEquals(-32602L, refused.code, "another session's task")
                    delay(700)
                    val expired = assertThrows<McpException.Remote> { task.status() }
                    assertEquals(-32602L, expired.code, "an expired task")
                }
            }
        } finally {
            server.shutdown()
            server.close()
        }
    }

    suite.test("tasks: a task store keeps a finished task for the next server on the same file") {
        val file = Files.createTempFile("oxmcp-tasks", ".db")
        try {
            val options = ServerOptions(taskStore = file.toString(), taskPollIntervalMs = 50)
            val first = taskServer(options)
            val id: String
            try {
                val url = first.serveHttp("127.0.0.1:0", HttpOptions())
                id = withClientResult(url) { c ->
                    val task = c.client.callToolAsTask("sleep", """{"ms":0}""")
                    task.result()
                    task.id()!!
                }
            } finally {
                first.shutdown()
                first.close()
            }
            val second = taskServer(options)
            try {
                val url = second.serveHttp("127.0.0.1:0", HttpOptions())
                withClient(url, EraMode.MODERN) { c ->
                    assertEquals(TaskStatus.COMPLETED, c.client.toolTask(id).status()?.status, "kept")
                    assertEquals("slept 0 ms", firstText(c.client.toolTask(id).result().content), "its result")
                }
            } finally {
                second.shutdown()
                second.close()
            }
        } finally {
            Files.deleteIfExists(file)
        }
    }
}

/** What [body] gives with a fresh modern-era client of [url]. */
suspend fun <T> withClientResult(url: String, body: suspend (ConnectedClient) -> T): T {
    var outcome: T? = null
    withClient(url, EraMode.MODERN) { c -> outcome = body(c) }
    @Suppress("UNCHECKED_CAST")
    return outcome as T
}

/** The body of the answer to a 2026-07-28 request of [method] with [params] (its JSON members), naming [name], from a client that declares the tasks extension or not. */
fun modernPost(url: String, method: String, params: String, name: String, tasks: Boolean): String {
    val extensions = if (tasks) """{"io.modelcontextprotocol/tasks":{}}""" else "{}"
    val meta = """{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":$extensions},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}"""
    val body = """{"jsonrpc":"2.0","id":1,"method":"$method","params":{$params,"_meta":$meta}}"""
    val request = HttpRequest.newBuilder(URI(url))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method)
        .header("Mcp-Name", name)
        .POST(HttpRequest.BodyPublishers.ofString(body))
        .build()
    return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).body()
}
