// Google ADK TypeScript: an LlmAgent on Gemini (@google/genai pointed at the
// mock model with GOOGLE_GEMINI_BASE_URL), two FunctionTools, one run of the
// scenario prompt through an InMemoryRunner.
//
//   node emit.mjs simple   our NodeTracerProvider, SimpleSpanProcessor
//   node emit.mjs batch    ADK's own setup, maybeSetOtelProviders(): a
//                          BatchSpanProcessor with the OTLP/HTTP (JSON)
//                          exporter, enabled by OTEL_EXPORTER_OTLP_ENDPOINT
import { trace } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { z } from 'zod';
import { FunctionTool, InMemoryRunner, LlmAgent, maybeSetOtelProviders } from '@google/adk';
import { PROMPT, INSTRUCTIONS, WEATHER_DESCRIPTION, STOCK_DESCRIPTION, getWeather, lookupStock } from '../scenario.mjs';

const mode = process.argv[2];
if (!process.env.MOCK_BASE_URL) throw new Error('run under ../receiver.mjs --mock');
process.env.GOOGLE_GEMINI_BASE_URL = process.env.MOCK_BASE_URL;
process.env.GEMINI_API_KEY = 'mock-key';

let provider;
if (mode === 'simple') {
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'adk-ts-emitter' }),
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
} else if (mode === 'batch') {
  process.env.OTEL_SERVICE_NAME = 'adk-ts-emitter';
  maybeSetOtelProviders();
  provider = trace.getTracerProvider().getDelegate();
} else {
  throw new Error('usage: node emit.mjs simple|batch');
}

const getWeatherTool = new FunctionTool({
  name: 'get_weather',
  description: WEATHER_DESCRIPTION,
  parameters: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) }),
  execute: (args) => getWeather(args),
});
const lookupStockTool = new FunctionTool({
  name: 'lookup_stock',
  description: STOCK_DESCRIPTION,
  parameters: z.object({ symbol: z.string() }),
  execute: (args) => lookupStock(args),
});

const agent = new LlmAgent({
  name: 'weather_agent',
  model: 'gemini-2.5-flash',
  description: 'Answers weather and stock questions.',
  instruction: INSTRUCTIONS,
  tools: [getWeatherTool, lookupStockTool],
});

const runner = new InMemoryRunner({ agent, appName: 'weather_app' });
const session = await runner.sessionService.createSession({ appName: 'weather_app', userId: 'user-1' });
for await (const event of runner.runAsync({
  userId: 'user-1',
  sessionId: session.id,
  newMessage: { role: 'user', parts: [{ text: PROMPT }] },
})) {
  const parts = event.content?.parts ?? [];
  for (const p of parts) {
    if (p.functionCall) console.log(`event: call ${p.functionCall.name} ${JSON.stringify(p.functionCall.args)} id=${p.functionCall.id}`);
    if (p.functionResponse) console.log(`event: response ${p.functionResponse.name} ${JSON.stringify(p.functionResponse.response)}`);
    if (p.text) console.log(`event: text ${p.text}`);
  }
}
await provider.forceFlush();
await provider.shutdown();
