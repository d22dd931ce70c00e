/**
 * The choice of how a call asks the person for a secret (src/mcp/asker.ts),
 * made once per call from what its client speaks, and a task's questions
 * (src/mcp/tasks/questions.ts) over an asker: when they ask, withdraw, type
 * and give up. In process; no server is started.
 *
 * @module
 */
import { assert, assertEquals } from "../helpers/assert.ts";
import type { Answer } from "../../src/core/steps/step.ts";
import { askingWay } from "../../src/mcp/asker.ts";
import { type TaskAsker, TaskQuestions, TaskRounds } from "../../src/mcp/tasks/questions.ts";

Deno.test("a 2025-11-25 client is asked by elicitation, in the mode it named (URL first)", () => {
  for (const task of [false, true]) {
    assertEquals(askingWay(false, { url: {}, form: {} }, task), { by: "elicitation", url: true });
    assertEquals(askingWay(false, { url: {} }, task), { by: "elicitation", url: true });
    assertEquals(askingWay(false, { form: {} }, task), { by: "elicitation", url: false });
    assertEquals(askingWay(false, {}, task), undefined, "no mode named: it cannot be asked");
    assertEquals(askingWay(false, undefined, task), undefined);
  }
});

Deno.test("a 2026-07-28 client is asked by input rounds, a task by its inputRequests", () => {
  assertEquals(askingWay(true, { url: {}, form: {} }, false), { by: "rounds", url: true });
  assertEquals(askingWay(true, { form: {} }, false), { by: "rounds", url: false });
  assertEquals(askingWay(true, {}, false), { by: "rounds", url: false }, "bare: form mode");
  assertEquals(askingWay(true, { url: {} }, true), { by: "task", url: true });
  assertEquals(askingWay(true, {}, true), { by: "task", url: false });
  assertEquals(askingWay(true, undefined, false), undefined);
  assertEquals(askingWay(true, undefined, true), undefined);
});

/** Once every handler of a promise settled so far has run: nothing here waits on I/O. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

/** An asker whose questions the test answers: each `ask` waits for `answer` or its withdrawal. */
function scriptedAsker() {
  const asked: { label: string; signal: AbortSignal; reply: PromiseWithResolvers<Answer> }[] = [];
  const asker: TaskAsker = {
    how: "scripted",
    ask: (label, signal) => {
      const reply = Promise.withResolvers<Answer>();
      signal.addEventListener("abort", () => reply.reject(signal.reason), { once: true });
      asked.push({ label, signal, reply });
      return reply.promise;
    },
  };
  return { asker, asked };
}

/** Questions about process 7 over `asker`, and what they told and typed. */
function questionsOver(asker: TaskAsker, type = async (_id: number, _secret: string) => {}) {
  const told: string[] = [];
  const typed: string[] = [];
  const questions = new TaskQuestions(asker, {
    label: (id) => `Password (process ${id})`,
    type: async (id, secret) => {
      await type(id, secret);
      typed.push(`${id}:${secret}`);
    },
  }, {
    asking: (open) => told.push(open ? "asking" : "not asking"),
    declined: (why) => told.push(`declined: ${why}`),
  });
  return { questions, told, typed };
}

Deno.test("a task asks once per prompt, types the answer, and asks again only after", async () => {
  const { asker, asked } = scriptedAsker();
  const { questions, told, typed } = questionsOver(asker);
  questions.see({ id: 7, state: "waiting_for_secret" });
  questions.see({ id: 7, state: "waiting_for_secret" });
  assertEquals(asked.map((q) => q.label), ["Password (process 7)"], "one question at a time");
  assertEquals(questions.asked, "Password (process 7) (scripted)");
  asked[0].reply.resolve({ secret: "s3cret" });
  await settled();
  assertEquals(typed, ["7:s3cret"]);
  assertEquals(questions.asked, undefined);
  questions.see({ id: 7, state: "waiting_for_secret" });
  assertEquals(asked.length, 1, "a prompt not read yet is not a new question");
  questions.see({ id: 7, state: "running" });
  questions.see({ id: 7, state: "waiting_for_secret" });
  assertEquals(asked.length, 2, "a prompt that comes back is");
  assertEquals(told, ["asking", "not asking", "asking"]);
  questions.withdraw();
});

Deno.test("a task's question is withdrawn when the program moves on; a decline ends it", async () => {
  const { asker, asked } = scriptedAsker();
  const { questions, told, typed } = questionsOver(asker);
  questions.see({ id: 7, state: "waiting_for_secret" });
  questions.see({ id: 7, state: "running" });
  assert(asked[0].signal.aborted, "the open question is withdrawn");
  await settled();
  questions.see({ id: 7, state: "waiting_for_secret" });
  asked[1].reply.reject(new Error("The person did not give the secret (decline)"));
  await settled();
  assertEquals(typed, []);
  assertEquals(told, [
    "asking",
    "not asking",
    "asking",
    "declined: The person did not give the secret (decline)",
  ]);
});

Deno.test("an answer that cannot be typed is noted, and asked again", async () => {
  const { asker, asked } = scriptedAsker();
  const { questions } = questionsOver(asker, () => Promise.reject(new Error("process 7 ended")));
  questions.see({ id: 7, state: "waiting_for_secret" });
  asked[0].reply.resolve({ secret: "s3cret" });
  await settled();
  assertEquals(questions.note, "the answer was not typed: process 7 ended");
  questions.see({ id: 7, state: "waiting_for_secret" });
  assertEquals(asked.length, 2);
  questions.withdraw();
});

Deno.test("a 2026-07-28 task's question is in inputRequests when the task is told", () => {
  const seen: unknown[] = [];
  const questions: TaskQuestions = new TaskQuestions(new TaskRounds(false), {
    label: (id) => `Password (process ${id})`,
    type: async () => {},
  }, {
    asking: (open) => seen.push(open && Object.keys(questions.inputRequests ?? {})),
    declined: () => {},
  });
  questions.see({ id: 7, state: "waiting_for_secret" });
  questions.see({ id: 7, state: "running" });
  questions.see({ id: 7, state: "waiting_for_secret" });
  assertEquals(seen, [["secret-1"], false, ["secret-2"]], "a key unique over the task's life");
  questions.withdraw();
});

Deno.test("tasks/update's answer puts the task back to work at once; a stray key is ignored", async () => {
  const told: unknown[] = [];
  const typed: string[] = [];
  const questions = new TaskQuestions(new TaskRounds(false), {
    label: (id) => `Password (process ${id})`,
    type: (id, secret) => Promise.resolve(void typed.push(`${id}:${secret}`)),
  }, { asking: (open) => told.push(open), declined: (why) => told.push(why) });
  questions.see({ id: 7, state: "waiting_for_secret" });
  const signal = new AbortController().signal;
  const accept = (secret: string) => ({ action: "accept", content: { secret } });
  questions.answer({ "secret-9": accept("no") }, signal);
  assertEquals(told, [true], "an answer to no open question is ignored");
  questions.answer({ "secret-1": accept("s3cret") }, signal);
  assertEquals(told, [true, false]);
  await settled();
  assertEquals(typed, ["7:s3cret"]);
  questions.see({ id: 7, state: "running" });
  assertEquals(told, [true, false], "told once");
});
