/**
 * The parts of the documentation made from one source, so that they cannot
 * disagree: the table of `PORTAL_*` variables (docs/environment.md, from
 * src/env_vars.ts, which `--help` and `portal doctor` read too) and the table
 * of clients (README.md, docs/clients.md, llms-install.md). Each sits between
 * two markers; tests/e2e/docs_test.ts fails when one is out of date.
 *
 *     deno run -A dev/generated_docs.ts           # lists the sections out of date
 *     deno run -A dev/generated_docs.ts --write   # rewrites them
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { ENV_VARS } from "../src/env_vars.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The command every client entry runs, from a clone (paths as examples). */
export const CLONE_COMMAND = {
  command: "/home/you/.deno/bin/deno",
  args: ["run", "-A", "/home/you/portal/main.ts"],
};

/** `claude mcp add` for a clone: README, docs/clients.md and main.ts's doc say it alike. */
export const CLAUDE_CODE_ADD = `claude mcp add -s user portal -- ${
  [CLONE_COMMAND.command, ...CLONE_COMMAND.args].join(" ")
}`;

/** Each client: where its configuration goes, and the shape of Portal's entry there. */
export const CLIENTS: readonly { client: string; where: string; entry: string }[] = [
  {
    client: "Claude Code",
    where: "`claude mcp add -s user portal -- COMMAND`",
    entry: "(the command line itself)",
  },
  {
    client: "Claude Desktop",
    where: "`claude_desktop_config.json` (restart the app)",
    entry: '`"mcpServers": { "portal": { "command", "args" } }`',
  },
  {
    client: "Cursor",
    where: "`~/.cursor/mcp.json`, or `.cursor/mcp.json` in a project",
    entry: '`"mcpServers": { "portal": { "command", "args" } }`',
  },
  {
    client: "VS Code",
    where: "`.vscode/mcp.json`, or **MCP: Open User Configuration**",
    entry: '`"servers": { "portal": { "type": "stdio", "command", "args" } }`',
  },
  {
    client: "Codex",
    where: "`codex mcp add portal -- COMMAND`, or `~/.codex/config.toml`",
    entry: "`[mcp_servers.portal]` with `command`, `args`, `startup_timeout_sec = 60`",
  },
];

/** A Markdown table: a header row, then the rows, cells' pipes escaped. */
function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map((c) => c.replaceAll("|", "\\|")).join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** docs/environment.md's table: every variable of src/env_vars.ts. */
export function environmentTable(): string {
  return table(
    ["Variable", "Default", "Meaning"],
    ENV_VARS.map((v) => [`\`${v.name}\``, v.default, v.help]),
  );
}

/** The clients table (README.md, docs/clients.md, llms-install.md). */
export function clientsTable(): string {
  return table(
    ["Client", "Where", "Portal's entry"],
    CLIENTS.map(({ client, where, entry }) => [client, where, entry]),
  );
}

/** Each generated section: the pages it is in, its marker's name, and its text. */
export const SECTIONS: readonly { pages: string[]; name: string; render: () => string }[] = [
  { pages: ["docs/environment.md"], name: "environment table", render: environmentTable },
  {
    pages: ["README.md", "docs/clients.md", "llms-install.md"],
    name: "clients table",
    render: clientsTable,
  },
];

/** `text` with the section `name` (between its markers) made `body`; throws without markers. */
export function withSection(text: string, name: string, body: string): string {
  const begin = `<!-- ${name}: begin (made by dev/generated_docs.ts) -->`;
  const end = `<!-- ${name}: end -->`;
  const start = text.indexOf(begin);
  const stop = text.indexOf(end);
  if (start < 0 || stop < start) throw new Error(`no "${begin}" … "${end}"`);
  return `${text.slice(0, start)}${begin}\n\n${body}\n\n${text.slice(stop)}`;
}

/** Formats Markdown as `deno fmt` does, so a page compares equal to what is committed. */
async function formatted(text: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext=md", "-"],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  return new TextDecoder().decode((await child.output()).stdout);
}

/** Each page whose generated sections differ from what they would be now, and its new text. */
export async function outOfDate(): Promise<{ page: string; text: string }[]> {
  const stale: { page: string; text: string }[] = [];
  const pages = [...new Set(SECTIONS.flatMap((s) => s.pages))];
  for (const page of pages) {
    const now = await Deno.readTextFile(`${ROOT}${page}`);
    let text = now;
    for (const section of SECTIONS.filter((s) => s.pages.includes(page))) {
      text = withSection(text, section.name, section.render());
    }
    text = await formatted(text);
    if (text !== now) stale.push({ page, text });
  }
  return stale;
}

if (import.meta.main) {
  const stale = await outOfDate();
  if (Deno.args.includes("--write")) {
    for (const { page, text } of stale) await Deno.writeTextFile(`${ROOT}${page}`, text);
    console.log(stale.length ? `rewrote ${stale.map((s) => s.page).join(", ")}` : "up to date");
  } else if (stale.length > 0) {
    console.log(`out of date: ${stale.map((s) => s.page).join(", ")}`);
    console.log("Run `deno run -A dev/generated_docs.ts --write`.");
    Deno.exit(1);
  } else {
    console.log("up to date");
  }
}
