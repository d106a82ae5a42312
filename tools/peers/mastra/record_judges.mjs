// Records what Mastra's own LLM scorers (createToolCallAccuracyScorerLLM,
// createTrajectoryAccuracyScorerLLM) ask their judge for a few runs, at
// 1.2.0 and 1.10.2 (see ../README.md).
//
//   MASTRA_NODE_MODULES=<dir>/node_modules CORE118_NODE_MODULES=<dir2>/node_modules \
//     node tools/peers/mastra/record_judges.mjs > internal/judges/testdata/judge/mastra-judge-inputs.json
//
// The judge is a mock model that records the prompt and answers; the
// scorers, their prompts and the trajectory extraction are Mastra's. A
// trajectory scorer receives the trajectory runEvals extracts from the
// agent's output with @mastra/core's extractTrajectory: @mastra/core 1.18.0
// (what @mastra/evals 1.2.0 was built with, its devDependency) for 1.2.0,
// the installed core for 1.10.2.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const modules = process.env.MASTRA_NODE_MODULES;
const core118 = process.env.CORE118_NODE_MODULES;
if (!modules || !core118) throw new Error('set MASTRA_NODE_MODULES and CORE118_NODE_MODULES');
const load = async (dir, spec) => import(pathToFileURL(createRequire(join(dir, 'noop.js')).resolve(spec)).href);
const version = (dir, pkg) => JSON.parse(readFileSync(join(dir, pkg, 'package.json'), 'utf8')).version;

const tools = [{ id: 'get_weather', description: 'Get the weather for a city' }, { id: 'lookup_stock', description: '' }, { id: 'get_time' }];

// Runs: the user's request, then the agent's output messages, each with
// text and/or tool calls (a call with error failed).
const runs = [
  { id: 'text-then-calls', user: 'Weather in Paris, and ZZZZ?', messages: [
    { text: 'Let me check.', calls: [{ name: 'get_weather', args: { city: 'Paris', unit: 'celsius' }, result: { temp: 21 } }, { name: 'lookup_stock', args: { symbol: 'ZZZZ' }, error: 'unknown symbol' }] },
    { text: 'It is 21C in Paris; the stock lookup failed.' }] },
  { id: 'calls-only-first', user: 'What time is it?', messages: [
    { calls: [{ name: 'get_time', args: {}, result: '12:00' }] },
    { text: 'It is noon.' }] },
  { id: 'all-failed', user: 'Price of ZZZZ?', messages: [
    { text: 'Looking it up.', calls: [{ name: 'lookup_stock', args: { symbol: 'ZZZZ' }, error: 'unknown symbol' }] },
    { text: 'Sorry, I could not find it.' }] },
  { id: 'no-calls', user: 'Weather?', messages: [{ text: 'Which city?' }] },
  { id: 'list-result', user: 'Search x', messages: [
    { calls: [{ name: 'search', args: { query: 'x' }, result: ['a', 'b'] }, { name: 'get_time', args: {}, result: 42 }] },
    { text: 'Found a and b.' }] },
];

const now = new Date('2026-01-01T00:00:00Z');
function mastraRun(run) {
  const output = run.messages.map((m, i) => {
    const invocations = (m.calls ?? []).map((c, j) => ({
      toolCallId: `c${i}_${j}`, toolName: c.name, args: c.args,
      ...(c.error ? { state: 'output-error', errorText: c.error } : { state: 'result', result: c.result }),
    }));
    const parts = [];
    if (m.text) parts.push({ type: 'text', text: m.text });
    for (const toolInvocation of invocations) parts.push({ type: 'tool-invocation', toolInvocation });
    return { id: `a${i}`, role: 'assistant', content: { format: 2, parts, ...(invocations.length ? { toolInvocations: invocations } : {}) }, createdAt: now };
  });
  return {
    input: { inputMessages: [{ id: 'u', role: 'user', content: { format: 2, parts: [{ type: 'text', text: run.user }] }, createdAt: now }], rememberedMessages: [], systemMessages: [], taggedSystemMessages: {} },
    output,
  };
}

// mockModel records the prompts it is sent and answers with answer.
function mockModel(prompts, answer) {
  const reply = (opts) => { prompts.push(opts.prompt); return prompts.length === 1 ? answer : 'One sentence.'; };
  return {
    specificationVersion: 'v2', provider: 'mock', modelId: 'mock', supportedUrls: {},
    async doGenerate(opts) {
      return { content: [{ type: 'text', text: reply(opts) }], finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, warnings: [] };
    },
    async doStream(opts) {
      const text = reply(opts);
      return { stream: new ReadableStream({ start(c) {
        c.enqueue({ type: 'stream-start', warnings: [] });
        c.enqueue({ type: 'text-start', id: '1' });
        c.enqueue({ type: 'text-delta', id: '1', delta: text });
        c.enqueue({ type: 'text-end', id: '1' });
        c.enqueue({ type: 'finish', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } });
        c.close();
      } }) };
    },
  };
}

// userText is the text of the analysis request (the first prompt's user
// message).
const userText = (prompts) => prompts[0].find((m) => m.role === 'user').content.map((p) => p.text ?? '').join('\n');

const out = {};
for (const [pkg, coreDir] of [['mastra-evals-120', core118], ['@mastra/evals', modules]]) {
  const evals = await load(modules, `${pkg}/scorers/prebuilt`);
  const { extractTrajectory } = await load(coreDir, '@mastra/core/evals');
  const v = version(modules, pkg);
  const recorded = [];
  for (const run of runs) {
    const r = mastraRun(run);
    const p1 = [];
    await evals.createToolCallAccuracyScorerLLM({ model: mockModel(p1, JSON.stringify({ evaluations: [] })), availableTools: tools }).run(r);
    const p2 = [];
    await evals.createTrajectoryAccuracyScorerLLM({ model: mockModel(p2, JSON.stringify({ stepEvaluations: [], overallAssessment: 'ok' })) })
      .run({ input: r.input, output: extractTrajectory(r.output) });
    recorded.push({ id: run.id, run, tool_call_prompt: userText(p1), trajectory_prompt: userText(p2) });
  }
  out[v] = { peer_version: v, trajectory_extracted_with: `@mastra/core@${version(coreDir, '@mastra/core')} extractTrajectory`, runs: recorded };
}
process.stdout.write(JSON.stringify({ schema: 'mastra-judge-inputs/v1', generator: 'tools/peers/mastra/record_judges.mjs', tools, versions: out }, null, 1) + '\n');
