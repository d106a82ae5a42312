// Strands Agents TypeScript: an Agent with two zod tools on OpenAIModel
// (api: 'chat', the OpenAI-compatible Chat Completions path, streamed as the
// model class does), the client pointed at the mock model. Strands traces
// through the global OTel API; we register the provider. Telemetry in its
// default mode (no OTEL_SEMCONV_STABILITY_OPT_IN).
//
//   node emit.mjs simple|batch    the OTel span processor
import { Agent, tool } from '@strands-agents/sdk';
import { OpenAIModel } from '@strands-agents/sdk/models/openai';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { BatchSpanProcessor, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { z } from 'zod';
import { PROMPT, INSTRUCTIONS, WEATHER_DESCRIPTION, STOCK_DESCRIPTION, getWeather, lookupStock } from '../scenario.mjs';

const mode = process.argv[2];
if (!process.env.MOCK_BASE_URL) throw new Error('run under ../receiver.mjs --mock');
const Processor = { simple: SimpleSpanProcessor, batch: BatchSpanProcessor }[mode];
if (!Processor) throw new Error('usage: node emit.mjs simple|batch');

const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'strands-ts-emitter' }),
  spanProcessors: [new Processor(new OTLPTraceExporter())],
});
provider.register();

const getWeatherTool = tool({
  name: 'get_weather',
  description: WEATHER_DESCRIPTION,
  inputSchema: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) }),
  callback: (input) => getWeather(input),
});
const lookupStockTool = tool({
  name: 'lookup_stock',
  description: STOCK_DESCRIPTION,
  inputSchema: z.object({ symbol: z.string() }),
  callback: (input) => lookupStock(input),
});

const api = process.argv[3] ?? 'responses';
const model = new OpenAIModel({
  api,
  modelId: 'gpt-4.1-mini',
  apiKey: 'mock-key',
  clientConfig: { baseURL: `${process.env.MOCK_BASE_URL}/v1` },
});
const agent = new Agent({
  name: 'weather_agent',
  model,
  systemPrompt: INSTRUCTIONS,
  tools: [getWeatherTool, lookupStockTool],
  printer: false,
});
const result = await agent.invoke(PROMPT);
console.log(`final: ${result.toString()}`);
for (const m of agent.messages) console.log(`message ${m.role}: ${JSON.stringify(m.content)}`);
await provider.forceFlush();
await provider.shutdown();
