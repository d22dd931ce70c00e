/**
 * Lets the rest of the event loop run (timers, I/O, every pending
 * microtask), without a timer's 1-2 ms: a message to ourselves. Here, below
 * src/, because the readiness loop needs it during a flood; src/async.ts
 * hands it on.
 *
 * @module
 */

/** Resolves once the event loop has run its other work. */
export function yieldTurn(): Promise<void> {
  const { port1, port2 } = new MessageChannel();
  return new Promise((resolve) => {
    port1.onmessage = () => {
      port1.close();
      resolve();
    };
    port2.postMessage(null);
  });
}
