#!/usr/bin/env node
// The npm package's `portal`: runs Portal's build (../portal/main.js, made by dev/build.ts) on the
// Deno runtime of the `deno` npm package, whose binary for this platform comes as one of its
// optional dependencies (@deno/linux-x64-glibc, @deno/darwin-arm64…). Nothing is downloaded
// when Portal runs: the build holds every npm package it imports.
"use strict";
const { spawn } = require("node:child_process");
const path = require("node:path");

let deno;
try {
  // Finds (or links into place) the binary of @deno/<platform>, as the deno package's own bin does.
  deno = require("deno/install_api.cjs").runInstall();
} catch (error) {
  console.error(
    `portal: no Deno runtime for ${process.platform}-${process.arch} in the deno npm package ` +
      `(${error && error.message}); reinstall without --omit=optional, or install Deno 2 and run ` +
      "deno run -A --no-config " + path.join(__dirname, "..", "portal", "main.js"),
  );
  process.exit(1);
}
const main = path.join(__dirname, "..", "portal", "main.js");
// --no-config: a deno.json or package.json where the client starts Portal changes nothing.
const child = spawn(deno, ["run", "-A", "--no-config", main, ...process.argv.slice(2)], {
  stdio: "inherit",
});
// Portal ends with its client: what ends this process ends Portal too.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (error) => {
  console.error(`portal: could not start ${deno}: ${error.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  }
  process.exit(code ?? 1);
});
