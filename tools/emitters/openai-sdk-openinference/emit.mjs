// The raw OpenAI Node SDK with a hand-written tool loop (../manual-loop.mjs),
// instrumented by OpenInference (@arizeai/openinference-instrumentation-openai,
// patched by hand: the module is loaded as ESM). The run is wrapped in an
// OpenInference AGENT span (openinference-core traceAgent) named
// weather_agent; the tools are run by the app and leave no spans.
//
//   node emit.mjs simple|batch [agent|request]
//     simple|batch   the OTel span processor
//     agent          (default) the loop inside the AGENT span weather_agent
//     request        a model-client-only app: the loop inside the app's own
//                    request span handle_request (tracer.startActiveSpan,
//                    kind SERVER, only http.* attributes), no agent span
import * as openaiModule from 'openai';
import { trace, SpanKind } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { BatchSpanProcessor, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { traceAgent } from '@arizeai/openinference-core';
import { manualToolLoop } from '../manual-loop.mjs';
import { PROMPT } from '../scenario.mjs';

const mode = process.argv[2];
if (!process.env.MOCK_BASE_URL) throw new Error('run under ../receiver.mjs --mock');
const wrap = process.argv[3] ?? 'agent';
const Processor = { simple: SimpleSpanProcessor, batch: BatchSpanProcessor }[mode];
if (!Processor || (wrap !== 'agent' && wrap !== 'request')) throw new Error('usage: node emit.mjs simple|batch [agent|request]');

const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'openai-sdk-openinference-emitter' }),
  spanProcessors: [new Processor(new OTLPTraceExporter())],
});
provider.register();
const instrumentation = new OpenAIInstrumentation({ tracerProvider: provider });
instrumentation.manuallyInstrument(openaiModule);

const client = new openaiModule.OpenAI({ apiKey: 'mock-key', baseURL: `${process.env.MOCK_BASE_URL}/v1` });
let answer;
if (wrap === 'agent') {
  const run = traceAgent(async (question) => manualToolLoop(client), { name: 'weather_agent' });
  answer = await run(PROMPT);
} else {
  answer = await handleRequest(() => manualToolLoop(client));
}
console.log(`final: ${answer}`);
await provider.forceFlush();
await provider.shutdown();

// The app's own request span, as a hand-instrumented HTTP handler makes it.
function handleRequest(fn) {
  const tracer = trace.getTracer('weather-app');
  const attributes = { 'http.request.method': 'POST', 'http.route': '/weather' };
  return tracer.startActiveSpan('handle_request', { kind: SpanKind.SERVER, attributes }, async (span) => {
    try {
      return await fn();
    } finally {
      span.end();
    }
  });
}
