// Judges the runs of the conformance suite that run.sh made.
//
// usage: node report.mjs <expected-failures.txt> <deferred.txt> <results-dir> <run>...
//
// Each <run> left <results-dir>/<run>.log (the suite's output, ending with its summary of
// one line per scenario) and <results-dir>/<run>/ (checks.json per scenario). A scenario
// passes when the suite marks it ✓ (no failed check, and for the client suite no warning
// either). Prints every scenario that is not a plain pass (and the passes where the suite
// ran no check at all), then one line
// `N passed, N failed`; exits 1 on an unexpected failure, an unexpected pass of an expected
// failure, or an expected failure that names no scenario that ran. Scenarios matching a
// prefix in deferred.txt (features not built yet, each with its reason) are counted apart:
// a pass there is reported as news, a failure is not counted as one.

import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const [expectedPath, deferredPath, resultsDir, ...runs] = process.argv.slice(2);
if (!expectedPath || !deferredPath || !resultsDir || runs.length === 0) {
  console.error('usage: node report.mjs <expected-failures.txt> <deferred.txt> <results-dir> <run>...');
  process.exit(2);
}

/** expected-failures.txt: `<run> <scenario> <reason...>` per line; `#` starts a comment. */
function readExpected(path) {
  const expected = new Map();
  const problems = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((raw, index) => {
      const line = raw.replace(/#.*/, '').trim();
      if (!line) return;
      const [run, scenario, ...reason] = line.split(/\s+/);
      if (!runs.includes(run) || !scenario || reason.length === 0) {
        problems.push(
          `${path}:${index + 1}: expected "<run> <scenario> <reason>" with <run> one of ${runs.join(', ')}`
        );
        return;
      }
      expected.set(`${run} ${scenario}`, reason.join(' '));
    });
  return { expected, problems };
}

/** The per-scenario verdicts of one run, from the summary the suite prints last. */
function readRun(run) {
  const logPath = join(resultsDir, `${run}.log`);
  if (!existsSync(logPath)) return { scenarios: [], error: `${logPath} is missing` };
  const log = readFileSync(logPath, 'utf8');
  const announced = /Running \S+ suite \((\d+) scenarios\)/.exec(log);
  const start = log.search(/=== (SUITE )?SUMMARY ===/);
  if (start < 0) {
    return { scenarios: [], error: `the suite printed no summary (see ${logPath})` };
  }
  const scenarios = [];
  for (const line of log.slice(start).split('\n')) {
    const verdict = /^([✓✗]) (\S+): (.*)$/.exec(line);
    if (verdict) {
      scenarios.push({ name: verdict[2], passed: verdict[1] === '✓', detail: verdict[3] });
      continue;
    }
    const skipped = /^- (\S+): skipped$/.exec(line);
    if (skipped) scenarios.push({ name: skipped[1], skipped: true });
  }
  if (announced && Number(announced[1]) !== scenarios.length) {
    return {
      scenarios,
      error: `the suite announced ${announced[1]} scenarios but summarised ${scenarios.length} (see ${logPath})`
    };
  }
  return { scenarios, error: null };
}

/** The checks of one scenario that did not succeed, from its checks.json. */
function problemsOf(run, scenario) {
  const dir = join(resultsDir, run);
  // The suite names result directories `[server-]<scenario>-<timestamp>`; a scenario
  // name with a slash (auth/...) becomes a subdirectory.
  const parts = scenario.split('/');
  const parent = join(dir, ...parts.slice(0, -1));
  const stem = parts[parts.length - 1];
  if (!existsSync(parent)) return [];
  const match = readdirSync(parent).find(
    (d) => d.startsWith(`server-${stem}-20`) || d.startsWith(`${stem}-20`)
  );
  if (!match) return [];
  const checksPath = join(parent, match, 'checks.json');
  if (!existsSync(checksPath)) return [];
  return JSON.parse(readFileSync(checksPath, 'utf8'))
    .filter((c) => c.status === 'FAILURE' || c.status === 'WARNING')
    .map((c) => `${c.status} ${c.id}: ${(c.errorMessage || c.description || '').split('\n')[0]}`);
}

/** deferred.txt: `<run> <scenario prefix> <reason...>` per line; `#` starts a comment. */
function readDeferred(path) {
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((raw) => raw.replace(/#.*/, '').trim())
    .filter(Boolean)
    .map((line) => {
      const [run, prefix, ...reason] = line.split(/\s+/);
      return { run, prefix, reason: reason.join(' ') };
    });
}

const { expected, problems } = readExpected(expectedPath);
const deferrals = readDeferred(deferredPath);
const deferredCounts = new Map();
const seen = new Set();
let passed = 0;
let failed = 0;
let unexpected = 0;
const lines = [];

for (const run of runs) {
  const { scenarios, error } = readRun(run);
  if (error) {
    failed += 1;
    unexpected += 1;
    lines.push(`FAIL  ${run}: ${error}`);
  }
  for (const s of scenarios) {
    if (s.skipped) continue;
    const key = `${run} ${s.name}`;
    seen.add(key);
    const deferral = deferrals.find((d) => d.run === run && s.name.startsWith(d.prefix));
    if (deferral) {
      deferredCounts.set(deferral.reason, (deferredCounts.get(deferral.reason) ?? 0) + 1);
      if (s.passed) lines.push(`NEWS  ${key}: passes although deferred (${deferral.reason})`);
      continue;
    }
    const reason = expected.get(key);
    if (s.passed) {
      passed += 1;
      if (/^0 passed, 0 failed/.test(s.detail)) {
        lines.push(`NOTE  ${key}: passes with no check run (the suite skipped every check)`);
      }
      if (reason !== undefined) {
        unexpected += 1;
        lines.push(`XPASS ${key}: passes, but expected-failures.txt expects a failure (${reason}); remove the entry`);
      }
      continue;
    }
    failed += 1;
    if (reason !== undefined) {
      lines.push(`XFAIL ${key}: ${s.detail} (expected: ${reason})`);
      continue;
    }
    unexpected += 1;
    lines.push(`FAIL  ${key}: ${s.detail}`);
    for (const p of problemsOf(run, s.name).slice(0, 8)) lines.push(`        ${p}`);
  }
}

for (const key of expected.keys()) {
  if (!seen.has(key)) {
    unexpected += 1;
    lines.push(`STALE ${key}: listed in expected-failures.txt but did not run`);
  }
}
for (const p of problems) {
  unexpected += 1;
  lines.push(`ERROR ${p}`);
}

for (const line of lines) console.log(line);
for (const [reason, count] of deferredCounts) console.log(`DEFERRED ${count} scenario(s): ${reason}`);
console.log(`results: ${resultsDir}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(unexpected > 0 ? 1 : 0);
