// The list of processes on the watch page: name or command, state and running time.

/** A process's state as words, and the kind that colours its badge. */
export function describeState(process) {
  if (process.status === "killed") {
    return {
      label: `killed${process.exit_signal ? ` (${process.exit_signal})` : ""}`,
      kind: "killed",
    };
  }
  if (process.status === "exited") {
    const how = process.exit_signal ? process.exit_signal : `code ${process.exit_code}`;
    return { label: `exited (${how})`, kind: "exited" };
  }
  return { label: process.state.replaceAll("_", " "), kind: process.state };
}

/** How long it ran, or has been running: "4 s", "2 m 13 s", "1 h 05 m". */
export function elapsed(process) {
  const end = process.ended_at ? Date.parse(process.ended_at) : Date.now();
  const seconds = Math.max(0, Math.round((end - Date.parse(process.started_at)) / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) {
    return `${Math.floor(seconds / 60)} m ${String(seconds % 60).padStart(2, "0")} s`;
  }
  const minutes = Math.floor(seconds / 60);
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} m`;
}

/** Redraws the list in `element`; `choose(id)` is called when the person picks one. */
export function renderList(element, processes, chosen, choose) {
  const items = processes.map((process) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "process";
    button.dataset.id = String(process.id);
    button.setAttribute("aria-current", String(process.id === chosen));
    button.addEventListener("click", () => choose(process.id));
    const line = document.createElement("div");
    line.className = "line";
    const { label, kind } = describeState(process);
    line.append(
      span("id", `#${process.id}`),
      span("name", [process.name ?? process.command, ...process.args].join(" ")),
      Object.assign(span("badge small", label), { title: label }),
    );
    line.lastChild.dataset.state = kind;
    const meta = document.createElement("div");
    meta.className = "meta";
    const parts = [elapsed(process), process.pty ? "terminal" : "pipes"];
    if (process.name) parts.push(process.command);
    if (process.policy) parts.push(`policy: ${process.policy}`);
    if (process.machine) parts.push(`on ${process.machine}`);
    meta.textContent = parts.join(" · ");
    if (process.controlled_by === "person") {
      meta.append(" · ", span("badge small person", "person typing"));
    }
    button.append(line, meta);
    item.append(button);
    return item;
  });
  element.replaceChildren(...items);
}

function span(className, text) {
  const element = document.createElement("span");
  element.className = className;
  element.textContent = text;
  return element;
}
