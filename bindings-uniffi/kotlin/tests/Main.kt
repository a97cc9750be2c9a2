// Runs every Kotlin test of the UniFFI binding: `make test-kotlin`. An optional argument
// runs only the tests whose names contain it.

package io.github.oxmcp.tests

import kotlin.system.exitProcess

fun main(args: Array<String>) {
    println("# oxmcp ${io.github.oxmcp.oxmcpVersion()} (Kotlin binding)")
    val suite = Suite()
    clientTests(suite)
    serverTests(suite)
    httpOptionsTests(suite)
    returnedTests(suite)
    authTests(suite)
    tasksTests(suite)
    taskHandleTests(suite)
    val failed = suite.run(args.firstOrNull())
    exitProcess(if (failed == 0) 0 else 1)
}
