/**
 * Portal's terminal view in a client nobody here wrote: the official MCP
 * Inspector's web UI (tests/helpers/inspector_web.ts), whose Apps tab renders
 * MCP Apps. What a person does there: sees the agent's python, vim and a long
 * build live, takes the keyboard and gives it back, and the agent's next
 * reply (a call from the Inspector's Tools tab) says what they typed. Each
 * screenshot is printed.
 *
 * @module
 */
import { badgeUntil } from "../helpers/app_host.ts";
import { screenshot, sharedBrowser, terminalUntil } from "../helpers/browser.ts";
import { openInspector } from "../helpers/inspector_web.ts";
import { assert, assertMatch } from "../helpers/assert.ts";

const pageTest = sharedBrowser();

/** The view's title, as the Inspector lists process_watch among its apps. */
const WATCH = "Let a person watch";

pageTest("MCP Inspector: python in the view; take over, give back; person_input", async (b) => {
  await using inspector = await openInspector(b);
  const started = await inspector.callTool("process_start", {
    command: "python3",
    args: ["-q"],
    pty: true,
    wait: "ready",
  });
  const view = await inspector.openApp(WATCH);
  await terminalUntil(view, ">>>", (text) => text.includes(">>>"));
  await badgeUntil(view, /agent holds the keyboard/);

  await view.click("#take");
  await badgeUntil(view, /you hold the keyboard/);
  await view.click(".terminal");
  await inspector.page.keyboard.type("print(111*3)");
  await inspector.page.keyboard.press("Enter");
  await terminalUntil(view, "333", (text) => /^333$/m.test(text));
  await screenshot(inspector.page, "inspector-python-taken-over");
  await view.click("#give");
  await badgeUntil(view, /agent holds the keyboard/);

  const reply = await inspector.callTool("process_write", {
    id: started.id,
    content: "print(2+2)\n",
  });
  // The agent's reply: what the person typed, and the output since its last call, theirs too.
  assert(String(reply.person_input).includes("print(111*3)"), JSON.stringify(reply));
  assertMatch(String(reply.output), /333\n>>> print\(2\+2\)\n4\n>>> $/);
});

pageTest("MCP Inspector: vim and a long build drawn live in the view", async (b) => {
  await using inspector = await openInspector(b);
  const file = await Deno.makeTempFile({ suffix: ".txt" });
  try {
    await Deno.writeTextFile(file, "drawn by vim in the view\n");
    await inspector.callTool("process_start", { command: "vim", args: [file], pty: true });
    const vim = await inspector.openApp(WATCH);
    await terminalUntil(
      vim,
      "the file in vim",
      (text) => text.includes("drawn by vim in the view"),
    );
    await terminalUntil(vim, "vim's empty lines", (text) => /^~$/m.test(text));
    await screenshot(inspector.page, "inspector-vim");
  } finally {
    await Deno.remove(file);
  }

  const build = "for i in $(seq 1 40); do echo step $i of 40; sleep 0.25; done";
  await inspector.callTool("process_start", { command: "sh", args: ["-c", build], pty: true });
  const view = await inspector.openApp(WATCH);
  // Live: the view shows a step, then a later one, while the build still runs.
  const first = await terminalUntil(view, "a step", (text) => /step \d+ of 40/.test(text));
  const shown = (text: string) =>
    Math.max(...[...text.matchAll(/step (\d+) of 40/g)].map((m) => +m[1]));
  await terminalUntil(
    view,
    "a later step",
    (text) => shown(text) > shown(first) && shown(text) < 40,
  );
  await screenshot(inspector.page, "inspector-long-build");
});
