// The terminal view, an MCP App: one process's terminal inside the chat, drawn by the watch
// page's TerminalView (terminal_view.js, inlined before this), fed by polls of the view's tools
// through the client (no connection of its own). Read-only until Take over; the model is told
// who holds the keyboard; closing the view gives it back. The App class is ext-apps' own,
// inlined before this (globalThis.McpApps).
const { App } = globalThis.McpApps;

/** After a failed poll (the client busy), the next try waits this long. */
const RETRY_MS = 1000;
/** Polls that fail in a row before the view says it has lost Portal. */
const MAX_FAILURES = 10;
/** The font sizes the terminal may take to fit the chat's width. */
const FONT = { max: 14, min: 10 };

const $ = (id) => document.getElementById(id);
/** Base64 to bytes: Uint8Array.fromBase64 where the browser has it (Chromium 140+), else atob. */
const fromBase64 = Uint8Array.fromBase64
  ? (text) => Uint8Array.fromBase64(text)
  : (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const app = new App(
  { name: "Portal terminal", version: "1.0.0" },
  { availableDisplayModes: ["inline", "fullscreen"] },
  { autoResize: true },
);

/** The view as process_watch opened it: token, process id, command, pty. */
let view = null;
let holding = false;
let ended = false;
let stopped = false;
let autoFullscreen = false;
/** Keys go out one call at a time, in order. */
let sending = Promise.resolve();

const terminal = new TerminalView($("terminal"), {
  onKeys: (data) => {
    if (!holding) return notice("Press Take over to type here; until then keys go nowhere.");
    sending = sending.then(() => call("view_keys", { data })).catch(showError);
  },
  onBehind: () => restart(),
});
terminal.term.buffer.onBufferChange((buffer) => followBuffer(buffer.type));

function notice(text) {
  $("notice").textContent = text;
  $("notice").hidden = text === "";
}

function showError(error) {
  notice(error.message);
}

/** Calls one of the view's tools with its token; its structured result, or an Error. */
async function call(name, args = {}) {
  const result = await app.callServerTool({
    name,
    arguments: { token: view.token, ...args },
  });
  if (result.isError) throw new Error(result.content?.[0]?.text ?? `${name} failed`);
  return result.structuredContent;
}

/** Draws what a poll brought. */
function apply(events) {
  for (const event of events) {
    if (event.type === "screen") {
      terminal.showScreen(event);
      notice(event.flooding ? "A flood of output: showing its latest screenful." : "");
      fit();
    } else if (event.type === "output") {
      terminal.write(fromBase64(event.data));
    } else if (event.type === "resize") {
      terminal.resize(event.cols, event.rows);
      fit();
    } else if (event.type === "control") {
      showControl(event.controlled_by, event.mine);
    } else if (event.type === "end") {
      ended = true;
      $("state").textContent = "ended";
      $("take").disabled = true;
      showControl("agent", false);
    }
  }
}

function showControl(controlledBy, mine) {
  holding = mine;
  $("take").hidden = mine;
  $("give").hidden = !mine;
  $("fit").hidden = !mine || !view.pty;
  const badge = $("state");
  if (ended) return;
  badge.dataset.person = String(controlledBy === "person");
  badge.textContent = mine
    ? "you hold the keyboard"
    : controlledBy === "person"
    ? "a person holds the keyboard elsewhere"
    : "the agent holds the keyboard";
}

/** Polls until the view closes; each poll waits up to a second for something new. */
async function follow() {
  let failures = 0;
  let reply = null;
  while (!stopped) {
    try {
      reply = reply === null
        ? await call("view_screen")
        : await call("view_poll", { cursor: reply.cursor });
      failures = 0;
      apply(reply.events);
    } catch (error) {
      if (stopped) return;
      if (/view is closed/.test(error.message) || ++failures >= MAX_FAILURES) {
        showError(error);
        $("take").disabled = true;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}

let restarting = null;
function restart() {
  // The next poll is a fresh screen: view_screen starts the feed over.
  restarting ??= call("view_screen").then((reply) => apply(reply.events)).catch(showError)
    .finally(() => restarting = null);
}

/** The terminal's font shrinks to fit the chat's width, down to a size still read. */
function fit() {
  const frame = document.querySelector(".terminal-frame");
  const { term } = terminal;
  const width = frame.clientWidth - 12;
  let size = term.options.fontSize;
  const cell = term.element.querySelector(".xterm-screen").clientWidth / term.cols;
  if (!(cell > 0)) return;
  const wanted = Math.max(
    FONT.min,
    Math.min(FONT.max, Math.floor(size * width / (cell * term.cols))),
  );
  if (wanted !== size) term.options.fontSize = size = wanted;
}

/** A full-screen program (the alternate buffer) asks for full screen; leaving it, inline again. */
function followBuffer(type) {
  if (type === "alternate" && displayMode() !== "fullscreen" && canShow("fullscreen")) {
    autoFullscreen = true;
    setMode("fullscreen");
  } else if (type === "normal" && autoFullscreen) {
    autoFullscreen = false;
    setMode("inline");
  }
}

function displayMode() {
  return app.getHostContext()?.displayMode ?? "inline";
}

function canShow(mode) {
  return app.getHostContext()?.availableDisplayModes?.includes(mode) ?? false;
}

async function setMode(mode) {
  try {
    const { mode: now } = await app.requestDisplayMode({ mode });
    document.documentElement.dataset.mode = now;
    $("full").textContent = now === "fullscreen" ? "Inline" : "Full screen";
    fit();
  } catch (error) {
    showError(error);
  }
}

/** The client's theme (light or dark), its fonts and colours where it gives them. */
function applyContext(context) {
  if (!context) return;
  if (context.theme) {
    document.documentElement.dataset.theme = context.theme;
    const light = context.theme === "light";
    terminal.term.options.theme = light
      ? { background: "#ffffff", foreground: "#1f2328", cursor: "#1f2328" }
      : { background: "#000000", foreground: "#e6edf3", cursor: "#e6edf3" };
  }
  for (const [name, value] of Object.entries(context.styles?.variables ?? {})) {
    if (value) document.documentElement.style.setProperty(name, value);
  }
  if (context.displayMode) document.documentElement.dataset.mode = context.displayMode;
  $("full").hidden = !canShow("fullscreen");
}

async function tell(text) {
  try {
    await app.updateModelContext({ content: [{ type: "text", text }] });
  } catch {
    // A client that keeps no model context: the agent still hears it in person_input.
  }
}

$("take").onclick = async () => {
  try {
    const { mine } = await call("view_control", { action: "take_over" });
    showControl("person", mine);
    notice("");
    terminal.focus();
    await tell(
      `The person took the keyboard of process ${view.id} (${view.command}) in the terminal ` +
        "view: process_write on it is refused until they give it back; process_read_new " +
        'with wait "ready" still follows along.',
    );
  } catch (error) {
    showError(error);
  }
};

$("give").onclick = async () => {
  try {
    await sending;
    await call("view_control", { action: "give_back" });
    showControl("agent", false);
    await tell(
      `The person gave the keyboard of process ${view.id} back: your next call on it ` +
        "carries person_input, what they typed.",
    );
  } catch (error) {
    showError(error);
  }
};

$("fit").onclick = async () => {
  const { term } = terminal;
  const screen = term.element.querySelector(".xterm-screen");
  const frame = document.querySelector(".terminal-frame");
  const cols = Math.floor((frame.clientWidth - 12) / (screen.clientWidth / term.cols));
  const height = displayMode() === "fullscreen" ? frame.clientHeight - 12 : screen.clientHeight;
  const rows = Math.floor(height / (screen.clientHeight / term.rows));
  await call("view_resize", { cols, rows }).catch(showError);
};

$("full").onclick = () => {
  autoFullscreen = false;
  setMode(displayMode() === "fullscreen" ? "inline" : "fullscreen");
};

$("download").onclick = async () => {
  try {
    const cast = await call("view_recording");
    const result = await app.downloadFile({
      contents: [{
        type: "resource",
        resource: { uri: `file:///${cast.name}`, mimeType: cast.mime_type, text: cast.text },
      }],
    });
    notice(
      result?.isError
        ? "The client did not save the recording."
        : cast.truncated
        ? "Saved the recording's first 8 MB: portal export gives all of it."
        : "",
    );
  } catch (error) {
    showError(error);
  }
};

app.ontoolresult = (result) => {
  const opened = result._meta?.["io.portal/view"];
  if (view !== null || stopped) return;
  if (!opened) {
    const url = result.structuredContent?.url;
    notice(`No process to show here${url ? `: the watch page is at ${url}` : ""}.`);
    return;
  }
  view = opened;
  $("title").textContent = `${view.id} · ${view.command}`;
  $("take").disabled = false;
  $("download").hidden = !view.pty || !app.getHostCapabilities()?.downloadFile;
  follow();
};

app.onhostcontextchanged = (context) => {
  applyContext(context);
  fit();
};

// Closing the view gives the keyboard back (its lease would, later).
app.onteardown = async () => {
  stopped = true;
  if (holding) await call("view_control", { action: "give_back" }).catch(() => {});
  return {};
};

await app.connect();
applyContext(app.getHostContext());
