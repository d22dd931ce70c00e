/**
 * Shell integration marks on raw output (src/core/shell): the parser finds
 * every mark however the stream is cut, even a byte at a time; the text the
 * replies carry never holds one; and the tracker turns a shell's marks into
 * commands, lines, exit codes and directories, the lines read from their
 * echo as bash's, zsh's and readline's editors draw them (transcripts as the
 * real shells wrote them); only marks signed with the hooks' key count.
 */
import { OutputDecoder } from "../../src/core/text/decoder.ts";
import { type Mark, MarkParser } from "../../src/core/shell/marks.ts";
import { ShellTracker } from "../../src/core/shell/tracker.ts";
import { assert, assertEquals } from "../helpers/assert.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const BEL = "\x07";
const ST = "\x1b\\";

/** A session with every kind of mark, in both terminators. */
const SESSION = [
  `\x1b]7;file:///tmp/a%20b${BEL}\x1b]133;D;0${BEL}\x1b]133;A${BEL}$ \x1b]133;B${BEL}`,
  `echo hi\r\n\x1b]633;E;echo hi\\x3b \\\\ ok${ST}\x1b]133;C${BEL}hi\r\n`,
  `\x1b]0;a title${BEL}\x1b[1mbold\x1b[0m`,
  `\x1b]633;P;Cwd=/srv${BEL}\x1b]133;D;2;aid=7${ST}\x1b]633;A${BEL}\x1b]633;F${BEL}> \x1b]633;G${BEL}`,
  `\x1b]133;C;cmdline_url=ls%20-l${BEL}\x1b]133;D${BEL}`,
].join("");

const MARKS: Mark[] = [
  { kind: "cwd", path: "/tmp/a b" },
  { kind: "command_end", exitCode: 0 },
  { kind: "prompt_start" },
  { kind: "prompt_end" },
  { kind: "command_line", line: "echo hi; \\ ok" },
  { kind: "output_start" },
  { kind: "cwd", path: "/srv" },
  { kind: "command_end", exitCode: 2 },
  { kind: "prompt_start" },
  { kind: "continuation_start" },
  { kind: "continuation_end" },
  { kind: "output_start", line: "ls -l" },
  { kind: "command_end", exitCode: null },
];
const TEXT = "$ echo hi\r\nhi\r\n\x1b[1mbold\x1b[0m> ";

function parse(chunks: Uint8Array[]): { marks: Mark[]; text: string } {
  const marks: Mark[] = [];
  let text = "";
  const decoder = new TextDecoder();
  const parser = new MarkParser({
    mark: (mark) => marks.push(mark),
    text: (b) => text += decoder.decode(b, { stream: true }),
  });
  for (const chunk of chunks) parser.feed(chunk);
  return { marks, text };
}

Deno.test("marks: every mark, however the stream is cut", () => {
  const all = bytes(SESSION);
  assertEquals(parse([all]), { marks: MARKS, text: TEXT });
  for (let cut = 1; cut < all.length; cut++) {
    assertEquals(parse([all.subarray(0, cut), all.subarray(cut)]), {
      marks: MARKS,
      text: TEXT,
    }, `cut at ${cut}`);
  }
  const single = [...all].map((b) => Uint8Array.of(b));
  assertEquals(parse(single), { marks: MARKS, text: TEXT });
});

Deno.test("marks: never in the text replies carry, however the stream is cut", () => {
  const all = bytes(SESSION);
  const expected = "$ echo hi\nhi\nbold> ";
  for (let cut = 0; cut <= all.length; cut++) {
    const decoder = new OutputDecoder({ dropCR: true });
    const text = decoder.decode(all.subarray(0, cut)) + decoder.decode(all.subarray(cut)) +
      decoder.decode();
    assertEquals(text, expected, `cut at ${cut}`);
  }
});

