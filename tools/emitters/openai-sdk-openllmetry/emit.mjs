// The raw OpenAI Node SDK with a hand-written tool loop (../manual-loop.mjs),
// instrumented by OpenLLMetry (@traceloop/node-server-sdk, which brings
// @traceloop/instrumentation-openai; the OpenAI class is handed to it with
// instrumentModules, as ESM needs). The run is wrapped in traceloop.withAgent
// (span weather_agent.agent); the tools are run by the app and leave no spans.
// The SDK's exporter is replaced by the OTLP/HTTP JSON one.
//
//   node emit.mjs simple|batch [agent|request]
//     simple|batch   simple: initialize({disableBatch: true}), the SDK's
//                    SimpleSpanProcessor; batch: its default BatchSpanProcessor
//     agent          (default) the loop inside withAgent (weather_agent.agent)
//     request        a model-client-only app: the loop inside the app's own
//                    request span handle_request (tracer.startActiveSpan,
//                    kind SERVER, only http.* attributes), no agent span
import OpenAI from 'openai';
import { trace, SpanKind } from '@opentelemetry/api';
import * as traceloop from '@traceloop/node-server-sdk';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { manualToolLoop } from '../manual-loop.mjs';

const mode = process.argv[2];
if (!process.env.MOCK_BASE_URL) throw new Error('run under ../receiver.mjs --mock');
const wrap = process.argv[3] ?? 'agent';
if ((mode !== 'simple' && mode !== 'batch') || (wrap !== 'agent' && wrap !== 'request')) {
  throw new Error('usage: node emit.mjs simple|batch [agent|request]');
}

traceloop.initialize({
  appName: 'openai-sdk-openllmetry-emitter',
  disableBatch: mode === 'simple',
  exporter: new OTLPTraceExporter(),
  instrumentModules: { openAI: OpenAI },
  traceloopSyncEnabled: false,
  silenceInitializationMessage: true,
});

const client = new OpenAI({ apiKey: 'mock-key', baseURL: `${process.env.MOCK_BASE_URL}/v1` });
const answer = wrap === 'agent'
  ? await traceloop.withAgent({ name: 'weather_agent' }, () => manualToolLoop(client))
  : await handleRequest(() => manualToolLoop(client));
console.log(`final: ${answer}`);
await traceloop.forceFlush();

// The app's own request span, as a hand-instrumented HTTP handler makes it
// (the global provider is the one traceloop.initialize registered).
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
