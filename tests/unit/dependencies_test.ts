/**
 * The server fetches only what it imports: deno.lock holds the server's npm
 * packages and nothing else (Deno installs every package a lockfile holds the
 * first time a program needs one), the test and release tools being in
 * dev/deno.lock, which the tasks use.
 */
import { extraLockEntries } from "../../dev/server_lock.ts";
import { assertEquals } from "../helpers/assert.ts";

Deno.test("deno.lock holds only what the server imports (dev tools: dev/deno.lock)", async () => {
  const { extra } = await extraLockEntries();
  assertEquals(
    extra,
    [],
    "deno.lock holds packages the server does not import (a `deno test` run without " +
      "--lock=dev/deno.lock adds them): `deno run -A dev/server_lock.ts --write` drops them",
  );
});
