/**
 * The pure parts of the Windows backend, on every OS: command-line quoting,
 * the environment block, PATH + PATHEXT lookup and the struct layouts. What
 * they feed (CreateProcessW, ConPTY, Job Objects) runs only on the Windows
 * runner (tests/windows_test.ts); these check the bytes it will be given.
 */
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";
import { PortalError } from "../../src/errors.ts";
import { commandLine, quoteArgument } from "../../src/terminal/windows/command_line.ts";
import {
  environmentBlock,
  foldName,
  lookupVariable,
} from "../../src/terminal/windows/environment_block.ts";
import {
  DEFAULT_PATHEXT,
  findWindowsProgram,
  isBatchFile,
} from "../../src/terminal/windows/executable.ts";
import {
  coord,
  extendedLimits,
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
  PROCESS_INFORMATION,
  readProcessInformation,
  startupInfoEx,
  STARTUPINFOEXW,
} from "../../ffi/win32_structs.ts";
import { W, wide } from "../../ffi/kernel32.ts";
import { Random } from "../../dev/random.ts";

// ---------------------------------------------------------------------------
// Command line: the encoder against an independent parser of the C runtime's rules.

/**
 * Splits a command line as the Microsoft C runtime (2008 and later) does:
 * the program name up to the next quote or whitespace, then arguments with
 * the backslash-quote rules, `""` inside quotes being a literal quote.
 */
function parseCommandLine(line: string): string[] {
  const argv: string[] = [];
  let i = 0;
  let program = "";
  if (line[0] === '"') {
    const end = line.indexOf('"', 1);
    program = line.slice(1, end < 0 ? line.length : end);
    i = end < 0 ? line.length : end + 1;
  } else {
    while (i < line.length && line[i] !== " " && line[i] !== "\t") program += line[i++];
  }
  argv.push(program);
  for (;;) {
    while (line[i] === " " || line[i] === "\t") i++;
    if (i >= line.length) return argv;
    let arg = "";
    let quoted = false;
    while (i < line.length && (quoted || (line[i] !== " " && line[i] !== "\t"))) {
      let backslashes = 0;
      while (line[i] === "\\") {
        backslashes++;
        i++;
      }
      if (line[i] === '"') {
        arg += "\\".repeat(backslashes >> 1);
        if (backslashes % 2 === 1) {
          arg += '"';
        } else if (quoted && line[i + 1] === '"') {
          arg += '"';
          i++;
        } else {
          quoted = !quoted;
        }
        i++;
      } else {
        arg += "\\".repeat(backslashes);
        if (i < line.length && (quoted || (line[i] !== " " && line[i] !== "\t"))) {
          arg += line[i++];
        }
      }
    }
    argv.push(arg);
  }
}

Deno.test("command line: the reference parser splits Microsoft's documented examples", () => {
  // "Parsing C++ command-line arguments" (Microsoft Learn), each after a program name.
  const examples: [string, string[]][] = [
    ['"a b c" d e', ["a b c", "d", "e"]],
    ['"ab\\"c" "\\\\" d', ['ab"c', "\\", "d"]],
    ['a\\\\\\b d"e f"g h', ["a\\\\\\b", "de fg", "h"]],
    ['a\\\\\\"b c d', ['a\\"b', "c", "d"]],
    ['a\\\\\\\\"b c" d e', ["a\\\\b c", "d", "e"]],
    ['a"b"" c d', ['ab" c d']],
  ];
  for (const [line, args] of examples) {
    assertEquals(parseCommandLine(`prog ${line}`), ["prog", ...args], line);
  }
  assertEquals(parseCommandLine('"C:\\Program Files\\x.exe" a'), ["C:\\Program Files\\x.exe", "a"]);
});

Deno.test("command line: quoting only where the rules need it", () => {
  assertEquals(quoteArgument("plain"), "plain");
  assertEquals(quoteArgument(""), '""');
  assertEquals(quoteArgument("a b"), '"a b"');
  assertEquals(quoteArgument("a\tb"), '"a\tb"');
  assertEquals(quoteArgument("C:\\dir\\"), "C:\\dir\\");
  assertEquals(quoteArgument("C:\\my dir\\"), '"C:\\my dir\\\\"');
  assertEquals(quoteArgument('say "hi"'), '"say \\"hi\\""');
  assertEquals(quoteArgument('back\\"slash'), '"back\\\\\\"slash"');
  assertEquals(quoteArgument("a\\\\b"), "a\\\\b");
  assertEquals(commandLine("cmd.exe", ["/c", "echo hi"]), '"cmd.exe" /c "echo hi"');
});

