#!/usr/bin/env node
// The `oxmcp` command the package installs: the core's command line (`npx oxmcp --help`).
"use strict";

const { runCli } = require("../native/index.js");

process.exitCode = runCli(["oxmcp", ...process.argv.slice(2)]);
