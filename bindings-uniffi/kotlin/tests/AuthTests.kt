// A Kotlin server as an OAuth resource server: a verifier written in Kotlin, a JWT verifier
// against a real authorization server (oidc-provider from npm, tests/auth/provider.mjs,
// started and stopped here), scopes per tool, the caller in `Context.accessToken()`, and the
// refusals with their challenges; and the Kotlin client signing in with OAuth (the code flow
// through an app's own authorizer, a step-up, tokens kept in the app's storage, client
// credentials).

package io.github.oxmcp.tests

import io.github.oxmcp.AccessToken
import io.github.oxmcp.Authorizer
import io.github.oxmcp.BrowserOpener
import io.github.oxmcp.Client
import io.github.oxmcp.ClientOptions
import io.github.oxmcp.EraMode
import io.github.oxmcp.HttpOptions
import io.github.oxmcp.HttpSettings
import io.github.oxmcp.McpException
import io.github.oxmcp.OAuth
import io.github.oxmcp.OAuthOptions
import io.github.oxmcp.PreRegisteredClient
import io.github.oxmcp.Returned
import io.github.oxmcp.Server
import io.github.oxmcp.ServerOptions
import io.github.oxmcp.Tool
import io.github.oxmcp.TokenProvider
import io.github.oxmcp.TokenStorage
import io.github.oxmcp.TokenVerifier
import io.github.oxmcp.Verifier
import io.github.oxmcp.jsonPointerString
import java.net.URI
import java.net.URLEncoder
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.Base64
import java.util.concurrent.atomic.AtomicInteger

/** `whoami` says who called; `write_note` needs `notes:write`. */
fun notesServer(auth: Verifier): Server {
    val server = Server("notes", "1.0.0", null, ServerOptions(auth = auth))
    server.addTool(
        Tool(name = "whoami", inputSchemaJson = NO_ARGUMENTS),
        tool { _, context ->
            val token = context.accessToken()
            Returned.Text(if (token == null) "nobody" else "${token.subject ?: token.clientId} ${token.scopes.joinToString(",")}")
        },
    )
    server.addTool(Tool(name = "write_note", inputSchemaJson = NO_ARGUMENTS), tool { _, _ -> Returned.Text("written") }, listOf("notes:write"))
    return server
}

/** The test authorization server, while it runs: its issuer. */
class AuthorizationServer(settings: Map<String, String> = emptyMap()) : AutoCloseable {
    private val process = ProcessBuilder("node", property("oxmcp.authServer"))
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .apply { environment().putAll(settings) }
        .start()
    val issuer: String = process.inputStream.bufferedReader().readLine()?.removePrefix("ISSUER ")?.trim()
        ?: throw AssertionFailed("the authorization server did not start")

    /** A client credentials token of the pre-registered client `svc` for [resource]. */
    fun serviceToken(resource: String, scope: String): String {
        val form = mapOf("grant_type" to "client_credentials", "resource" to resource, "scope" to scope)
            .entries.joinToString("&") { (k, v) -> "$k=${URLEncoder.encode(v, Charsets.UTF_8)}" }
        val request = HttpRequest.newBuilder(URI("$issuer/token"))
            .header("Authorization", "Basic " + Base64.getEncoder().encodeToString("svc:svc-secret".toByteArray()))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .build()
        val answer = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString()).body()
        return jsonPointerString(answer, "/access_token") ?: throw AssertionFailed("no token: $answer")
    }

    override fun close() {
        process.destroy()
        process.waitFor()
    }
}

/** The app's redirect URI: the user's browser is stopped there and the URL handed back. */
const val REDIRECT_URI = "http://127.0.0.1:9/callback"

/** The user at the authorization server, approving at once: follows the authorization URL's redirects to [REDIRECT_URI]. */
class ApprovingUser : Authorizer {
    val trips = AtomicInteger()
    private val http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build()

    override suspend fun authorize(url: String): String {
        trips.incrementAndGet()
        var next = URI(url)
        repeat(10) {
            val answer = http.send(HttpRequest.newBuilder(next).GET().build(), HttpResponse.BodyHandlers.discarding())
            val location = answer.headers().firstValue("location").orElse(null) ?: throw AssertionFailed("no redirect from $next")
            next = next.resolve(location)
            if (next.toString().startsWith(REDIRECT_URI)) return next.toString()
        }
        throw AssertionFailed("the browser went round in circles")
    }
}