Deno.test("command line: 3000 random argument lists split back into themselves", () => {
  // A fixed seed: the same lists on every run and OS.
  const random = new Random(0x2545f491);
  const alphabet = ["a", "b", " ", "\t", '"', "\\", "é", "😀", "=", "%"];
  for (let round = 0; round < 3000; round++) {
    const args = Array.from(
      { length: random.int(5) },
      () =>
        Array.from({ length: random.int(8) }, () => alphabet[random.int(alphabet.length)]).join(""),
    );
    const line = commandLine("C:\\Program Files\\app.exe", args);
    assertEquals(parseCommandLine(line), ["C:\\Program Files\\app.exe", ...args], line);
  }
});

// ---------------------------------------------------------------------------
// Environment block.

const text = (block: Uint16Array) => String.fromCharCode(...block);

Deno.test("environment block: sorted without regard to case, =C: kept first, double NUL", () => {
  const block = environmentBlock({ b: "1", "=C:": "C:\\work", A: "2", _x: "3", c: "é😀" });
  assertEquals(text(block), "=C:=C:\\work\0A=2\0b=1\0c=é😀\0_x=3\0\0");
  assertEquals([...block.slice(-2)], [0, 0]);
  // UTF-16: the emoji is two code units, the é one.
  assertEquals(block.length, text(block).length);
});

Deno.test("environment block: one entry per name whatever its case; the last one wins", () => {
  const env = { Path: "C:\\Windows", TEMP: "t", PATH: "C:\\mine", temp: "u" };
  assertEquals(text(environmentBlock(env)), "PATH=C:\\mine\0temp=u\0\0");
  assertEquals(lookupVariable(env, "path"), "C:\\mine");
  assertEquals(lookupVariable(env, "PATHEXT"), undefined);
});

Deno.test("environment block: an empty environment is two NULs", () => {
  assertEquals([...environmentBlock({})], [0, 0]);
});

Deno.test("environment block: names fold code unit by code unit, as Windows compares them", () => {
  assertEquals(foldName("Path"), "PATH");
  // ß has no one-unit upper case; it stays, so the name keeps its length.
  assertEquals(foldName("straße"), "STRAßE");
  assertEquals([...wide("ok")], [0x6f, 0x6b, 0]);
});

// ---------------------------------------------------------------------------
// PATH and PATHEXT.

function lookup(
  command: string,
  env: Record<string, string>,
  files: string[],
  cwd = "C:\\work",
): string {
  const existing = new Set(files.map((f) => f.toLowerCase()));
  return findWindowsProgram(command, env, cwd, (path) => existing.has(path.toLowerCase()));
}

function lookupError(command: string, env: Record<string, string>, files: string[]): string {
  try {
    lookup(command, env, files);
  } catch (error) {
    assert(error instanceof PortalError, `expected a PortalError, got ${error}`);
    return error.message;
  }
  throw new Error(`${command} was found`);
}

Deno.test("PATH lookup: directories in order, each with PATHEXT's extensions in order", () => {
  const env = { Path: "C:\\Windows\\system32;C:\\Python", PATHEXT: ".COM;.EXE;.BAT;.CMD" };
  const files = ["C:\\Python\\python.exe", "C:\\Windows\\system32\\cmd.exe", "C:\\Python\\x.cmd"];
  assertEquals(lookup("python", env, files), "C:\\Python\\python.exe");
  assertEquals(lookup("cmd", env, files), "C:\\Windows\\system32\\cmd.exe");
  // A name that already has an extension of PATHEXT is taken as it is.
  assertEquals(lookup("cmd.exe", env, files), "C:\\Windows\\system32\\cmd.exe");
  assertEquals(lookup("x", env, files), "C:\\Python\\x.cmd");
  // The first directory wins, and .com comes before .exe there.
  const both = ["C:\\Windows\\system32\\tool.exe", "C:\\Python\\tool.com"];
  assertEquals(lookup("tool", env, both), "C:\\Windows\\system32\\tool.exe");
  const same = ["C:\\Python\\tool.exe", "C:\\Python\\tool.com"];
  assertEquals(lookup("tool", env, same), "C:\\Python\\tool.com");
});

