// Mastra: an Agent with two createTool tools on the AI SDK 6 in-process mock
// model (MockLanguageModelV3 from ai/test), which plays the scenario script
// (../scripts/*.json): a turn with calls answers with tool-call parts (ids
// from the script), a text turn with the text (agent.generate calls
// doGenerate; doStream streams the same, for agent.stream). Exported by @mastra/observability
// with @mastra/otel-exporter (custom provider, protocol http/json) to the
// receiver. The exporter always runs its own BatchSpanProcessor
// (scheduledDelayMillis 5000): batch = its default batchSize (512); perspan =
// batchSize 1, each span exported as soon as it ends.
//
//   node emit.mjs batch|perspan SCRIPT.json
import { readFileSync } from 'node:fs';
import { Mastra } from '@mastra/core/mastra';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { Observability } from '@mastra/observability';
import { OtelExporter } from '@mastra/otel-exporter';
import { MockLanguageModelV3 } from 'ai/test';
import { simulateReadableStream } from 'ai';
import { z } from 'zod';
import { PROMPT, INSTRUCTIONS, WEATHER_DESCRIPTION, STOCK_DESCRIPTION, getWeather, lookupStock } from '../scenario.mjs';

const [mode, scriptPath] = process.argv.slice(2);
if (!['batch', 'perspan'].includes(mode) || !scriptPath) throw new Error('usage: node emit.mjs batch|perspan SCRIPT.json');
if (!process.env.RECEIVER_URL) throw new Error('run under ../receiver.mjs');
const script = JSON.parse(readFileSync(scriptPath, 'utf8'));

const usage = {
  inputTokens: { total: 42, noCache: 42, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 17, text: 17, reasoning: 0 },
};
let turn = 0;
function parts() {
  const t = script.turns[Math.min(turn++, script.turns.length - 1)];
  const out = [{ type: 'stream-start', warnings: [] }, { type: 'response-metadata', id: `resp-${turn}`, modelId: 'mock-model-1', timestamp: new Date(0) }];
  if (t.calls) {
    for (const c of t.calls) out.push({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: JSON.stringify(c.args) });
    out.push({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage });
  } else {
    out.push({ type: 'text-start', id: 'text-1' }, { type: 'text-delta', id: 'text-1', delta: t.text }, { type: 'text-end', id: 'text-1' });
    out.push({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage });
  }
  return out;
}
function generated() {
  const t = script.turns[Math.min(turn++, script.turns.length - 1)];
  if (t.calls) {
    return {
      content: t.calls.map((c) => ({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: JSON.stringify(c.args) })),
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [],
      response: { id: `resp-${turn}`, modelId: 'mock-model-1', timestamp: new Date(0) },
    };
  }
  return {
    content: [{ type: 'text', text: t.text }],
    finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [],
    response: { id: `resp-${turn}`, modelId: 'mock-model-1', timestamp: new Date(0) },
  };
}
const model = new MockLanguageModelV3({
  provider: 'mock-provider',
  modelId: 'mock-model-1',
  doGenerate: async () => generated(),
  doStream: async () => ({ stream: simulateReadableStream({ chunks: parts() }) }),
});

const getWeatherTool = createTool({
  id: 'get_weather',
  description: WEATHER_DESCRIPTION,
  inputSchema: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) }),
  execute: async (input) => getWeather(input),
});
const lookupStockTool = createTool({
  id: 'lookup_stock',
  description: STOCK_DESCRIPTION,
  inputSchema: z.object({ symbol: z.string() }),
  execute: async (input) => lookupStock(input),
});

const weatherAgent = new Agent({
  id: 'weather-agent',
  name: 'weather-agent',
  instructions: INSTRUCTIONS,
  model,
  tools: { get_weather: getWeatherTool, lookup_stock: lookupStockTool },
});

const exporter = new OtelExporter({
  provider: { custom: { endpoint: `${process.env.RECEIVER_URL}/v1/traces`, protocol: 'http/json' } },
  ...(mode === 'perspan' ? { batchSize: 1 } : {}),
});
const mastra = new Mastra({
  agents: { weatherAgent },
  observability: new Observability({ configs: { otel: { serviceName: 'mastra-emitter', exporters: [exporter] } } }),
  logger: false,
});

const agent = mastra.getAgent('weatherAgent');
const result = await agent.generate(PROMPT, { maxSteps: 5 });
for (const step of result.steps) {
  for (const c of step.toolCalls ?? []) console.log(`step: call ${c.payload?.toolName ?? c.toolName} ${JSON.stringify(c.payload?.args ?? c.input)}`);
  for (const r of step.toolResults ?? []) console.log(`step: result ${JSON.stringify(r.payload?.result ?? r.output)}`);
}
console.log(`final: ${result.text}`);
await exporter.flush();
await new Promise((r) => setTimeout(r, 500));
await mastra.shutdown?.();
