/**
 * `expect` and `prompt` run on RE2 (src/core/pattern/pattern.ts), checked here
 * against what an agent writing JavaScript regexes expects: the same match
 * and groups as `new RegExp(source, "m")` for the syntax they share, the
 * documented differences exactly as documented, a clear refusal naming the
 * alternative for what RE2 cannot run, and windows that cut no line where
 * they can help it (src/core/steps/expect_scan.ts).
 */
import { ExpectScan } from "../../src/core/steps/expect_scan.ts";
import { Pattern } from "../../src/core/pattern/pattern.ts";
import { readPattern } from "../../src/core/pattern/pattern_syntax.ts";
import { PATTERN_MAX_PROGRAM } from "../../src/limits.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";

/** The message `source` is refused with (the test fails if it compiles). */
function refusal(source: string): string {
  try {
    Pattern.compile(source, "expect");
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${source} compiled`);
}

/** What JavaScript's engine finds, shaped as a wait's `match`. */
function native(source: string, text: string) {
  const found = new RegExp(source, "m").exec(text);
  if (found === null) return null;
  const groups: Record<string, string> = {};
  found.slice(1).forEach((v, i) => v !== undefined && (groups[String(i + 1)] = v));
  for (const [k, v] of Object.entries(found.groups ?? {})) if (v !== undefined) groups[k] = v;
  return { text: found[0], groups };
}

const SAME: [string, string][] = [
  ["^>>> $", "Python 3\n>>> "],
  ["\\$ $", "user@host:~$ "],
  ["^(?<n>\\d+) passed, (\\d+) failed$", "ok\n12 passed, 0 failed\n"],
  ["\\d+\\.\\d+", "version 3.11.7"],
  ["\\s+", "a \t\n b"],
  ["[A-Za-z_][\\w-]*", "  my-name_2 "],
  ["[^\\s]+", "  word  "],
  ["\\bfoo\\b", "foobar foo bar"],
  ["colou?r", "the colour"],
  ["a{2,3}", "caaaat"],
  ["x*?y", "xxxy"],
  ["(?:ab)+", "xababab"],
  ["(a)|(b)", "b"],
  ["[\\]\\[]+", "x[]y"],
  ["\\.\\*\\+\\?\\(\\)\\{\\}\\|\\^", "x.*+?(){}|^"],
  ["a\\/b", "a/b"],
  ["é+", "caféé"],
  ["[à-ÿ]+", "naïve"],
  ["\\u00e9\\x41", "éA"],
  ["\\cC", "x\x03"],
  ["[^]", "\n"],
  ["[]", "anything"],
  ["\\t(\\w+)", "a\tb"],
  ["^$", "a\n\nb"],
  ["(?<=\\$ )\\w+", "$ ls"],
  ["(?<!x)y", "xy zy"],
  ["[\\d.]+", "v1.2.3"],
  ["\\uD83D\\uDE00", "x😀"],
  ["(?:Password|passphrase)[^:]*: ?$", "Enter passphrase for key: "],
  ["^\\[sudo\\] password for \\w+: $", "[sudo] password for root: "],
  ["(\\w+)@(\\w+):(~|/[^$#]*)[$#] $", "root@box:/tmp# "],
  ["a{", "a{"],
  ["x{2,", "x{2,"],
  ["\\0", "a\0b"],
  ["(.*a){20}", "a".repeat(25)],
];

Deno.test("expect and prompt: the syntax JavaScript and RE2 share gives the same match", () => {
  for (const [source, text] of SAME) {
    assertEquals(Pattern.compile(source, "expect").find(text), native(source, text), source);
  }
});

Deno.test("expect and prompt: where RE2 differs from JavaScript, as documented", () => {
  const find = (source: string, text: string) => Pattern.compile(source, "expect").find(text);
  // `.` also matches \r; `^` and `$` see only \n as a line end (a pipe's CRLF: write \r?$).
  assertEquals([find("a.b", "a\rb")?.text, native("a.b", "a\rb")], ["a\rb", null]);
  assertEquals([find("^b", "a\rb"), native("^b", "a\rb")?.text], [null, "b"]);
  assertEquals([find("a$", "a\r\n"), native("a$", "a\r\n")?.text], [null, "a"]);
  assertEquals(find("a\\r?$", "a\r\n")?.text, "a\r");
  // \s is ASCII whitespace.
  assertEquals([find("\\s", "\u00a0"), native("\\s", "\u00a0")?.text], [null, "\u00a0"]);
  // Characters, not UTF-16 halves: `.` is a whole emoji.
  assertEquals([find("^.$", "😀")?.text, native("^.$", "😀")], ["😀", null]);
  assertEquals([find("😀+", "😀😀")?.text, native("😀+", "😀😀")?.text], ["😀😀", "😀"]);
  // RE2's own syntax works too.
  assertEquals(find("(?i)error", "ERROR: x")?.text, "ERROR");
  assertEquals(find("\\p{Greek}+", "abc αβγ")?.text, "αβγ");
  assertEquals(find("[[:digit:]]+", "x42")?.text, "42");
});

Deno.test("expect and prompt: what RE2 cannot run is refused, saying what to write instead", () => {
  const refusals: [string, RegExp][] = [
    ["(a)\\1", /uses a backreference \(\\1\).*write the repeated text out/],
    ["(?<x>a)\\k<x>", /uses a backreference \(\\k<name>\)/],
    ["a(?=b)", /uses a lookahead \(\(\?=…\).*a\(\?=b\) becomes ab.*\(\?<=…\)/],
    ["a(?!b)", /uses a lookahead \(\(\?!…\)/],
    ["(?<=(a))b", /a lookbehind may not hold a capturing group: write \(\?:…\) inside it/],
    ["a{1001}", /compiles to about \d+ instructions/],
    ["(?:a{999}){4}", /compiles to about \d+ instructions, more than the 400/],
    ["((.*)a){60}!", /compiles to about 4\d\d instructions/],
    ["(", /is not a valid regular expression: missing closing \)\. Portal matches with RE2/],
  ];
  for (const [source, message] of refusals) {
    assertMatch(refusal(source), message);
    assertMatch(refusal(source), /^expect "/);
  }
});

Deno.test("expect and prompt: the estimate refuses a huge program before it is compiled", () => {
  // 3,600 characters that would compile to 600,000 instructions (over a second to compile).
  // (How long the refusal takes is measured in bench/patterns.ts.)
  const source = "a{999}".repeat(600);
  const { estimate } = readPattern(source);
  assert(estimate > 4 * PATTERN_MAX_PROGRAM);
  // The size it names is the estimate's: a compiled program would name its own.
  assertMatch(refusal(source), new RegExp(`compiles to about ${estimate} instructions`));
  // \x{…} and \p{…} are no counted repetitions.
  assert(readPattern("\\x{2028}\\u{1F600}\\p{Greek}").estimate < 20);
});

Deno.test("expect: windows begin at a line start and end before a newline where they can", () => {
  // A simple pattern's window is thousands of characters: 50,000 arrive at once.
  const pattern = Pattern.compile("^(\\d+) done$", "expect");
  const lines = Array.from({ length: 5000 }, (_, i) => `${i} working`).join("\n");
  const scan = new ExpectScan(pattern, "");
  scan.add(lines + "\n7 done\n");
  const found = [];
  for (let i = 0; i < 100 && scan.pending; i++) found.push(scan.next());
  assertEquals(found.filter((m) => m !== null), [{ text: "7 done", groups: { "1": "7" } }]);
  // No window cut a line: inside one, ^ or $ would match where the whole text has no line end.
  const marked = lines.replace(/^/gm, "x");
  for (const source of ["^\\d+ working$", "^x\\d+ work$"]) {
    const cuts = new ExpectScan(Pattern.compile(source, "expect"), "");
    cuts.add(marked);
    let windows = 0;
    for (; cuts.pending; windows++) assertEquals(cuts.next(), null, source);
    assert(windows > 3, `${windows} windows`);
  }
});

Deno.test("expect: a line longer than a window is cut, and no ^, $ or \\b matches at a cut", () => {
  const line = "x" + "1".repeat(30_000) + "x\n";
  for (const source of ["^1", "1$", "\\b1", "(?<=^)1", "^(\\w+\\s?)+$"]) {
    const scan = new ExpectScan(Pattern.compile(source, "expect"), "");
    scan.add(line);
    let windows = 0;
    for (; scan.pending; windows++) assertEquals(scan.next(), null, source);
    assert(windows > 1, `${source}: ${windows} windows`);
  }
  // A short match across a cut is found by the next window, which overlaps it.
  const scan = new ExpectScan(Pattern.compile("x1{3}y", "expect"), "");
  const span = Pattern.compile("x1{3}y", "expect").span;
  scan.add("1".repeat(span - 2) + "x111y" + "1".repeat(span));
  const found = [];
  while (scan.pending) found.push(scan.next());
  assertEquals(found.filter((m) => m !== null), [{ text: "x111y", groups: {} }]);
});