/** The user's browser, the user approving at once: follows the authorization URL's redirects and loads the page it lands on (the app's loopback listener). */
class ApprovingBrowser : BrowserOpener {
    val trips = AtomicInteger()
    private val http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build()

    override suspend fun open(url: String) {
        trips.incrementAndGet()
        var next = URI(url)
        repeat(10) {
            val answer = http.send(HttpRequest.newBuilder(next).GET().build(), HttpResponse.BodyHandlers.discarding())
            val location = answer.headers().firstValue("location").orElse(null)
            if (location == null) {
                assertEquals(200, answer.statusCode(), "the page at $next")
                return
            }
            next = next.resolve(location)
        }
        throw AssertionFailed("the browser went round in circles")
    }
}

/** The app's token storage (the Keychain or Keystore on a phone). */
class MemoryStorage : TokenStorage {
    @Volatile var text: String? = null

    override suspend fun load(): String? = text

    override suspend fun save(tokens: String?) {
        text = tokens
    }
}

fun bearer(token: String) = HttpSettings(token = object : TokenProvider {
    override suspend fun token(): String? = token
})

fun authTests(suite: Suite) {
    val options = ClientOptions(name = "kotlin-tests", version = "1.0", era = EraMode.MODERN)

    suite.test("auth: a verifier written in Kotlin, scopes per tool, the caller and its headers in the context") {
        var resource = ""
        val verifier = object : TokenVerifier {
            override suspend fun verify(token: String): AccessToken? =
                if (token == "let-me-in") AccessToken(token = token, subject = "carol", scopes = listOf("notes:read"), audience = listOf(resource)) else null
        }
        val server = notesServer(Verifier.Custom(verifier))
        server.addTool(
            Tool(name = "tenant", inputSchemaJson = NO_ARGUMENTS),
            tool { _, context -> Returned.Text(context.httpHeaders()?.get("x-tenant") ?: "none") },
        )
        try {
            val http = HttpOptions(requiredScopes = listOf("notes:read"), authorizationServers = listOf("https://as.example"))
            resource = server.serveHttp("127.0.0.1:0", http)
            val missing = rawPost(resource)
            assertEquals(401, missing.status, "no token")
            val metadata = resource.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
            assertEquals("Bearer scope=\"notes:read\", resource_metadata=\"$metadata\"", missing.headers["www-authenticate"], "the challenge")
            assertEquals(401, rawPost(resource, headers = mapOf("Authorization" to "Bearer guess")).status, "a refused token")
            withHttpClient(resource, options, bearer("let-me-in").copy(headers = mapOf("X-Tenant" to "acme"))) { client ->
                assertEquals("carol notes:read", firstText(client.callTool("whoami", "{}").content), "the caller")
                assertEquals("acme", firstText(client.callTool("tenant", "{}").content), "the request's headers")
                val refused = assertThrows<McpException> { client.callTool("write_note", "{}") }
                check(refused.toString().contains("403") || refused.toString().contains("scope")) { "refusal: $refused" }
            }
            assertThrows<McpException.InvalidInput> { Server("x", "1", null, null).serveHttp("127.0.0.1:0", HttpOptions(requiredScopes = listOf("x"))) }
        } finally {
            server.shutdown()
            server.close()
        }
    }

    suite.test("auth: lists can show each caller only what its scopes permit") {
        var resource = ""
        val scopes = mapOf("let-me-in" to listOf("notes:read"), "all-notes" to listOf("notes:read", "notes"))
        val verifier = object : TokenVerifier {
            override suspend fun verify(token: String): AccessToken? =
                scopes[token]?.let { AccessToken(token = token, subject = "carol", scopes = it, audience = listOf(resource)) }
        }
        val server = notesServer(Verifier.Custom(verifier))
        try {
            val http = HttpOptions(
                authorizationServers = listOf("https://as.example"),
                listOnlyPermitted = true,
                scopeImplies = mapOf("notes" to listOf("notes:write")),
            )
            resource = server.serveHttp("127.0.0.1:0", http)
            for ((token, expected) in listOf("let-me-in" to listOf("whoami"), "all-notes" to listOf("whoami", "write_note"))) {
                withHttpClient(resource, options, bearer(token)) { client ->
                    assertEquals(expected, client.listAllTools().map { it.name }, "the tools $token sees")
                }
            }
        } finally {
            server.shutdown()
            server.close()
        }
    }

    suite.test("auth: the Kotlin client signs in with OAuth, steps up, and starts again signed in") {
        AuthorizationServer().use { authority ->
            withProtectedNotes(authority) { url ->
                val user = ApprovingUser()
                val storage = MemoryStorage()
                val app = { OAuth.authorizationCode("notes app", REDIRECT_URI, user, OAuthOptions(storage = storage)) }
                withHttpClient(url, options, HttpSettings(auth = app())) { client ->
                    assertEquals("alice notes:read", firstText(client.callTool("whoami", "{}").content), "signed in")
                    assertEquals(1, user.trips.get(), "one trip to the browser")
                    assertEquals("written", firstText(client.callTool("write_note", "{}").content), "after the step-up")
                    assertEquals(2, user.trips.get(), "one more trip, for the step-up")
                }
                check(storage.text?.contains(authority.issuer) == true) { "the tokens were not kept" }
                // The next start: signed in by the storage, the user is not asked.
                withHttpClient(url, options.copy(era = EraMode.LEGACY), HttpSettings(auth = app())) { again ->
                    check(firstText(again.callTool("write_note", "{}").content) == "written") { "the stored token" }
                    assertEquals(2, user.trips.get(), "no trip on the next start")
                }
                val machine = OAuth.clientCredentials(PreRegisteredClient(authority.issuer, "svc", "svc-secret"))
                withHttpClient(url, options, HttpSettings(auth = machine)) { bot ->
                    assertEquals("svc notes:read", firstText(bot.callTool("whoami", "{}").content), "a machine client")
                }
            }
        }
    }

    suite.test("auth: a desktop Kotlin app signs in through the browser and a loopback listener, and refreshes") {
        // Access tokens live 3 s and the server allows no leeway: the client must refresh.
        AuthorizationServer(mapOf("ACCESS_TOKEN_TTL" to "3")).use { authority ->
            withProtectedNotes(authority, leewayMs = 0) { url ->
                val browser = ApprovingBrowser()
                val oauth = OAuth.loopback("notes app", browser)
                check(oauth.redirectUri()?.startsWith("http://127.0.0.1:") == true) { "the loopback redirect URI: ${oauth.redirectUri()}" }
                withHttpClient(url, options, HttpSettings(auth = oauth)) { client ->
                    assertEquals("alice notes:read", firstText(client.callTool("whoami", "{}").content), "signed in")
                    assertEquals(1, browser.trips.get(), "one trip to the browser")
                    Thread.sleep(4_000)
                    assertEquals("alice notes:read", firstText(client.callTool("whoami", "{}").content), "after the token expired")
                    assertEquals(1, browser.trips.get(), "refreshed, not signed in again")
                }
            }
        }
    }

    suite.test("auth: JWT tokens of a real authorization server (oidc-provider)") {
        AuthorizationServer().use { authority ->
            withProtectedNotes(authority) { url ->
                withHttpClient(url, options, bearer(authority.serviceToken(url, "notes:read"))) { reader ->
                    assertEquals("svc notes:read", firstText(reader.callTool("whoami", "{}").content), "the caller")
                    assertThrows<McpException> { reader.callTool("write_note", "{}") }
                }
                val writer = bearer(authority.serviceToken(url, "notes:read notes:write"))
                withHttpClient(url, options.copy(era = EraMode.LEGACY), writer) { client ->
                    assertEquals("written", firstText(client.callTool("write_note", "{}").content), "with the scope")
                }
            }
        }
    }
}

/** Runs [use] with the URL of the notes server, protected by [authority]'s JWTs (allowing [leewayMs] of clock skew). */
suspend fun withProtectedNotes(authority: AuthorizationServer, leewayMs: Long? = null, use: suspend (String) -> Unit) {
    val server = notesServer(Verifier.Jwt(jwksUri = "${authority.issuer}/jwks", issuer = authority.issuer, audience = emptyList(), leewayMs = leewayMs))
    try {
        use(server.serveHttp("127.0.0.1:0", HttpOptions(requiredScopes = listOf("notes:read"))))
    } finally {
        server.shutdown()
        server.close()
    }
}

/** Runs [use] with a client of [url], then disconnects it. */
suspend fun withHttpClient(url: String, options: ClientOptions, http: HttpSettings, use: suspend (Client) -> Unit) {
    val client = Client.connectHttp(url, options, http)
    try {
        use(client)
    } finally {
        client.disconnect()
        client.close()
    }
}