Deno.test("PATH lookup: quoted and empty entries, relative entries, other extensions", () => {
  const env = { PATH: ';"C:\\Program Files\\Git\\cmd";;bin', PATHEXT: ".EXE" };
  const files = ["C:\\Program Files\\Git\\cmd\\git.exe", "C:\\work\\bin\\tool.exe"];
  assertEquals(lookup("git", env, files), "C:\\Program Files\\Git\\cmd\\git.exe");
  assertEquals(lookup("tool", env, files), "C:\\work\\bin\\tool.exe");
  // python3.12 has an extension that is not PATHEXT's: one is appended.
  const versioned = ["C:\\work\\bin\\python3.12.exe"];
  assertEquals(lookup("python3.12", env, versioned), "C:\\work\\bin\\python3.12.exe");
});

Deno.test("PATH lookup: without PATHEXT, Windows' default list", () => {
  assertEquals(DEFAULT_PATHEXT, ".COM;.EXE;.BAT;.CMD");
  assertEquals(lookup("run", { PATH: "C:\\bin" }, ["C:\\bin\\run.bat"]), "C:\\bin\\run.bat");
});

Deno.test("PATH lookup: paths are taken against the working directory, not PATH", () => {
  const env = { PATH: "C:\\bin", PATHEXT: ".EXE" };
  const files = ["C:\\work\\tools\\app.exe", "D:\\x\\app.exe", "C:\\bin\\app.exe"];
  assertEquals(lookup(".\\tools\\app", env, files), "C:\\work\\tools\\app.exe");
  assertEquals(lookup("tools/app.exe", env, files), "C:\\work\\tools\\app.exe");
  assertEquals(lookup("D:\\x\\app", env, files), "D:\\x\\app.exe");
  // The working directory is not searched for a bare name.
  assertEquals(lookup("app", env, files), "C:\\bin\\app.exe");
  assertMatch(lookupError("app", { PATH: "C:\\none" }, files), /PATH \(C:\\none\)/);
});

