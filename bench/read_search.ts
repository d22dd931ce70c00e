/**
 * What matters in a long output, in one call (issue 40): a program prints
 * 200 MB of build lines on pipes with one error line in the middle; then
 * `process_read` with a `pattern` finds it among everything stored (its line
 * number, 3 lines of context before and after), and `process_read` with its
 * `line` returns the 21 lines around it. Through the server and the official
 * client: the median of 9 calls each, and the reply's characters (its text
 * block, what the model reads). Then the same search over the same output
 * through a PTY (lines ending `\r\n`, most programs an agent runs).
 *
 * Run: deno run -A bench/read_search.ts
 *
 * @module
 */
import { Portal } from "../dev/portal_client.ts";
import { median, ms, row } from "./lib.ts";

const MB = 200;
const CALLS = 9;
// One line of a parallel build, about 80 bytes; the error in the middle of the output.
const PROGRAM = `
import sys
out = sys.stdout
total, i = ${MB} * 1000 * 1000, 0
written = 0
while written < total:
    i += 1
    line = ("src/net/parser.c:41:7: error: 'count' undeclared (first use in this function)\\n"
            if written < total // 2 <= written + 80 else
            "[%d/2500000] CC build/obj/unit_%d.o -O2 -Wall -c src/unit_%d.c\\n" % (i, i, i))
    out.write(line)
    written += len(line)
print(i, file=sys.stderr)
`;

await using portal = await Portal.start({
  env: { PORTAL_MAX_OUTPUT_BYTES: String((MB + 50) * 1000 * 1000) },
});
/** The id of the program run to its exit, on pipes or on a PTY. */
async function run(pty: boolean): Promise<number> {
  const { id } = await portal.call("process_start", {
    command: "python3",
    args: ["-c", PROGRAM],
    pty,
    wait: "exit",
    wait_ms: 300_000,
  });
  const stored = await portal.call("process_inspect", { id });
  console.error(`stored: ${JSON.stringify(stored).slice(0, 300)}`);
  return id;
}

/** The median ms of CALLS calls of process_read of `id` with `args`, and the last reply. */
async function timed(id: number, args: Record<string, unknown>) {
  const times: number[] = [];
  let reply;
  for (let i = 0; i <= CALLS; i++) {
    const start = performance.now();
    reply = await portal.client.callTool({ name: "process_read", arguments: { id, ...args } });
    if (i > 0) times.push(performance.now() - start); // The first warms the JIT up.
  }
  if (reply!.isError) throw new Error(JSON.stringify(reply));
  const text = (reply!.content as { text: string }[])[0].text;
  return {
    ms: median(times),
    chars: text.length,
    reply: reply!.structuredContent as Record<string, unknown>,
  };
}

/** Times the search over `id`'s output and prints its row; the matching line's number. */
async function search(id: number, where: string): Promise<number | undefined> {
  const found = await timed(id, { pattern: "error: '\\w+' undeclared" });
  const lines = found.reply.lines as { line: number; match?: true }[];
  const at = lines.find((l) => l.match)?.line;
  const one = found.reply.matches === 1 && at !== undefined;
  row(
    "33 search",
    `process_read pattern: the one error line among ${MB} MB stored${where} (${found.reply.total_lines} lines)`,
    `${ms(found.ms)}, line ${at}, reply ${found.chars} characters`,
    "< 200 ms, < 2,000 characters",
    one && found.ms < 200 && found.chars < 2000,
  );
  return at;
}

const id = await run(false);
const at = await search(id, "");
const around = await timed(id, { line: at, context: 10 });
row(
  "33 search",
  `process_read line: the 21 lines around it`,
  `${ms(around.ms)}, reply ${around.chars} characters`,
  "< 200 ms",
  (around.reply.lines as unknown[]).length === 21 && around.ms < 200,
);
await portal.call("process_cleanup", { id });
const onPty = await run(true);
await search(onPty, " from a PTY");
await portal.call("process_cleanup", { id: onPty });
