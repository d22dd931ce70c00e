/**
 * Patterns: what `expect` and `prompt` cost (src/core/pattern/pattern.ts).
 * First the engine alone: the slowest single search among patterns that
 * make JavaScript's engine backtrack for ever, each on a window as long as
 * its span, of text built to be their worst; the goal keeps a search short
 * enough for other calls to be answered between searches; and the refusal of
 * a pattern too big to compile, which must come before compiling. Then through the
 * server: each such `expect` on long output, and such a `prompt`, while
 * process_list is asked over and over: how far the wait overshoots its
 * `wait_ms`, and process_list's p99.
 *
 * Run: deno run -A bench/patterns.ts
 */
import { Portal } from "../dev/portal_client.ts";
import { Pattern } from "../src/core/pattern/pattern.ts";
import { median, ms, percentile, row } from "./lib.ts";

const ADVERSARIAL = [
  "(a+)+$",
  "(a|a)+$",
  "(.*a){20}",
  "(.*a){20}$",
  "(.*a){70}",
  "((.*a){8}){8}",
  "^(\\w+\\s?)+$",
  "(\\w+\\s?)*$",
  "(x+x+)+y",
  "(?:.*a){130}",
  "(.?){99}",
  "(?<=a.*)b(?<!c)",
];
const TEXTS: Record<string, (n: number) => string> = {
  "a…": (n) => "a".repeat(n),
  "ab1 …": (n) => "ab1 ".repeat(Math.ceil(n / 4)).slice(0, n),
  "lines": (n) => "aaaaaaaaa\n".repeat(Math.ceil(n / 10)).slice(0, n),
};

// Each case's median of 9 (the machine is shared: a single time may hold a GC or a preemption).
let worst = { ms: 0, what: "" };
for (const source of ADVERSARIAL) {
  const pattern = Pattern.compile(source, "expect");
  for (const [name, make] of Object.entries(TEXTS)) {
    const text = make(pattern.span);
    for (let i = 0; i < 3; i++) pattern.find(text); // warm up the JIT
    const time = (search: () => unknown) => {
      const start = performance.now();
      search();
      return performance.now() - start;
    };
    const finds = Array.from({ length: 9 }, () => time(() => pattern.find(text)));
    // A line longer than the span: its end is searched with the characters around it.
    const ends = Array.from({ length: 9 }, (_, i) => time(() => pattern.matchesEnd(text + i)));
    for (const [how, times] of [["find", finds], ["prompt", ends]] as const) {
      const typical = median(times);
      if (typical > worst.ms) worst = { ms: typical, what: `${how} ${source} on ${name}` };
    }
  }
}
row(
  "12 patterns",
  `slowest search (median of 9), ${ADVERSARIAL.length} ReDoS patterns × ${
    Object.keys(TEXTS).length
  } texts, each a window as long as its span, as expect and as prompt`,
  `${ms(worst.ms)} (${worst.what})`,
  "< 10 ms",
  worst.ms < 10,
);

// A pattern its estimate refuses is refused before RE2 compiles it: 3,600 characters that would
// compile to 600,000 instructions (over a second to compile). Median of 9.
const huge = "a{999}".repeat(600);
const refusals = Array.from({ length: 9 }, () => {
  const start = performance.now();
  try {
    Pattern.compile(huge, "expect");
  } catch { /* refused, as it must be */ }
  return performance.now() - start;
});
row(
  "12 patterns",
  "refusing a 3,600-character pattern that would compile to 600,000 instructions (median of 9)",
  ms(median(refusals)),
  "< 100 ms",
  median(refusals) < 100,
);

const WAIT_MS = 1000;
const THROUGH_SERVER = [
  { expect: "(a+)+$", content: "a".repeat(40) + "b\n" },
  { expect: "(a|a)+$", content: "a".repeat(5000) + "b\n" },
  { expect: "(.*a){20}", content: ("a".repeat(19) + "\n").repeat(3000) },
  { expect: "^(\\w+\\s?)+$", content: "word ".repeat(12_000) + "!\n" },
  { prompt: "^(a|a)+$", content: "a".repeat(5000) + "b" },
];
{
  await using portal = await Portal.start();
  for (const c of THROUGH_SERVER) {
    const id = await portal.spawn("cat", [], c.prompt ? { prompt: c.prompt } : {});
    const wait = c.expect ? { expect: c.expect, wait: "exit" } : {};
    let stop = false;
    const latencies: number[] = [];
    const others = (async () => {
      while (!stop) {
        const asked = performance.now();
        await portal.call("process_list");
        latencies.push(performance.now() - asked);
      }
    })();
    const start = performance.now();
    const reply = await portal.call("process_write", {
      id,
      content: c.content,
      wait_ms: WAIT_MS,
      ...wait,
    });
    const over = performance.now() - start - WAIT_MS;
    stop = true;
    await others;
    await portal.call("process_kill", { id });
    const p99 = percentile(latencies, 0.99);
    const what = c.expect ? `expect ${c.expect}` : `prompt ${c.prompt}`;
    row(
      "12 patterns",
      `${what} on ${c.content.length} characters, wait_ms ${WAIT_MS}: overshoot; ` +
        `process_list p99 meanwhile (${latencies.length} calls)`,
      `${reply.reason}, +${ms(over)}; p99 ${ms(p99)}`,
      "timeout, < 100 ms; p99 < 20 ms",
      reply.reason === "timeout" && over < 100 && p99 < 20,
    );
  }
}
