/**
 * The npm package (`deno task pack`), as a machine with only Node runs it:
 * installed into a fresh npm prefix, and through `npx -y` from a local
 * registry, in a fresh npm cache, as an MCP client's config would start it.
 * Each time, at run time: an empty DENO_DIR, every registry at a closed port,
 * no Deno of the machine's on PATH; the SDK client drives python's REPL on a
 * PTY (the emulator Worker), its watch page's files are served whole, and
 * Portal downloads nothing.
 * Setting up needs the npm registry (the `deno` package), as CI has it.
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { callTool, endHost, runtimeDirOf } from "../../dev/portal_client.ts";
import { tempDir } from "../../dev/temp_dir.ts";
import { PACKAGE } from "../../dev/package/pack.ts";
import { assert, assertEquals } from "../helpers/assert.ts";
import { pythonAnswers } from "../helpers/python_repl.ts";
import {
  closedPort,
  denoPlatformPackage,
  localRegistry,
  noRegistry,
  pathWithoutDeno,
} from "../helpers/npm_registry.ts";
import { posixTest } from "../helpers/platform.ts";
import { type Asset, ASSETS, PAGE } from "../../src/watch/assets.ts";

const dir = await tempDir("portal-package-");
Deno.test.afterAll(async () => await dir[Symbol.asyncDispose]());
// As a person packs it: `deno task pack`, whose last line is the tarball's path.
const packed = await new Deno.Command(Deno.execPath(), {
  args: ["task", "pack", "--out", `${dir.path}/dist`],
  cwd: new URL("../..", import.meta.url),
  stdout: "piped",
  stderr: "piped",
}).output();
const said = new TextDecoder().decode(packed.stdout).trim().split("\n");
if (!packed.success) throw new Error(`deno task pack: ${new TextDecoder().decode(packed.stderr)}`);
const tarball = said.at(-1)!;
/** npm's cache for the setting up (never the user's: HOME may be a test's, and must stay empty). */
const setupEnv = {
  ...Deno.env.toObject(),
  npm_config_cache: `${dir.path}/npm-cache`,
  npm_config_update_notifier: "false",
  npm_config_fund: "false",
  npm_config_audit: "false",
};
const tools = await pathWithoutDeno(`${dir.path}/path`);

/** Runs npm (setting up: the real registry); fails with its stderr. */
async function npm(args: string[], cwd = dir.path): Promise<void> {
  const { success, stderr } = await new Deno.Command("npm", {
    args,
    cwd,
    env: setupEnv,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!success) throw new Error(`npm ${args.join(" ")}: ${new TextDecoder().decode(stderr)}`);
}

/** Connects the SDK client to `command`, drives python through it, and checks Deno fetched nothing. */
async function servesPython(name: string, command: string, args: string[], extra = {}) {
  const run = `${dir.path}/${name}`;
  const denoDir = `${run}/deno-dir`;
  await Deno.mkdir(`${run}/home`, { recursive: true });
  await Deno.mkdir(denoDir);
  const transport = new StdioClientTransport({
    command,
    args,
    env: {
      HOME: `${run}/home`,
      PATH: tools,
      DENO_DIR: denoDir,
      XDG_RUNTIME_DIR: runtimeDirOf(run),
      PORTAL_DB_PATH: `${run}/records.db`,
      PORTAL_DATA_DIR: `${run}/data`,
      ...noRegistry(closedPort()),
      ...extra,
    },
    stderr: "inherit",
  });
  const client = new Client({ name: "portal-package-test", version: "0.0.0" });
  try {
    await client.connect(transport);
    assertEquals(client.getServerVersion()?.name, "portal");
    const portal = { call: (tool: string, a = {}) => callTool(client, tool, a) };
    const { id, step } = await pythonAnswers(portal);
    assertEquals(step.output.trim().split("\n")[0], "42");
    const screen = await portal.call("process_screen", { id });
    assert(screen.lines.includes("42"), `the screen shows 42: ${JSON.stringify(screen.lines)}`);
    // The watch page's files are in the build (text imports): each served as the source has it.
    const { url } = await portal.call("process_watch", { id });
    const files = [["", PAGE], ...[...ASSETS].map(([name, asset]) => [`/assets/${name}`, asset])];
    for (const [path, asset] of files as [string, Asset][]) {
      const response = await fetch(new URL(`/watch${path}`, url));
      assertEquals([response.status, await response.text()], [200, asset.body], `/watch${path}`);
    }
    await portal.call("process_kill", { id });
  } finally {
    await client.close();
    await endHost(run);
  }
  const fetched = [...Deno.readDirSync(denoDir)].filter((e) =>
    e.name === "npm" || e.name === "remote"
  )
    .flatMap((e) =>
      [...Deno.readDirSync(`${denoDir}/${e.name}`)].map((f) => `${e.name}/${f.name}`)
    );
  assertEquals(fetched, [], "Deno downloaded nothing into its empty cache");
}

posixTest("the package installed into a fresh npm prefix serves MCP with no registry", async () => {
  assert(
    tarball.startsWith(`${dir.path}/dist/`) && tarball.endsWith(".tgz"),
    `deno task pack's last line is the tarball: ${said.join("\n")}`,
  );
  const prefix = `${dir.path}/prefix`;
  await npm(["install", "--global", "--prefix", prefix, tarball]);
  await servesPython("installed", `${prefix}/bin/portal`, []);
});

posixTest("npx -y portal-mcp from a local registry, in a fresh npm cache, serves MCP", async () => {
  await using registryDir = await tempDir("portal-registry-");
  await using registry = await localRegistry(registryDir.path, setupEnv);
  // The registry holds the deno package and this machine's binary of it, as npmjs does.
  const deno = Deno.version.deno;
  await npm(["pack", `deno@${deno}`, `${denoPlatformPackage()}@${deno}`], registryDir.path);
  for (const file of Deno.readDirSync(registryDir.path)) {
    if (file.name.endsWith(".tgz")) await registry.publish(`${registryDir.path}/${file.name}`);
  }
  await registry.publish(tarball);
  await servesPython("npx", `${tools}/npx`, ["-y", "--registry", registry.url, PACKAGE], {
    npm_config_cache: `${dir.path}/npx-cache`,
    npm_config_update_notifier: "false",
    // npm reaches the local registry, and nothing else.
    NO_PROXY: "127.0.0.1",
    no_proxy: "127.0.0.1",
  });
});
