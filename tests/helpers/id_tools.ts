/** Every tool that takes a process id, with the other arguments a valid call needs. */
export const ID_TOOLS = [
  ["process_read", {}],
  ["process_read_new", {}],
  ["process_write", { content: "x" }],
  ["process_signal", { signal: "SIGINT" }],
  ["process_inspect", {}],
  ["process_kill", {}],
  ["process_clear", {}],
  ["process_cleanup", {}],
  ["process_screen", {}],
] as const;
