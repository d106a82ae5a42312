// The Anthropic TypeScript SDK's own tool runner (client.beta.messages.toolRunner)
// with the scenario's tools, traced two ways:
//
//   node emit.mjs sdk            the SDK's built-in OpenTelemetry tracing, as shipped
//                                (content mode off: no arguments, results or messages)
//   node emit.mjs sdk-content    the same with ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content
//   node emit.mjs openinference  the SDK's tracing off (ANTHROPIC_OPEN_TELEMETRY=false) and
//                                @arizeai/openinference-instrumentation-anthropic instead:
//                                the raw request JSON in input.value, no tool spans
//
// A SimpleSpanProcessor sends one request per span. A tool that throws is
// answered by the runner with a tool_result block marked is_error: true.
import { NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { trace } from '@opentelemetry/api';
import { PROMPT, INSTRUCTIONS, WEATHER_DESCRIPTION, STOCK_DESCRIPTION, WEATHER_PARAMETERS, STOCK_PARAMETERS, getWeather, lookupStock } from '../scenario.mjs';

const mode = process.argv[2];
if (!process.env.MOCK_BASE_URL) throw new Error('run under ../receiver.mjs --mock');
if (!['sdk', 'sdk-content', 'openinference'].includes(mode)) throw new Error('usage: node emit.mjs sdk|sdk-content|openinference');
if (mode === 'sdk-content') process.env.ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE = 'content';
if (mode === 'openinference') process.env.ANTHROPIC_OPEN_TELEMETRY = 'false';

const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': `anthropic-sdk-${mode}-emitter` }),
  spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter())],
});
provider.register();

if (mode === 'openinference') {
  const { AnthropicInstrumentation } = await import('@arizeai/openinference-instrumentation-anthropic');
  const Anthropic = (await import('@anthropic-ai/sdk')).default;
  const instrumentation = new AnthropicInstrumentation();
  instrumentation.manuallyInstrument(Anthropic);
}
const Anthropic = (await import('@anthropic-ai/sdk')).default;
const { betaTool } = await import('@anthropic-ai/sdk/helpers/beta/json-schema');

const client = new Anthropic({ apiKey: 'mock-key', baseURL: process.env.MOCK_BASE_URL });
const tools = [
  betaTool({ name: 'get_weather', description: WEATHER_DESCRIPTION, inputSchema: WEATHER_PARAMETERS, run: async (args) => JSON.stringify(getWeather(args)) }),
  betaTool({ name: 'lookup_stock', description: STOCK_DESCRIPTION, inputSchema: STOCK_PARAMETERS, run: async (args) => JSON.stringify(lookupStock(args)) }),
];

// The OpenInference run has no span of its own around the loop; the app's
// own span makes the calls one trace, as an app would.
const tracer = trace.getTracer('anthropic-sdk-emitter');
const final = await tracer.startActiveSpan('weather_app', async (span) => {
  try {
    return await client.beta.messages.toolRunner({
      model: 'claude-mock-1', max_tokens: 1024, system: INSTRUCTIONS,
      messages: [{ role: 'user', content: PROMPT }], tools, max_iterations: 5,
    });
  } finally {
    span.end();
  }
});
console.log(`final: ${final.content.map((b) => b.text ?? '').join('')}`);
await provider.forceFlush();
await provider.shutdown();
