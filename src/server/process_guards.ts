/**
 * What a long-lived Portal process (a server, a host) does about its own
 * end and its own mistakes: a shutdown on the first signal, stdout kept for
 * the protocol, and stray failures logged instead of ending every program.
 *
 * @module
 */
import { SHUTDOWN_SIGNALS } from "../platform.ts";
import type { Log } from "../mcp/logging.ts";

/** Calls `stop` on the first shutdown signal (or call of the returned function), then exits. */
export function onShutdown(stop: () => Promise<void>): () => Promise<void> {
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await stop();
    Deno.exit(0);
  };
  for (const signal of SHUTDOWN_SIGNALS) Deno.addSignalListener(signal, shutdown);
  return shutdown;
}

/**
 * On stdio, stdout is the protocol: a stray `console.log` (ours or a
 * dependency's) would corrupt it, so the console's stdout methods write to
 * stderr instead. Over HTTP the same keeps stdout quiet.
 */
export function keepStdoutForProtocol(): void {
  console.log = console.info = console.debug = console.error;
}

/**
 * A long-lived server outlives a stray failure: it is logged instead of
 * ending the server and every program with it.
 */
export function reportStrayFailures(log: Log): void {
  const report = (what: string) => (event: Event) => {
    event.preventDefault();
    const detail = event instanceof ErrorEvent
      ? event.error
      : (event as PromiseRejectionEvent).reason;
    log.log("error", "server", `${what}: ${detail?.stack ?? detail}`);
  };
  globalThis.addEventListener("error", report("uncaught error"));
  globalThis.addEventListener("unhandledrejection", report("unhandled rejection"));
}
