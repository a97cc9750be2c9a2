// A Kotlin server's tools as tasks (the 2026-07-28 tasks extension): a client that declares
// the extension gets a task to poll while the handler runs; one that does not gets the
// answer in place, or -32021 from a tool that requires a task.

package io.github.oxmcp.tests

import io.github.oxmcp.HttpOptions
import io.github.oxmcp.Returned
import io.github.oxmcp.Server
import io.github.oxmcp.TaskSupport
import io.github.oxmcp.Tool
import io.github.oxmcp.jsonPointer
import io.github.oxmcp.jsonPointerString
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
