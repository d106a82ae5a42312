// The raw OpenAI Node SDK with a hand-written tool loop (../manual-loop.mjs),
// instrumented by OpenLLMetry (@traceloop/node-server-sdk, which brings
// @traceloop/instrumentation-openai; the OpenAI class is handed to it with
// instrumentModules, as ESM needs). The run is wrapped in traceloop.withAgent
// (span weather_agent.agent); the tools are run by the app and leave no spans.
// The SDK's exporter is replaced by the OTLP/HTTP JSON one.
//
//   node emit.mjs simple|batch    simple: initialize({disableBatch: true}),
//                                 the SDK's SimpleSpanProcessor; batch: its
//                                 default BatchSpanProcessor
import OpenAI from 'openai';
import * as traceloop from '@traceloop/node-server-sdk';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { manualToolLoop } from '../manual-loop.mjs';

const mode = process.argv[2];
if (!process.env.MOCK_BASE_URL) throw new Error('run under ../receiver.mjs --mock');
if (mode !== 'simple' && mode !== 'batch') throw new Error('usage: node emit.mjs simple|batch');

traceloop.initialize({
  appName: 'openai-sdk-openllmetry-emitter',
  disableBatch: mode === 'simple',
  exporter: new OTLPTraceExporter(),
  instrumentModules: { openAI: OpenAI },
  traceloopSyncEnabled: false,
  silenceInitializationMessage: true,
});

const client = new OpenAI({ apiKey: 'mock-key', baseURL: `${process.env.MOCK_BASE_URL}/v1` });
const answer = await traceloop.withAgent({ name: 'weather_agent' }, () => manualToolLoop(client));
console.log(`final: ${answer}`);
await traceloop.forceFlush();
