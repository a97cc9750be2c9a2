// A small test harness: named suspend tests run one after the other, each with a time
// limit; a closing line `N passed, N failed`; exit status 1 when anything failed.
// (No JUnit: the tests compile with kotlinc alone.)

package io.github.oxmcp.tests

import java.io.File
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout

class Suite {
    private val tests = mutableListOf<Pair<String, suspend () -> Unit>>()
    private val cleanups = mutableListOf<() -> Unit>()

    fun test(name: String, body: suspend () -> Unit) {
        tests += name to body
    }

    /** Runs after every test, last registered first (stops processes, servers). */
    fun cleanup(action: () -> Unit) {
        cleanups += action
    }

    /** Runs the tests whose names contain [filter]; returns how many failed. */
    fun run(filter: String?): Int {
        var passed = 0
        var failed = 0
        try {
            for ((name, body) in tests) {
                if (filter != null && !name.contains(filter)) continue
                val started = System.nanoTime()
                try {
                    runBlocking { withTimeout(60_000) { body() } }
                    passed++
                    println("ok - $name (${(System.nanoTime() - started) / 1_000_000} ms)")
                } catch (e: TimeoutCancellationException) {
                    failed++
                    val tookMs = (System.nanoTime() - started) / 1_000_000
                    println("FAIL - $name: a time limit ran out after $tookMs ms: ${e.message}")
                    e.printStackTrace(System.out)
                } catch (e: Throwable) {
                    failed++
                    println("FAIL - $name: $e")
                    e.printStackTrace(System.out)
                }
            }
        } finally {
            for (action in cleanups.reversed()) {
                runCatching(action).onFailure { println("# cleanup failed: $it") }
            }
        }
        println("$passed passed, $failed failed")
        return failed
    }
}

class AssertionFailed(message: String) : AssertionError(message)

fun check(condition: Boolean, message: () -> String) {
    if (!condition) throw AssertionFailed(message())
}

fun <T> assertEquals(expected: T, actual: T, what: String = "value") {
    if (expected != actual) throw AssertionFailed("$what: expected <$expected>, got <$actual>")
}

/** Runs [block] and returns the exception of type [E] it threw; fails on anything else. */
suspend inline fun <reified E : Throwable> assertThrows(crossinline block: suspend () -> Unit): E {
    try {
        block()
    } catch (e: Throwable) {
        if (e is E) return e
        throw AssertionFailed("expected ${E::class.simpleName}, got $e")
    }
    throw AssertionFailed("expected ${E::class.simpleName}, but nothing was thrown")
}

/** A required system property (paths the Makefile passes with -D). */
fun property(name: String): String =
    System.getProperty(name) ?: error("run with -D$name=… (see `make test-kotlin`)")

/**
 * A server process started by a test: `BINARY --http 127.0.0.1:0`, whose stderr announces
 * `LISTENING <url>`. Its stderr is drained for as long as it runs; [close] stops it.
 */
class HttpServerProcess(binary: String) : AutoCloseable {
    private val process: Process = ProcessBuilder(binary, "--http", "127.0.0.1:0")
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start()
    val url: String

    init {
        val announced = CompletableFuture<String>()
        val drain = Thread {
            process.errorStream.bufferedReader().useLines { lines ->
                for (line in lines) {
                    if (line.startsWith("LISTENING ")) announced.complete(line.removePrefix("LISTENING ").trim())
                }
            }
            announced.completeExceptionally(IllegalStateException("the server ended without listening"))
        }
        drain.isDaemon = true
        drain.start()
        url = try {
            announced.get(30, TimeUnit.SECONDS)
        } catch (e: Exception) {
            close()
            throw e
        }
    }

    override fun close() {
        process.destroy()
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly()
            process.waitFor(5, TimeUnit.SECONDS)
        }
    }
}

