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
// The token was traded for a cookie with this page: it leaves the address bar (and history).
if (params.has("token")) {
  params.delete("token");
  history.replaceState(null, "", `${location.pathname}?${params}`);
}
const scope = params.get("scope") ?? "";

const state = {
  processes: [],
  /** The id the person chose (or the link named), and the one whose screen is shown. */
  chosen: params.has("id") ? Number(params.get("id")) : null,
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
  const socket = new WebSocket(
    `ws://${location.host}/watch/socket?scope=${encodeURIComponent(scope)}`,
  );
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
    case "processes":
      state.processes = message.processes;
      $("scope").textContent = message.label;
      if (state.chosen === null && state.processes.length > 0) {
        const named = state.processes.find((p) => p.name === params.get("name"));
        choose((named ?? state.processes[0]).id);
      }
      render();
      break;
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

function choose(id) {
  if (id === state.chosen && state.shown === id) return;
  state.chosen = id;
  state.mine = false;
  params.set("id", String(id));
  history.replaceState(null, "", `${location.pathname}?${params}`);
  send({ type: "watch", id });
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
  renderList($("processes"), state.processes, state.chosen, choose);
  $("empty").hidden = state.processes.length > 0;
  const process = current();
  $("placeholder").hidden = process !== undefined;
  $("view").hidden = process === undefined;
  if (process === undefined) return;
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
  $("download").href = `/watch/cast?scope=${encodeURIComponent(scope)}&id=${process.id}`;
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
    const response = await fetch(`/watch/cast?scope=${encodeURIComponent(scope)}&id=${id}`);
    if (!response.ok) {
      return notice(`The recording could not be loaded (${response.status}).`, "error");
    }
    notice(`Replaying at ${button.textContent}…`, "flash");
    if (await view.replay(await response.text(), speed)) notice("Replay finished.", "flash");
  });
}
// Running times tick without the server.
setInterval(render, 1000);
connect();
