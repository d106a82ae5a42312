// The raw OpenAI Node SDK with a hand-written tool loop (../manual-loop.mjs),
// instrumented by OpenInference (@arizeai/openinference-instrumentation-openai,
// patched by hand: the module is loaded as ESM). The run is wrapped in an
// OpenInference AGENT span (openinference-core traceAgent) named
// weather_agent; the tools are run by the app and leave no spans.
//
//   node emit.mjs simple|batch    the OTel span processor
import * as openaiModule from 'openai';
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
const Processor = { simple: SimpleSpanProcessor, batch: BatchSpanProcessor }[mode];
if (!Processor) throw new Error('usage: node emit.mjs simple|batch');

const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'openai-sdk-openinference-emitter' }),
  spanProcessors: [new Processor(new OTLPTraceExporter())],
});
provider.register();
const instrumentation = new OpenAIInstrumentation({ tracerProvider: provider });
instrumentation.manuallyInstrument(openaiModule);

const client = new openaiModule.OpenAI({ apiKey: 'mock-key', baseURL: `${process.env.MOCK_BASE_URL}/v1` });
const run = traceAgent(async (question) => manualToolLoop(client), { name: 'weather_agent' });
console.log(`final: ${await run(PROMPT)}`);
await provider.forceFlush();
await provider.shutdown();
