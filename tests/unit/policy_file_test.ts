/**
 * A person's policy file as Portal reads it (src/core/policy/policy_file.ts)
 * and the rules as a process keeps them (policy.ts): each key's defaults and
 * forms, every refusal naming the file, key, value and line, what its own
 * programs could change refused, and rules shown and read back unchanged.
 * Pure logic, and a few files in a temporary directory: no server.
 */
import { join } from "node:path";
import {
  describePolicy,
  FULL_ACCESS,
  policyOfView,
  samePolicy,
} from "../../src/core/policy/policy.ts";
import { parsePolicy, PolicyFileError, readPolicyFile } from "../../src/core/policy/policy_file.ts";
import { deniedFiles } from "../../src/terminal/denied_files.ts";
import { assert, assertEquals, assertMatch } from "../helpers/assert.ts";

const place = { cwd: "/work", home: "/home/ada" };

/** The message `text` (as file `file`) is refused with; the test fails if it is accepted. */
function refusal(file: string, text: string): string {
  try {
    parsePolicy(file, text, place);
  } catch (error) {
    assert(error instanceof PolicyFileError, String(error));
    return error.message;
  }
  throw new Error(`${file} was accepted: ${text}`);
}

Deno.test("an empty file: workspace-write on the working directory, nothing else", () => {
  const policy = parsePolicy("/p.json", "{}", { ...place, cwd: "/" });
  assertEquals(policy, {
    ...FULL_ACCESS,
    file: "/p.json",
    mode: "workspace-write",
    workspace: ["/"],
  });
});

Deno.test("paths: ~ is the home, a relative one is under the working directory", () => {
  const policy = parsePolicy(
    "/p.toml",
    'mode = "read-only"\nhide = ["~/.ssh", "notes", "/etc/../srv"]\n',
    place,
  );
  assertEquals(policy.hide, ["/home/ada/.ssh", "/work/notes", "/srv"]);
});

Deno.test("a string where a list goes is a list of one", () => {
  const policy = parsePolicy(
    "/p.json",
    JSON.stringify({ mode: "full", hide: "~/.aws", commands: { deny: "nc", allow: "bash" } }),
    place,
  );
  assertEquals([policy.hide, policy.deny, policy.allow], [["/home/ada/.aws"], ["nc"], ["bash"]]);
});

Deno.test("hosts, the deprecated name of machines, still works; a row of it reads back", () => {
  const policy = parsePolicy("/p.toml", 'mode = "full"\nhosts = ["db1"]\n', place);
  assertEquals(policy.machines, ["db1"]);
  assertEquals(describePolicy(policy).machines, ["db1"]);
  // A process an earlier Portal kept has its rules shown with `hosts` in its row.
  const { machines: _, ...view } = describePolicy(policy);
  assert(samePolicy(policyOfView({ ...view, hosts: ["db1"] }), policy));
});

