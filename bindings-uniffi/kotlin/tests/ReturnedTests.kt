// The cross-language table of tool return values (tests/returned/cases.json) through a
// Kotlin server: each case's tool returns the value the table names, written as a Kotlin
// user would, and the wire result must be the table's. The Rust, Python and Node suites
// run the same table.

package io.github.oxmcp.tests

import io.github.oxmcp.CallToolResult
import io.github.oxmcp.ContentBlock
import io.github.oxmcp.EraMode
import io.github.oxmcp.Returned
import io.github.oxmcp.Server
import io.github.oxmcp.Tool
import io.github.oxmcp.jsonPointer
import io.github.oxmcp.jsonPointerString
import java.io.File

private const val ADA = """{"name":"Ada","age":36}"""
private val image = Returned.Content(ContentBlock.Image(data = "AAEC", mimeType = "image/png"))

/** The table's tools on a Kotlin server. */
private fun returnedServer(table: String): Server {
    val server = Server("returned", "1.0.0")
    fun add(name: String, value: Returned, outputSchema: String? = null) = server.addTool(
        Tool(name = name, inputSchemaJson = """{"type":"object"}""", outputSchemaJson = outputSchema?.let { jsonPointer(table, it) }),
        tool { _, _ -> value },
    )
    add("text", Returned.Text("hello"))
    add("number", Returned.Json("42"))
    add("object", Returned.Json(ADA))
    add("object_structured", Returned.Json(ADA), "/objectSchema")
    add("number_structured", Returned.Json("42"), "/numberSchema")
    add("list", Returned.Items(listOf(Returned.Text("a"), Returned.Json("1"))))
    add("none", Returned.Empty)
    add("bytes", Returned.Bytes(byteArrayOf(0, 1, 2)))
    add("image", image)
    add("content_blocks", Returned.Items(listOf(Returned.Content(ContentBlock.Text(text = "a")), image)))
    add("complete", Returned.Complete(CallToolResult(content = listOf(ContentBlock.Text(text = "as is")), isError = true)))
    server.addTool(
        Tool(name = "error", inputSchemaJson = """{"type":"object"}"""),
        tool { _, _ -> throw IllegalStateException("boom") },
    )
    return server
}

fun returnedTests(suite: Suite) {
    val table = File("tests/returned/cases.json").readText()
    val served by suite.servedHttp { returnedServer(table) }
    val url by lazy { served.second }
    for (era in listOf(EraMode.LEGACY, EraMode.MODERN)) {
        suite.test("returned/${era.name.lowercase()}: every case of the table gives its wire result") {
            withClient(url, era) { c ->
                var index = 0
                while (true) {
                    val name = jsonPointerString(table, "/cases/$index/name") ?: break
                    val result = c.client.request("tools/call", """{"name":"$name"}""")
                    // The members a handler decides; what the era adds (resultType, _meta) aside.
                    for (member in listOf("content", "structuredContent", "isError")) {
                        val expected = jsonPointer(table, "/cases/$index/result/$member")
                        assertEquals(expected, jsonPointer(result, "/$member"), "$name: $member")
                    }
                    index++
                }
                check(index == 12) { "the table has $index cases" }
            }
        }
    }
}