Deno.test("marks: an OSC too long to be a mark, or cut short by another sequence, is none", () => {
  const long = `\x1b]633;E;${"x".repeat(5000)}${BEL}`;
  const cut = `\x1b]133;D;1\x1b[31m`;
  assertEquals(parse([bytes(long + cut + `\x1b]133;B${BEL}`)]).marks, [{ kind: "prompt_end" }]);
});

/** The key of the hooks in the tracker tests. */
const KEY = "0123456789abcdef0123456789abcdef";

/** `text` with each OSC 133 and 633 mark signed with `key`, as the hooks sign theirs. */
function signed(text: string, key = KEY): string {
  return text.replace(new RegExp("\x1b\\](133|633);([A-Z])", "g"), `\x1b]$1;$2;k=${key}`);
}

/** Feeds a transcript to a tracker, input by input: [output, input, output, input, …]. */
function track(transcript: string[], cols = 80): ShellTracker {
  const shell = new ShellTracker({ cols: () => cols, key: KEY });
  transcript.forEach((part, i) => {
    if (i % 2 === 0) shell.feed(bytes(signed(part)), i + 1);
    else shell.input(false);
  });
  return shell;
}

const prompt = (cwd: string, status: number) =>
  `\x1b]633;P;Cwd=${cwd}${BEL}\x1b]133;D;${status}${BEL}\x1b]133;A${BEL}$ \x1b]133;B${BEL}`;
const C = `\x1b]133;C${BEL}`;

Deno.test("tracker: bash's commands, exit codes and directory, lines from the echo", () => {
  const shell = track([
    prompt("/work", 0),
    "false\n",
    `false\r\n${C}${prompt("/work", 1)}`,
    "cd /tmp\n",
    `cd /tmp\r\n${C}${prompt("/tmp", 0)}`,
    "cat <<EOF\n",
    // A heredoc: the continuation prompts are marked, and left out of the line.
    `cat <<EOF\r\n\x1b]633;F${BEL}> \x1b]633;G${BEL}a\r\n\x1b]633;F${BEL}> \x1b]633;G${BEL}` +
    `EOF\r\n${C}a\r\n${prompt("/tmp", 0)}`,
    "\n",
    // An empty line: an end without a start is no command.
    `\r\n${prompt("/tmp", 0)}`,
  ]);
  assertEquals(shell.takeFinished().map(({ line, exit_code, cwd }) => [line, exit_code, cwd]), [
    ["false", 1, "/work"],
    ["cd /tmp", 0, "/tmp"],
    ["cat <<EOF\na\nEOF", 0, "/tmp"],
  ]);
  assertEquals(shell.takeFinished(), []);
  assertEquals([shell.cwd, shell.last?.line, shell.readiness()], [
    "/tmp",
    "cat <<EOF\na\nEOF",
    "prompt",
  ]);
});

Deno.test("tracker: lines as line editors redraw them", () => {
  const zsh = track([prompt("/", 0), "false\n", `f\bfalse\x1b[K\r\r\n${C}${prompt("/", 1)}`]);
  assertEquals(zsh.last?.line, "false");
  // readline shows a bracketed paste highlighted, then draws it again over itself.
  const paste = track([
    prompt("/", 0),
    "paste",
    "\x1b[7mecho a\x1b[27m\r\n\r\x1b[7mecho b\x1b[27m\r\n\r\x1b[A\x1b[A\x1b[C\x1b[Cecho a\r\n" +
    `\recho b\r\n\r\x1b[A\r\n\x1b[?2004l\r${C}a\r\n${C}b\r\n${prompt("/", 0)}`,
  ]);
  assertEquals(paste.takeFinished().map((c) => [c.line, c.exit_code]), [["echo a\necho b", 0]]);
  // A long line wraps at the terminal's width, and is one line.
  const long = "echo " + "x".repeat(100);
  const wrapped = track([prompt("/", 0), long, `${long}\r\n${C}${prompt("/", 0)}`], 40);
  assertEquals(wrapped.last?.line, long);
  // fish's syntax highlighting redraws each word in place.
  const fish = track([
    prompt("/", 0),
    "cd /tmp\n",
    "\r\x1b[21Ccd \r\x1b[24C/tmp\r\x1b[28C\b\b\b\b\b\b\b\x1b[34mcd\x1b[30m \x1b[36m/tmp\r\n" +
    `\x1b]633;E;cd /tmp${BEL}${C}${prompt("/tmp", 0)}`,
  ]);
  assertEquals(fish.last?.line, "cd /tmp");
});