Deno.test("each wrong value is named with its key, its value and its line", () => {
  const cases: [string, string, RegExp][] = [
    [
      "p.json",
      '{\n  "network": "sometimes"\n}',
      /line 2: network: "sometimes" is not one of "none"/,
    ],
    ["p.json", '{ "mode": "open" }', /mode: "open" is not one of "read-only", "workspace-write"/],
    ["p.toml", 'mode = "full"\n\nnetwork = 3\n', /line 3: network: 3 is not one of/],
    ["p.json", '{ "modes": "full" }', /modes: "full" is not a policy key \(mode, workspace/],
    ["p.json", '{ "hide": [""] }', /hide: \[""\] must be a list of non-empty strings/],
    ["p.json", '{ "machines": 7 }', /machines: 7 must be a list of non-empty strings/],
    [
      "p.json",
      '{ "machines": [], "hosts": ["a"] }',
      /hosts: \["a"\] is the deprecated name of mach/,
    ],
    ["p.json", '{ "commands": ["nc"] }', /commands: \["nc"\] must be a table: \{ "deny"/],
    [
      "p.json",
      '{ "commands": { "block": ["nc"] } }',
      /commands\.block: \["nc"\] is not deny or allow/,
    ],
    ["p.json", '{ "commands": { "deny": [1] } }', /commands\.deny: \[1\] must be a list/],
    ["p.json", "[1]", /\(top level\): \[1\] is not a table of keys/],
    ["p.json", "{ nope", /not valid JSON/],
    ["p.toml", "mode = [\n", /line \d+: not valid TOML/],
    [
      "p.json",
      '{ "workspace": "/nowhere/at/all" }',
      /workspace: "\/nowhere\/at\/all" is not an existing directory/,
    ],
  ];
  for (const [file, text, message] of cases) {
    const said = refusal(`/etc/${file}`, text);
    assertMatch(said, message);
    assert(said.startsWith(`policy /etc/${file}: `), said);
  }
});

Deno.test("an unknown key is said before a wrong value", () => {
  assertMatch(refusal("/p.json", '{ "network": "x", "extra": 1 }'), /extra: 1 is not a policy key/);
});

Deno.test("a file its programs could point elsewhere or write through is refused", async () => {
  const root = await Deno.makeTempDir({ prefix: "portal-policy-unit-" });
  try {
    const ws = join(root, "ws");
    await Deno.mkdir(join(ws, "real"), { recursive: true });
    const text = JSON.stringify({ workspace: [ws] });
    await Deno.writeTextFile(join(ws, "real", "p.json"), text);
    await Deno.symlink(join(ws, "real"), join(ws, "link"));
    const where = { cwd: ws, home: root };
    const through = () => readPolicyFile(join(ws, "link", "p.json"), where);
    assertMatch(catchMessage(through), /through the link ".*\/ws\/link", which the programs/);
    // By its own path it is fine; so is the link under read-only, where nothing is writable.
    assertEquals(readPolicyFile(join(ws, "real", "p.json"), where).workspace, [ws]);
    await Deno.writeTextFile(join(ws, "real", "p.json"), JSON.stringify({ mode: "read-only" }));
    assertEquals(readPolicyFile(join(ws, "link", "p.json"), where).mode, "read-only");
    await Deno.writeTextFile(join(root, "q.json"), text);
    await Deno.link(join(root, "q.json"), join(ws, "q-again.json"));
    const linked = () => readPolicyFile(join(root, "q.json"), where);
    assertMatch(catchMessage(linked), /has 2 names \(hard links\)/);
    // A mode that lets no one write holds nothing: its owner's program may chmod it back.
    await Deno.chmod(join(root, "q.json"), 0o444);
    assertMatch(catchMessage(linked), /has 2 names \(hard links\)/);
    await Deno.writeTextFile(join(root, "r.json"), text);
    await Deno.symlink(join(root, "r.json"), join(ws, "real", "r-link.json"));
    await Deno.chmod(join(ws, "real"), 0o555);
    const unwritableDir = () => readPolicyFile(join(ws, "real", "r-link.json"), where);
    assertMatch(catchMessage(unwritableDir), /through the link ".*\/ws\/real\/r-link\.json"/);
    await Deno.chmod(join(ws, "real"), 0o755);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

function catchMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert(error instanceof PolicyFileError, String(error));
    return error.message;
  }
  throw new Error("accepted");
}

Deno.test("rules as shown are the same rules read back (a restored process's)", () => {
  const texts = [
    '{ "mode": "read-only", "network": "none", "hide": ["/k"] }',
    '{ "mode": "full", "commands": { "deny": ["nc"], "allow": ["bash", "nc"] }, "machines": ["a"] }',
    '{ "mode": "workspace-write", "workspace": ["/"], "network": "loopback" }',
  ];
  for (const text of texts) {
    const policy = parsePolicy("/p.json", text, { ...place, cwd: "/" });
    const back = policyOfView(JSON.parse(JSON.stringify(describePolicy(policy))));
    assert(samePolicy(back, policy), text);
    assertEquals(describePolicy(back), describePolicy(policy));
  }
  const readOnly = parsePolicy("/p.json", '{ "mode": "read-only" }', { ...place, cwd: "/" });
  assert(!samePolicy(readOnly, FULL_ACCESS));
  assert(!samePolicy(readOnly, { ...readOnly, network: "none" }));
});

Deno.test("a denied name stands for every name of its file, on every PATH given", async () => {
  const root = await Deno.makeTempDir({ prefix: "portal-denied-unit-" });
  try {
    const [one, two] = [join(root, "one"), join(root, "two")];
    await Deno.mkdir(one);
    await Deno.mkdir(two);
    await Deno.writeTextFile(join(one, "tool"), "#!/bin/sh\n", { mode: 0o755 });
    await Deno.link(join(one, "tool"), join(one, "tool-1.0"));
    await Deno.link(join(one, "tool"), join(two, "other-name"));
    const denied = deniedFiles(["tool"], ["/usr/bin:/bin", `${two}:${one}`]);
    assertEquals(denied.files.sort(), [
      join(one, "tool"),
      join(one, "tool-1.0"),
      join(two, "other-name"),
    ]);
    assertEquals(denied.ruleOf(join(two, "other-name")), "tool");
    assertEquals(deniedFiles(["tool"], ["/usr/bin"]).files, [], "not on any PATH given");
    assertEquals(denied.ruleOf("/bin/sh"), undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
