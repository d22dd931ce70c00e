/**
 * A person's terminal for tests: a tmux server of the test's own, running
 * one command in a pane (new-session -d, send-keys, capture-pane).
 *
 * @module
 */
import { waitFor } from "../../dev/wait.ts";

/** A tmux server of the test's own (its socket in `dir`), running one pane. */
export class Pane implements AsyncDisposable {
  readonly #socket: string;

  private constructor(socket: string) {
    this.#socket = socket;
  }

  /** Runs `command` (with `env`) in a detached 100x30 pane that stays after it ends. */
  static async open(dir: string, command: string[], env: Record<string, string>): Promise<Pane> {
    const pane = new Pane(`${dir}/tmux.sock`);
    const quoted = command.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(" ");
    await pane.#tmux([
      "-f",
      "/dev/null",
      "new-session",
      "-d",
      "-s",
      "t",
      "-x",
      "100",
      "-y",
      "30",
      "sh",
      "-c",
      `${quoted}; echo "[exit $?]"; sleep 600`,
    ], env);
    return pane;
  }

  /** What the pane shows now. */
  async text(): Promise<string> {
    return await this.#tmux(["capture-pane", "-p", "-t", "t"]);
  }

  /** Waits until the pane shows what `done` wants; returns it. */
  until(what: string, done: (text: string) => boolean): Promise<string> {
    return waitFor(what, () => this.text(), { until: done, timeoutMs: 20_000, intervalMs: 50 });
  }

  async keys(...keys: string[]): Promise<void> {
    await this.#tmux(["send-keys", "-t", "t", ...keys]);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#tmux(["kill-server"]).catch(() => {});
  }

  async #tmux(args: string[], env?: Record<string, string>): Promise<string> {
    const { success, stdout, stderr } = await new Deno.Command("tmux", {
      args: ["-S", this.#socket, ...args],
      env,
    }).output();
    if (!success) throw new Error(`tmux ${args[0]}: ${new TextDecoder().decode(stderr)}`);
    return new TextDecoder().decode(stdout);
  }
}
