// Records what @mastra/evals' own code scorers return on generated cases
// (see ../README.md).
//
//   MASTRA_NODE_MODULES=<dir>/node_modules \
//     node tools/peers/mastra/record.mjs cases.json <package> > out.json
//
// <package> is the installed name of the version to run: "@mastra/evals"
// (1.10.2) or "mastra-evals-120" (npm:@mastra/evals@1.2.0). Both live in
// MASTRA_NODE_MODULES, outside this project, with @mastra/core and zod.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const modules = process.env.MASTRA_NODE_MODULES;
if (!modules) throw new Error('set MASTRA_NODE_MODULES to the node_modules holding @mastra/evals');
const [casesFile, pkg] = process.argv.slice(2);
const require = createRequire(join(modules, 'noop.js'));
const entry = require.resolve(`${pkg}/scorers/prebuilt`);
const evals = await import(pathToFileURL(entry).href);
const version = JSON.parse(readFileSync(join(modules, pkg, 'package.json'), 'utf8')).version;
const core = JSON.parse(readFileSync(join(modules, '@mastra/core', 'package.json'), 'utf8')).version;

const now = new Date('2026-01-01T00:00:00Z');
const userMessage = { id: 'u1', role: 'user', content: { format: 2, parts: [{ type: 'text', text: 'What is the weather in Paris?' }] }, createdAt: now };

// agentRun is the run an agent scorer receives: the calls as tool
// invocations of one assistant message (in parts and in the legacy list,
// sharing their ids), then the final text.
function agentRun(c) {
  const invocations = c.actual_calls.map((a, i) => ({
    toolCallId: `call_${i}`,
    toolName: a.name,
    args: a.args,
    state: a.failed ? 'output-error' : 'result',
    ...(a.failed ? { errorText: 'failed' } : { result: a.output ?? null }),
  }));
  const output = [];
  if (invocations.length) {
    output.push({ id: 'a1', role: 'assistant', content: { format: 2, parts: invocations.map((toolInvocation) => ({ type: 'tool-invocation', toolInvocation })), toolInvocations: invocations }, createdAt: now });
  }
  output.push({ id: 'a2', role: 'assistant', content: { format: 2, parts: [{ type: 'text', text: 'Done.' }], content: 'Done.' }, createdAt: now });
  return { input: { inputMessages: [userMessage], rememberedMessages: [], systemMessages: [], taggedSystemMessages: {} }, output };
}

// trajectory is the run a trajectory scorer receives: one step per call.
function trajectory(c) {
  return {
    steps: c.actual_calls.map((a) => ({
      stepType: a.mcp ? 'mcp_tool_call' : 'tool_call',
      name: a.name,
      toolArgs: a.args,
      ...(a.output !== undefined ? { toolResult: a.output } : {}),
      success: !a.failed,
      durationMs: a.duration_ms,
    })),
  };
}

async function score(c) {
  switch (c.algorithm) {
    case 'createToolCallAccuracyScorerCode': {
      const scorer = evals.createToolCallAccuracyScorerCode(c.options);
      return scorer.run(agentRun(c));
    }
    case 'createTrajectoryAccuracyScorerCode': {
      const scorer = evals.createTrajectoryAccuracyScorerCode(c.options);
      return scorer.run({ output: trajectory(c) });
    }
    case 'createTrajectoryScorerCode': {
      const scorer = evals.createTrajectoryScorerCode(c.options);
      return scorer.run({ output: trajectory(c) });
    }
  }
  throw new Error(`unknown algorithm ${c.algorithm}`);
}

const input = JSON.parse(readFileSync(casesFile, 'utf8'));
const out = [];
for (const c of input.cases) {
  const rec = { ...c };
  try {
    const res = await score(c);
    rec.score = res.score;
    if (res.reason !== undefined) rec.reason = res.reason;
  } catch (e) {
    rec.error = String(e?.message ?? e);
  }
  out.push(rec);
}
process.stdout.write(JSON.stringify({ ...input, peer_version: version, mastra_core_version: core, cases: out }) + '\n');
