// The raw OpenAI Node SDK with a hand-written tool loop (../manual-loop.mjs),
// instrumented by the OpenTelemetry contrib instrumentation
// (@opentelemetry/instrumentation-openai) with content capture on: its
// chat spans carry no message, the messages and tool calls go out as log
// records (gen_ai.system/user/assistant/tool.message, gen_ai.choice) with
// the chat span's trace and span id. The loop runs under a plain root span
// "weather-loop" (what a hand-written app adds; no GenAI attributes), and
// the tools are run by the app and leave no spans.
//
//   node emit.cjs simple|batch    the OTel span and log record processors
const { NodeSDK } = require('@opentelemetry/sdk-node');
const { SimpleSpanProcessor, BatchSpanProcessor } = require('@opentelemetry/sdk-trace');
const { SimpleLogRecordProcessor, BatchLogRecordProcessor } = require('@opentelemetry/sdk-logs');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
const { OTLPLogExporter } = require('@opentelemetry/exporter-logs-otlp-http');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { OpenAIInstrumentation } = require('@opentelemetry/instrumentation-openai');

const mode = process.argv[2];
if (!process.env.MOCK_BASE_URL) throw new Error('run under ../receiver.mjs --mock');
const procs = {
  simple: [SimpleSpanProcessor, SimpleLogRecordProcessor],
  batch: [BatchSpanProcessor, BatchLogRecordProcessor],
}[mode];
if (!procs) throw new Error('usage: node emit.cjs simple|batch');

const sdk = new NodeSDK({
  resource: resourceFromAttributes({ 'service.name': 'openai-sdk-otel-contrib-emitter' }),
  autoDetectResources: false,
  spanProcessors: [new procs[0]({ exporter: new OTLPTraceExporter() })],
  logRecordProcessors: [new procs[1]({ exporter: new OTLPLogExporter() })],
  instrumentations: [new OpenAIInstrumentation({ captureMessageContent: true })],
});
sdk.start();

(async () => {
  const { trace } = require('@opentelemetry/api');
  const { OpenAI } = require('openai');
  const { manualToolLoop } = await import('../manual-loop.mjs');
  const client = new OpenAI({ apiKey: 'mock-key', baseURL: `${process.env.MOCK_BASE_URL}/v1` });
  const tracer = trace.getTracer('weather-app');
  const answer = await tracer.startActiveSpan('weather-loop', async (span) => {
    try {
      return await manualToolLoop(client);
    } finally {
      span.end();
    }
  });
  console.log(`final: ${answer}`);
  await sdk.shutdown();
})();
