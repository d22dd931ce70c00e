// The watch page: the processes of one Portal client (or all of them), live, and the terminal
// of the one chosen. One WebSocket carries the list, the screens and the program's bytes (as
// binary frames) one way, and the person's choices and keys the other. Keys go nowhere until
// the person presses Take over.
import { TerminalView } from "./terminal_view.js";
import { describeState, elapsed, renderList } from "./process_list.js";

const $ = (id) => document.getElementById(id);
/** What xterm.js sends when the page gains or loses focus, if the program asked for it. */
const FOCUS_REPORTS = ["\x1b[I", "\x1b[O"];
const params = new URLSearchParams(location.search);
/** What the link asked to show first: a process's id, or its name (the live one, else the newest). */
const asked = { id: params.has("id") ? Number(params.get("id")) : null, name: params.get("name") };
const token = takeToken();

const state = {
  processes: [],
  /** What the header calls the list (from the server: whose processes they are). */
  label: "",
  /** The id the person chose (or the link named), and the one whose screen is shown. */
  chosen: asked.id,
  shown: null,
  mine: false,
  /** The program prints faster than a page can draw: a picture of its latest output is shown. */
  flooding: false,
  socket: null,
};

const view = new TerminalView($("terminal"), {
  onKeys: (data) => {
    if (state.mine) send({ type: "input", data });
    // Focus reports (a program may ask for them) are not the person typing.
    else if (state.shown !== null && isRunning(current()) && !FOCUS_REPORTS.includes(data)) {
      notice(
        "Read-only: what you type goes nowhere. Press Take over to type into the program.",
        "flash",
      );
    }
  },
  onBehind: () => send({ type: "watch", id: state.shown }),
});

/**
 * The link's token, which decides what this page may see. It comes in the link's fragment, which
 * the browser sends to no server, and leaves the address bar (and history). It is kept in this
 * tab's sessionStorage for a reload: that is this origin's alone (scheme, host and port), never
 * sent anywhere by itself, unlike a cookie, which every server on this host would receive
 * whatever its port. This page shows it to its own server only: in the socket's subprotocols
 * and as a fetch's Authorization.
 */
function takeToken() {
  const KEY = "portal.watch.token";
  const linked = new URLSearchParams(location.hash.slice(1)).get("token");
  if (location.hash !== "") {
    history.replaceState(null, "", `${location.pathname}${location.search}`);
  }
  try {
    if (linked) sessionStorage.setItem(KEY, linked);
    return linked ?? sessionStorage.getItem(KEY);
  } catch {
    return linked; // Storage turned off: the token lives as long as the page.
  }
}

/** A recording of process `id`, fetched with the token. */
function fetchCast(id) {
  return fetch(`/watch/cast?id=${id}`, { headers: { authorization: `Bearer ${token}` } });
}

function send(message) {
  if (state.socket?.readyState === WebSocket.OPEN) state.socket.send(JSON.stringify(message));
}

function current() {
  return state.processes.find((p) => p.id === state.chosen);
}

function isRunning(process) {
  return process?.status === "running";
}

function connect() {
  if (!token) {
    setConnection("closed", "no token");
    $("choose").textContent = "This page was opened without its token: open it through its " +
      "link (process_watch, or `portal watch` at a shell).";
    return;
  }
  const socket = new WebSocket(`ws://${location.host}/watch/socket`, [
    "portal.watch",
    `portal.token.${token}`,
  ]);
  socket.binaryType = "arraybuffer";
  state.socket = socket;
  socket.onopen = () => {
    setConnection("live", "live");
    if (state.chosen !== null) send({ type: "watch", id: state.chosen });
  };
  socket.onmessage = ({ data }) => {
    if (typeof data !== "string") {
      if (state.shown !== null) view.write(data);
      return;
    }
    receive(JSON.parse(data));
  };
  socket.onclose = () => {
    state.mine = false;
    state.shown = null;
    setConnection("closed", "disconnected: Portal stopped, or this client ended");
    render();
  };
}

function receive(message) {
  switch (message.type) {
    case "processes": {
      state.processes = message.processes;
      state.label = message.label;
      // A name the list does not hold (yet) chooses nothing: the header says so.
      const first = asked.name === null ? state.processes[0] : linked();
      if (state.chosen === null && first !== undefined) choose(first.id);
      render();
      break;
    }
    case "screen": {
      // A flood sends a picture several times a second: the rest of the page redraws only
      // when what it says changes (a list rebuilt each time cost the browser a layout).
      const flooding = message.flooding === true;
      const changed = state.shown !== message.id || state.flooding !== flooding;
      state.shown = message.id;
      state.flooding = flooding;
      view.showScreen(message);
      if (changed) render();
      break;
    }
    case "resize":
      if (message.id === state.shown) view.resize(message.cols, message.rows);
      break;
    case "control":
      if (message.id !== state.shown) break;
      state.mine = message.mine;
      clearTimeout(noticeTimer);
      noticeTimer = undefined;
      if (state.mine) view.focus();
      render();
      break;
    case "error":
      notice(message.message, "error");
      break;
  }
}

