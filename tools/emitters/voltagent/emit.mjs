// VoltAgent: an Agent with two createTool tools on an OpenAI chat-completions
// model (@ai-sdk/openai) pointed at the scripted mock, traced by VoltAgent's
// own observability (VoltAgentObservability) with our SimpleSpanProcessor and
// OTLP/HTTP JSON exporter added: one request per span. VoltAgent writes spans
// of its own naming: `tool.execution:<tool>` with `tool.name`, `tool.call.id`,
// `input`, `output` and no GenAI key on the tool spans.
//
//   node emit.mjs simple
//
// NODE_ENV=production keeps VoltAgent from fetching a model list from a public host.
import { Agent, createTool, VoltAgentObservability } from '@voltagent/core';
import { createOpenAI } from '@ai-sdk/openai';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { z } from 'zod';
import { PROMPT, INSTRUCTIONS, WEATHER_DESCRIPTION, STOCK_DESCRIPTION, getWeather, lookupStock } from '../scenario.mjs';

if (!process.env.MOCK_BASE_URL) throw new Error('run under ../receiver.mjs --mock');
if (process.env.NODE_ENV !== 'production') throw new Error('run with NODE_ENV=production');
if (process.argv[2] !== 'simple') throw new Error('usage: node emit.mjs simple');

const observability = new VoltAgentObservability({
  serviceName: 'voltagent-emitter',
  spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter())],
});
const openai = createOpenAI({ apiKey: 'mock-key', baseURL: `${process.env.MOCK_BASE_URL}/v1` });

const agent = new Agent({
  name: 'weather_agent',
  instructions: INSTRUCTIONS,
  model: openai.chat('gpt-4.1-mini'),
  observability,
  tools: [
    createTool({
      name: 'get_weather', description: WEATHER_DESCRIPTION,
      parameters: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) }),
      execute: async (args) => getWeather(args),
    }),
    createTool({
      name: 'lookup_stock', description: STOCK_DESCRIPTION,
      parameters: z.object({ symbol: z.string() }),
      execute: async (args) => lookupStock(args),
    }),
  ],
});

const result = await agent.generateText(PROMPT, { maxSteps: 5 });
console.log(`final: ${result.text}`);
await observability.forceFlush?.();
await observability.shutdown?.();
process.exit(0); // VoltAgent keeps timers that would hold the process open
