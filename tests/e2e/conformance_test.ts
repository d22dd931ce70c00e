/**
 * The official MCP conformance suite (npm:@modelcontextprotocol/conformance,
 * server mode) against `--http`, through a proxy that adds the bearer token:
 * every scenario that applies to a tools-only server must pass, and those
 * that do not (they expect the suite's fixture tools, resources, prompts)
 * are named in tests/conformance/baseline.yml, each with why. The suite
 * fails on a listed scenario that starts passing too, so the list stays true.
 * Twice: 2025-11-25's scenarios (the pinned 0.1.16), and the scenarios
 * 2026-07-28 requires (0.2.0-alpha.12, `--requirements 2026-07-28`, with
 * the tasks extension's), whose baseline is conformance/baseline-2026-07-28.yml.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { assert } from "../helpers/assert.ts";
import { bearerProxy } from "../helpers/bearer_proxy.ts";
import { HttpPortal } from "../helpers/http_portal.ts";
import { posixTest } from "../helpers/platform.ts";

const SUITE = "npm:@modelcontextprotocol/conformance@0.1.16";
const BASELINE = fileURLToPath(new URL("conformance/baseline.yml", import.meta.url));
/** The first release with 2026-07-28's server scenarios that Portal passes all it can of. */
const SUITE_2026 = "npm:@modelcontextprotocol/conformance@0.2.0-alpha.12";
const BASELINE_2026 = fileURLToPath(
  new URL("conformance/baseline-2026-07-28.yml", import.meta.url),
);
/** The suite is a test tool: its packages are locked with the other tools', not the server's. */
const TOOLS_LOCK = fileURLToPath(new URL("../../dev/deno.lock", import.meta.url));

/** Runs `suite` against a new `--http` Portal with `args`; its exit code and summary. */
async function runSuite(suite: string, args: string[]) {
  await using server = await HttpPortal.start();
  await using proxy = bearerProxy(server.url, server.token);
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `--lock=${TOOLS_LOCK}`, suite, "server", "--url", proxy.url.href, ...args],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  return { code, summary: text.slice(text.lastIndexOf("=== SUMMARY ===")) };
}

posixTest("the MCP conformance suite passes every scenario that applies", async () => {
  const { code, summary } = await runSuite(SUITE, ["--expected-failures", BASELINE]);
  assert(code === 0, `the suite failed (exit ${code}):\n${summary}`);
});

posixTest("the MCP conformance suite passes every 2026-07-28 scenario that applies", async () => {
  const { code, summary } = await runSuite(SUITE_2026, [
    "--requirements",
    "2026-07-28",
    "--expected-failures",
    BASELINE_2026,
  ]);
  assert(code === 0, `the suite failed (exit ${code}):\n${summary}`);
});