/** The process the link asked for, if the list holds it. */
function linked() {
  if (asked.id !== null) return state.processes.find((p) => p.id === asked.id);
  const named = state.processes.filter((p) => p.name === asked.name);
  return named.findLast(isRunning) ?? named.at(-1);
}

/** What the link asked for, as the page says it ("#3", "calc"), or null. */
function askedFor() {
  return asked.name ?? (asked.id === null ? null : `#${asked.id}`);
}

/** The header: whose processes the list shows, and which one the link was for, if it named one. */
function header() {
  const what = askedFor();
  if (what === null) return state.label;
  const process = linked();
  if (process === undefined) return `no process ${what} here · ${state.label}`;
  const name = `${asked.name ?? process.name ?? process.command} (#${process.id})`;
  return `link for ${name} · in the list of ${state.label}`;
}

function choose(id) {
  if (id === state.chosen && state.shown === id) return;
  state.chosen = id;
  state.mine = false;
  // The address bar names what is shown: a reload opens it again.
  params.set("id", String(id));
  params.delete("name");
  history.replaceState(null, "", `${location.pathname}?${params}`);
  // A process on another machine has its screen on that machine's page, not here.
  if (current()?.machine === undefined) send({ type: "watch", id });
  render();
}

function setConnection(kind, text) {
  $("connection").dataset.state = kind;
  $("connection").textContent = text;
}

let noticeTimer;
function notice(text, kind) {
  clearTimeout(noticeTimer);
  $("notice").textContent = text;
  $("notice").dataset.kind = kind;
  if (kind === "flash") noticeTimer = setTimeout(render, 2500);
}

function render() {
  if (state.label !== "") $("scope").textContent = header();
  renderList($("processes"), state.processes, state.chosen, choose);
  $("empty").hidden = state.processes.length > 0;
  const process = current();
  const remote = process?.machine !== undefined;
  $("placeholder").hidden = process !== undefined && !remote;
  $("view").hidden = process === undefined || remote;
  if (remote) {
    $("choose").textContent =
      `#${process.id} runs on ${process.machine}: its terminal is on that ` +
      `machine's watch page (ssh ${process.machine} portal watch), or join it from a terminal ` +
      `with portal attach ${process.machine}:${process.name ?? "NAME"}.`;
    return;
  }
  if (process === undefined) {
    if (state.label !== "" && askedFor() !== null && linked() === undefined) {
      $("choose").textContent = `No process ${askedFor()} in this list: it was cleaned up, ` +
        "or belongs to another client. Choose one on the left.";
    }
    return;
  }
  $("title").textContent = [process.name ?? process.command, ...process.args].join(" ");
  const { label, kind } = describeState(process);
  $("state").textContent = label;
  $("state").dataset.state = kind;
  const size = process.pty ? `${process.cols}×${process.rows}` : "pipes";
  $("facts").textContent = `#${process.id} · ${size} · ${elapsed(process)}`;
  const running = isRunning(process);
  $("take").hidden = state.mine || !running;
  $("give").hidden = !state.mine;
  $("replay").hidden = running || !process.pty;
  $("download").hidden = !process.pty;
  $("terminal").parentElement.classList.toggle("typing", state.mine);
  if (noticeTimer !== undefined && $("notice").dataset.kind === "flash") return;
  if (state.mine) {
    notice(
      "You are typing into this program. The agent's writes are refused until you press " +
        "Give back (or close this page).",
      "typing",
    );
  } else if (process.controlled_by === "person") {
    notice("A person on another page is typing into this program.", "typing");
  } else if (running && state.flooding) {
    notice(
      "Watching, read-only. It prints faster than a page can draw: its latest output is " +
        "shown, and the exact screen once it pauses.",
      "watching",
    );
  } else if (running) {
    notice(
      "Watching, read-only: keys typed here go nowhere until you press Take over.",
      "watching",
    );
  } else {notice(
      "This process has ended: its last screen is shown; replay or download it.",
      "watching",
    );}
  noticeTimer = undefined;
}

$("take").addEventListener("click", () => send({ type: "take_over" }));
$("give").addEventListener("click", () => send({ type: "give_back" }));
for (const button of $("replay").querySelectorAll("button")) {
  button.addEventListener("click", async () => {
    const id = state.chosen;
    const speed = button.dataset.speed === "max" ? "max" : Number(button.dataset.speed);
    const response = await fetchCast(id);
    if (!response.ok) {
      return notice(`The recording could not be loaded (${response.status}).`, "error");
    }
    notice(`Replaying at ${button.textContent}…`, "flash");
    if (await view.replay(await response.text(), speed)) notice("Replay finished.", "flash");
  });
}
// A download is fetched with the token (a link could not carry it), then saved under its name.
$("download").addEventListener("click", async () => {
  const response = await fetchCast(state.chosen);
  if (!response.ok) {
    return notice(`The recording could not be loaded (${response.status}).`, "error");
  }
  const disposition = response.headers.get("content-disposition") ?? "";
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? "portal.cast";
  const url = URL.createObjectURL(await response.blob());
  Object.assign(document.createElement("a"), { href: url, download: name }).click();
  // The browser has the file once the click is handled; the blob is let go after a while.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
});
// Running times tick without the server.
setInterval(render, 1000);
connect();