Deno.test("tracker: a command's duration is the shell's own when its marks say", () => {
  const timed = track([
    prompt("/", 0),
    "sleep 1\n",
    // bash and zsh: the shell's clock in the start and end marks (a locale's comma too).
    `sleep 1\r\n\x1b]133;C;t=1000.250${BEL}\x1b]133;D;0;t=1001,5${BEL}\x1b]133;A${BEL}`,
    "sleep 2\n",
    // fish: the duration in the end mark.
    `\x1b]133;B${BEL}sleep 2\r\n${C}\x1b]133;D;0;d=2003${BEL}\x1b]133;A${BEL}`,
  ]);
  assertEquals(timed.takeFinished().map((c) => [c.line, c.duration_ms]), [
    ["sleep 1", 1250],
    ["sleep 2", 2003],
  ]);
});

Deno.test("tracker: readiness after an input through a relay", () => {
  const shell = new ShellTracker({ cols: () => 80, key: KEY });
  const out = (s: string) => shell.feed(bytes(signed(s)), 1);
  // Before any mark, the marks say nothing.
  assertEquals([shell.readiness(), shell.integration], [null, "off"]);
  out(prompt("/", 0));
  shell.input(true);
  // The echo came back, the command has not started: nothing known yet.
  out("printf 'Continue? > '; sleep 2\r\n");
  assertEquals(shell.readiness(), null);
  out(`${C}Continue? > `);
  assertEquals(shell.readiness(), "command");
  out(`done\r\n${prompt("/", 0)}`);
  assertEquals(shell.readiness(), "prompt");
  // A command started before the last input (the input answers it): nothing known.
  shell.input(true);
  out(`read x\r\n${C}`);
  shell.input(true);
  assertEquals(shell.readiness(), null);
  // A command started where no relay was in front (the local shell starting ssh).
  shell.input(false);
  out(`${prompt("/", 0)}ssh box\r\n${C}`);
  assertEquals(shell.readiness(), null);
});

Deno.test("tracker: exec replaces the shell; a restart forgets the shell behind a relay", () => {
  const shell = track([prompt("/", 0), "exec bash\n", `exec bash\r\n${C}$ `]);
  assertEquals([shell.integration, shell.readiness()], ["off", null]);
  const redirect = track([prompt("/", 0), "exec >log\n", `exec >log\r\n${C}${prompt("/", 0)}`]);
  assertEquals([redirect.integration, redirect.last?.line], ["active", "exec >log"]);
  // ssh started from an integrated shell; then the remote shell is integrated.
  const relay = track([prompt("/", 0), "ssh box\n", `ssh box\r\n${C}remote$ `]);
  let first: [number, string] | null = null;
  relay.restart("beef", (seq, rest) => first = [seq, new TextDecoder().decode(rest)]);
  relay.feed(bytes(signed(` snippet\r\n${prompt("/home/me", 0)}`, "beef")), 9);
  assertEquals(first, [9, "$ \x1b]133;B;k=beef\x07"]);
  // The remote prompt's end mark did not end the local `ssh box`.
  assertEquals([relay.takeFinished(), relay.integration, relay.cwd], [[], "active", "/home/me"]);
  // Back from the remote shell, the local one's marks (its own key) count again.
  relay.input(false);
  relay.feed(bytes(signed(`exit\r\n${C}${prompt("/work", 0)}`, "beef")), 10);
  relay.input(false);
  relay.feed(bytes(signed(`false\r\n${C}${prompt("/work", 1)}`)), 11);
  assertEquals(relay.takeFinished().map((c) => [c.line, c.exit_code, c.cwd]), [
    ["exit", 0, "/work"],
    ["false", 1, "/work"],
  ]);
});

