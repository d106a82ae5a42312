// OpenAI Agents JS under OpenInference: an Agent with two function tools run
// on the scenario prompt, the OpenAI client pointed at the mock model
// (Responses API, the SDK's default), the OpenInference trace processor
// registered exclusively (the SDK's own exporter to OpenAI is replaced).
//
//   node emit.mjs simple|batch    the OTel span processor behind OpenInference
import * as agents from '@openai/agents';
import OpenAI from 'openai';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { BatchSpanProcessor, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OpenAIAgentsInstrumentation } from '@arizeai/openinference-instrumentation-openai-agents';
import { z } from 'zod';
import { PROMPT, INSTRUCTIONS, WEATHER_DESCRIPTION, STOCK_DESCRIPTION, getWeather, lookupStock } from '../scenario.mjs';

const mode = process.argv[2];
if (!process.env.MOCK_BASE_URL) throw new Error('run under ../receiver.mjs --mock');
const Processor = { simple: SimpleSpanProcessor, batch: BatchSpanProcessor }[mode];
if (!Processor) throw new Error('usage: node emit.mjs simple|batch');

const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'openai-agents-emitter' }),
  spanProcessors: [new Processor(new OTLPTraceExporter())],
});
provider.register();
const instrumentation = new OpenAIAgentsInstrumentation({ tracerProvider: provider });
instrumentation.manuallyInstrument(agents);

agents.setDefaultOpenAIClient(new OpenAI({ apiKey: 'mock-key', baseURL: `${process.env.MOCK_BASE_URL}/v1` }));

const getWeatherTool = agents.tool({
  name: 'get_weather',
  description: WEATHER_DESCRIPTION,
  parameters: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) }),
  execute: async (args) => getWeather(args),
});
const lookupStockTool = agents.tool({
  name: 'lookup_stock',
  description: STOCK_DESCRIPTION,
  parameters: z.object({ symbol: z.string() }),
  execute: async (args) => lookupStock(args),
});

const agent = new agents.Agent({
  name: 'weather_agent',
  instructions: INSTRUCTIONS,
  model: 'gpt-4.1-mini',
  tools: [getWeatherTool, lookupStockTool],
});

const result = await agents.run(agent, PROMPT);
for (const item of result.newItems) {
  const raw = item.rawItem;
  if (item.type === 'tool_call_item') console.log(`item: call ${raw.name} ${raw.arguments} id=${raw.callId}`);
  else if (item.type === 'tool_call_output_item') console.log(`item: output ${JSON.stringify(item.output)}`);
  else if (item.type === 'message_output_item') console.log(`item: message ${JSON.stringify(raw.content)}`);
}
console.log(`final: ${result.finalOutput}`);
await agents.getGlobalTraceProvider().forceFlush();
await provider.forceFlush();
await provider.shutdown();