Deno.test("PATH lookup: what is not found is explained", () => {
  const env = { PATH: "C:\\bin", PATHEXT: ".EXE" };
  assertMatch(lookupError("nope", env, []), /Command not found: "nope"\. .*PATHEXT \(\.exe\)/);
  assertMatch(lookupError("my tool", env, []), /run cmd\.exe with args \['\/c'/);
  assertMatch(lookupError("C:\\x\\nope", env, []), /no program C:\\x\\nope/);
  assert(isBatchFile("C:\\n\\npm.CMD") && isBatchFile("a.bat") && !isBatchFile("a.exe"));
});

// ---------------------------------------------------------------------------
// Struct layouts: the offsets, derived again from the headers' field lists.

/** Natural-alignment offsets of `fields` (name, size, alignment), and the padded size. */
function layout(fields: [string, number, number][]): Record<string, number> {
  const offsets: Record<string, number> = {};
  let offset = 0;
  let largest = 1;
  for (const [name, size, align] of fields) {
    offset = Math.ceil(offset / align) * align;
    offsets[name] = offset;
    offset += size;
    largest = Math.max(largest, align);
  }
  offsets.size = Math.ceil(offset / largest) * largest;
  return offsets;
}

const DWORD: [number, number] = [4, 4];
const WORD: [number, number] = [2, 2];
const PTR: [number, number] = [8, 8];

Deno.test("structs: STARTUPINFOEXW and PROCESS_INFORMATION offsets (x64)", () => {
  const startupInfo = layout([
    ["cb", ...DWORD],
    ["lpReserved", ...PTR],
    ["lpDesktop", ...PTR],
    ["lpTitle", ...PTR],
    ...["dwX", "dwY", "dwXSize", "dwYSize", "dwXCountChars", "dwYCountChars", "dwFillAttribute"]
      .map((name): [string, number, number] => [name, ...DWORD]),
    ["dwFlags", ...DWORD],
    ["wShowWindow", ...WORD],
    ["cbReserved2", ...WORD],
    ["lpReserved2", ...PTR],
    ["hStdInput", ...PTR],
    ["hStdOutput", ...PTR],
    ["hStdError", ...PTR],
    ["lpAttributeList", ...PTR],
  ]);
  for (const [field, offset] of Object.entries(STARTUPINFOEXW)) {
    assertEquals(offset, startupInfo[field], `STARTUPINFOEXW.${field}`);
  }
  assertEquals(STARTUPINFOEXW.size, 104 + 8);
  const processInfo = layout([
    ["hProcess", ...PTR],
    ["hThread", ...PTR],
    ["dwProcessId", ...DWORD],
    ["dwThreadId", ...DWORD],
  ]);
  for (const [field, offset] of Object.entries(PROCESS_INFORMATION)) {
    assertEquals(offset, processInfo[field], `PROCESS_INFORMATION.${field}`);
  }
});

Deno.test("structs: JOBOBJECT_EXTENDED_LIMIT_INFORMATION offsets (x64)", () => {
  const limits = layout([
    ["PerProcessUserTimeLimit", 8, 8],
    ["PerJobUserTimeLimit", 8, 8],
    ["LimitFlags", ...DWORD],
    ["MinimumWorkingSetSize", ...PTR],
    ["MaximumWorkingSetSize", ...PTR],
    ["ActiveProcessLimit", ...DWORD],
    ["Affinity", ...PTR],
    ["PriorityClass", ...DWORD],
    ["SchedulingClass", ...DWORD],
    // IO_COUNTERS: six ULONGLONGs.
    ["IoInfo", 48, 8],
    ["ProcessMemoryLimit", ...PTR],
    ["JobMemoryLimit", ...PTR],
    ["PeakProcessMemoryUsed", ...PTR],
    ["PeakJobMemoryUsed", ...PTR],
  ]);
  assertEquals(JOBOBJECT_EXTENDED_LIMIT_INFORMATION.size, limits.size);
  assertEquals(JOBOBJECT_EXTENDED_LIMIT_INFORMATION.LimitFlags, limits.LimitFlags);
  assertEquals([JOBOBJECT_EXTENDED_LIMIT_INFORMATION.size, limits.LimitFlags], [144, 16]);
});

Deno.test("structs: the builders put each value at its offset and nothing elsewhere", () => {
  const startup = startupInfoEx(0x1122334455667788n, W.STARTF_USESTDHANDLES);
  const view = new DataView(startup.buffer);
  assertEquals(startup.length, 112);
  assertEquals(view.getUint32(0, true), 112);
  assertEquals(view.getUint32(60, true), 0x100);
  assertEquals(view.getBigUint64(104, true), 0x1122334455667788n);
  const elsewhere = [...startup].filter((_, i) => i >= 4 && i < 60 || i >= 64 && i < 104);
  assert(elsewhere.every((byte) => byte === 0), "std handles and the rest stay zero");

  const limits = extendedLimits(W.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE);
  assertEquals(limits.length, 144);
  assertEquals(new DataView(limits.buffer).getUint32(16, true), 0x2000);
  assertEquals(limits.reduce((sum, byte) => sum + byte, 0), 0x20);

  const info = new Uint8Array(24);
  const infoView = new DataView(info.buffer);
  infoView.setBigUint64(0, 0xaan, true);
  infoView.setBigUint64(8, 0xbbn, true);
  infoView.setUint32(16, 4242, true);
  infoView.setUint32(20, 77, true);
  assertEquals(readProcessInformation(info), { process: 0xaan, thread: 0xbbn, pid: 4242, tid: 77 });
});

Deno.test("structs: COORD by value is columns in the low half, rows in the high half", () => {
  assertEquals(coord(80, 24), 0x0018_0050);
  assertEquals(coord(1000, 1), 0x0001_03e8);
  assertEquals(coord(1, 1000), 0x03e8_0001);
  assertEquals(W.PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE, 22 | 0x20000);
});

// ---------------------------------------------------------------------------
// Importing is free: kernel32.dll is opened on first use only.

Deno.test("every Windows module imports without opening kernel32.dll", async () => {
  const modules = [
    "../../ffi/kernel32.ts",
    "../../ffi/win32_structs.ts",
    "../../src/terminal/windows/command_line.ts",
    "../../src/terminal/windows/conpty_spawn.ts",
    "../../src/terminal/windows/conpty_terminal.ts",
    "../../src/terminal/windows/deno_child.ts",
    "../../src/terminal/windows/environment_block.ts",
    "../../src/terminal/windows/executable.ts",
    "../../src/terminal/windows/job.ts",
    "../../src/terminal/windows/poll_loop.ts",
    "../../src/terminal/windows/pseudo_console.ts",
  ];
  for (const path of modules) {
    const module = await import(path);
    assert(Object.keys(module).length > 0, `${path} exports something`);
  }
  const { spawnConPty } = await import("../../src/terminal/windows/conpty_spawn.ts");
  assertEquals(typeof spawnConPty, "function");
  if (Deno.build.os !== "windows") {
    // Only a call opens the library, which then fails here: nothing did at import.
    const { kernel32 } = await import("../../ffi/kernel32.ts");
    let failed = false;
    try {
      kernel32();
    } catch {
      failed = true;
    }
    assert(failed, "kernel32.dll cannot be opened off Windows");
  }
});