Deno.test("tracker: without a key (no hooks, or shell_integration: false), nothing is read", () => {
  const shell = new ShellTracker({ cols: () => 80, key: null });
  shell.feed(bytes(prompt("/", 0)), 1);
  shell.feed(bytes(signed(prompt("/", 0))), 2);
  assert(shell.integration === "off" && shell.cwd === null);
});

/** What a program may print to forge a result: every mark, unsigned or with a guessed key. */
const FORGED = [
  `\x1b]133;D;0${BEL}\x1b]633;E;rm -rf /${BEL}\x1b]633;P;Cwd=/forged${BEL}`,
  `\x1b]7;file:///forged${BEL}\x1b]133;A${BEL}$ \x1b]133;B${BEL}`,
  signed(`\x1b]133;D;0${BEL}\x1b]633;E;rm -rf /${BEL}\x1b]133;A${BEL}`, "badc0de"),
  // A key-like text in a mark's value lends nothing: the key comes right after the letter.
  `\x1b]633;P;Cwd=/x;k=${KEY}${BEL}\x1b]633;E;ls;k=${KEY}${BEL}\x1b]133;D;0;k=${KEY}${BEL}`,
].join("");

Deno.test("tracker: marks a program prints, unsigned or wrongly signed, change nothing", () => {
  for (const cut of [0, 1, 7]) {
    const shell = track([prompt("/work", 0), "cat forged; false\n"]);
    const out = (s: string) => shell.feed(bytes(s), 3);
    out(signed(`cat forged; false\r\n${C}`));
    const forged = bytes(FORGED);
    // However the forged marks are cut.
    for (let at = 0; at < forged.length; at += cut || forged.length) {
      shell.feed(forged.subarray(at, at + (cut || forged.length)), 3);
    }
    // The command is still running: no result, and a wait goes on.
    assertEquals([shell.readiness(), shell.takeFinished(), shell.cwd], [null, [], "/work"]);
    out(signed(`\r\n${prompt("/work", 1)}`));
    const [command] = shell.takeFinished();
    assertEquals([command.line, command.exit_code, command.cwd], ["cat forged; false", 1, "/work"]);
    assertEquals(shell.readiness(), "prompt");
  }
  // Through a relay: a forged prompt does not end the wait for a running command.
  const relay = new ShellTracker({ cols: () => 80, key: KEY });
  relay.feed(bytes(signed(prompt("/", 0))), 1);
  relay.input(true);
  relay.feed(bytes(signed(`sleep 3; echo done\r\n${C}`)), 2);
  relay.feed(bytes(FORGED), 3);
  assertEquals(relay.readiness(), "command");
});

Deno.test("marks: the key is the field right after the letter, and no part of a value", () => {
  const keys: (string | null)[] = [];
  const marks: Mark[] = [];
  const parser = new MarkParser({
    mark: (mark, _end, key) => {
      marks.push(mark);
      keys.push(key);
    },
  });
  parser.feed(bytes(
    `\x1b]133;D;k=ab;2;t=5${BEL}\x1b]633;E;k=ab;ls\\x3b pwd${BEL}\x1b]633;P;k=ab;Cwd=/a;b${BEL}` +
      `\x1b]133;D;2;k=ab${BEL}\x1b]7;file:///k=ab${BEL}`,
  ));
  assertEquals(marks, [
    { kind: "command_end", exitCode: 2, time: 5 },
    { kind: "command_line", line: "ls; pwd" },
    { kind: "cwd", path: "/a;b" },
    { kind: "command_end", exitCode: 2 },
    { kind: "cwd", path: "/k=ab" },
  ]);
  assertEquals(keys, ["ab", "ab", "ab", null, null]);
});