/** A shell script that runs this JVM's classpath with another main class (for stdio servers). */
fun javaLauncher(mainClass: String): File {
    val java = ProcessHandle.current().info().command().orElse("java")
    val classpath = System.getProperty("java.class.path")
    val libraryPath = System.getProperty("jna.library.path") ?: ""
    val script = File.createTempFile("oxmcp-kotlin-server", ".sh")
    script.deleteOnExit()
    script.writeText(
        "#!/bin/sh\nexec '$java' -Djna.library.path='$libraryPath' -cp '$classpath' $mainClass \"$@\"\n"
    )
    script.setExecutable(true)
    return script
}

/** The status line's code and the headers (names in lower case) of a raw HTTP answer. */
class RawResponse(val status: Int, val headers: Map<String, String>)

/**
 * Sends one HTTP/1.1 request over a plain socket (so that any `Host` header can be sent) to
 * the server of [url] and reads the answer's head; the body (an SSE stream, say) is not read.
 */
fun rawRequest(
    url: String,
    method: String,
    path: String = java.net.URI(url).path,
    headers: Map<String, String> = emptyMap(),
    body: String = "",
): RawResponse = OpenRequest(url, method, headers + ("Connection" to "close"), body, path).use { it.head() }

/** A legacy `initialize` request body, as a client sends it. */
fun initializeBody(clientName: String = "raw") =
    """{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",""" +
        """"capabilities":{},"clientInfo":{"name":"$clientName","version":"1"}}}"""

/** POSTs [body] as an MCP client would (JSON, accepting JSON or SSE). */
fun rawPost(url: String, body: String = initializeBody(), headers: Map<String, String> = emptyMap()) =
    rawRequest(
        url, "POST",
        headers = mapOf("Content-Type" to "application/json", "Accept" to "application/json, text/event-stream") + headers,
        body = body,
    )

/**
 * One HTTP/1.1 request over a socket kept open, for answers that stay open (a GET stream) or
 * have not begun (a call in flight): [head] reads the answer's head when it comes,
 * [closedWithin] tells whether the server closes the connection in time.
 */
class OpenRequest(
    url: String,
    method: String,
    headers: Map<String, String>,
    body: String = "",
    path: String = java.net.URI(url).path,
) : AutoCloseable {
    private val socket: java.net.Socket
    private val reader: java.io.BufferedReader

    init {
        val uri = java.net.URI(url)
        socket = java.net.Socket(uri.host, uri.port)
        socket.soTimeout = 10_000
        val bytes = body.toByteArray()
        val head = StringBuilder("$method $path HTTP/1.1\r\n")
        val all = mapOf("Host" to "${uri.host}:${uri.port}", "Content-Length" to "${bytes.size}") + headers
        for ((name, value) in all) head.append("$name: $value\r\n")
        head.append("\r\n")
        socket.getOutputStream().apply {
            write(head.toString().toByteArray())
            write(bytes)
            flush()
        }
        reader = socket.getInputStream().bufferedReader()
    }

    /** The answer's status code and headers (names in lower case), when they come. */
    fun head(): RawResponse {
        val status = reader.readLine()?.split(" ")?.getOrNull(1)?.toInt() ?: error("no answer")
        val headers = mutableMapOf<String, String>()
        while (true) {
            val line = reader.readLine() ?: break
            if (line.isEmpty()) break
            val (name, value) = line.split(":", limit = 2)
            headers[name.trim().lowercase()] = value.trim()
        }
        return RawResponse(status, headers)
    }

    /** Whether the server closes the connection within [ms] milliseconds (what it sends meanwhile is read past). */
    fun closedWithin(ms: Long): Boolean {
        val deadline = System.nanoTime() + ms * 1_000_000
        val buffer = CharArray(4096)
        while (true) {
            val left = (deadline - System.nanoTime()) / 1_000_000
            if (left <= 0) return false
            socket.soTimeout = left.toInt()
            try {
                if (reader.read(buffer) < 0) return true
            } catch (e: java.net.SocketTimeoutException) {
                return false
            } catch (e: java.io.IOException) {
                return true // reset: closed too
            }
        }
    }

    override fun close() = socket.close()
}

/** Whether nothing accepts connections on the port of [url] any more. */
fun refused(url: String): Boolean = runCatching { java.net.Socket("127.0.0.1", java.net.URI(url).port).close() }.isFailure
