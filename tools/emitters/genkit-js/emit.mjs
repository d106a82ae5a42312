// Genkit JS: a flow weatherAgentFlow calling ai.generate with two tools on a
// mock model defined with ai.defineModel, which plays the scenario script
// (../scripts/*.json) in process: a turn with calls answers with toolRequest
// parts (ref = the script's call id), a text turn with a text part.
// Telemetry through Genkit's own enableTelemetry (NodeSDK), our span
// processor added to it. A tool that throws aborts ai.generate (and the
// flow): with "throw" lookup_stock throws as in every other emitter; with
// "catch" it returns {"error": "unknown symbol ZZZZ"} instead, the way a
// Genkit app keeps the run going, so the model gets its second turn.
// With "slow", get_weather takes 50 ms (a remote weather service), so under
// "throw" the flow has failed before the get_weather calls end.
//
//   node emit.mjs simple|batch SCRIPT.json throw|catch [slow]
import { readFileSync } from 'node:fs';
import { genkit, z } from 'genkit';
import { enableTelemetry, flushTracing } from 'genkit/tracing';
import { BatchSpanProcessor, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { PROMPT, INSTRUCTIONS, WEATHER_DESCRIPTION, STOCK_DESCRIPTION, getWeather, lookupStock } from '../scenario.mjs';

const [mode, scriptPath, errors, speed] = process.argv.slice(2);
const Processor = { simple: SimpleSpanProcessor, batch: BatchSpanProcessor }[mode];
if (!Processor || !scriptPath || !['throw', 'catch'].includes(errors)) throw new Error('usage: node emit.mjs simple|batch SCRIPT.json throw|catch');
const script = JSON.parse(readFileSync(scriptPath, 'utf8'));

await enableTelemetry({ spanProcessors: [new Processor(new OTLPTraceExporter())] });
const ai = genkit({});

let turn = 0;
const model = ai.defineModel({ name: 'mock/weather-model', supports: { tools: true, multiturn: true, systemRole: true } }, async (request) => {
  const t = script.turns[Math.min(turn++, script.turns.length - 1)];
  const content = t.calls
    ? t.calls.map((c) => ({ toolRequest: { name: c.name, ref: c.id, input: c.args } }))
    : [{ text: t.text }];
  return {
    message: { role: 'model', content },
    finishReason: 'stop',
    usage: { inputTokens: 42, outputTokens: 17, totalTokens: 59 },
  };
});

const getWeatherTool = ai.defineTool({
  name: 'get_weather',
  description: WEATHER_DESCRIPTION,
  inputSchema: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) }),
}, async (input) => {
  if (speed === 'slow') await new Promise((r) => setTimeout(r, 50));
  return getWeather(input);
});
const lookupStockTool = ai.defineTool({
  name: 'lookup_stock',
  description: STOCK_DESCRIPTION,
  inputSchema: z.object({ symbol: z.string() }),
}, async (input) => {
  if (errors === 'throw') return lookupStock(input);
  try {
    return lookupStock(input);
  } catch (err) {
    return { error: err.message };
  }
});

const flow = ai.defineFlow('weatherAgentFlow', async (question) => {
  const response = await ai.generate({ model, system: INSTRUCTIONS, prompt: question, tools: [getWeatherTool, lookupStockTool] });
  for (const m of response.messages) console.log(`message ${m.role}: ${JSON.stringify(m.content)}`);
  return response.text;
});

try {
  console.log(`final: ${await flow(PROMPT)}`);
} catch (err) {
  console.log(`flow failed: ${err.message}`);
}
await flushTracing();
await new Promise((r) => setTimeout(r, 500));
