/**
 * A temporary directory that removes itself: `await using dir = await
 * tempDir()` gives `dir.path`, and leaving the scope (normally or by a throw)
 * deletes it with everything in it, so no test or benchmark leaves files behind.
 *
 * @example
 * ```ts
 * import { tempDir } from "./temp_dir.ts";
 *
 * {
 *   await using dir = await tempDir();
 *   await Deno.writeTextFile(`${dir.path}/note.txt`, "gone at the end of the block");
 * }
 * ```
 * @module
 */

/** A directory that is deleted, recursively, when disposed. */
export interface TempDir extends AsyncDisposable {
  readonly path: string;
}

/** Creates a fresh directory under the system's temporary directory. */
export async function tempDir(prefix = "portal-"): Promise<TempDir> {
  const path = await Deno.makeTempDir({ prefix });
  return {
    path,
    async [Symbol.asyncDispose]() {
      // Already gone is fine: a test may remove what it made.
      await Deno.remove(path, { recursive: true }).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
    },
  };
}

/** A {@link TempDir} holding one file, `file`, of `name` and `text`. */
export interface TempFile extends TempDir {
  readonly file: string;
}

/** Creates a fresh directory with a file `name` holding `text` (a note to edit, lines to page). */
export async function tempFile(name: string, text: string): Promise<TempFile> {
  const dir = await tempDir();
  const file = `${dir.path}/${name}`;
  await Deno.writeTextFile(file, text);
  return { path: dir.path, file, [Symbol.asyncDispose]: dir[Symbol.asyncDispose] };
}
