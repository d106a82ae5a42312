// The raw OpenAI Node SDK with a hand-written tool loop (../manual-loop.mjs),
// instrumented by the OpenTelemetry contrib instrumentation
// (@opentelemetry/instrumentation-openai) with content capture on: its
// chat spans carry no message, the messages and tool calls go out as log
// records (gen_ai.system/user/assistant/tool.message, gen_ai.choice) with
// the chat span's trace and span id. The loop runs under a plain root span
// "weather-loop" (what a hand-written app adds; no GenAI attributes), and
// the tools are run by the app and leave no spans.
//
//   node emit.cjs simple|batch chat|responses
//
// simple|batch: the OTel span and log record processors. chat: the manual
// loop on chat completions (per-message log records); responses: the same
// loop on the Responses API, which the instrumentation records as one
// gen_ai.client.inference.operation.details log record per model call
// (gen_ai.input.messages, gen_ai.output.messages in the semconv parts form).
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
const api = process.argv[3] ?? 'chat';
if (!procs || !['chat', 'responses'].includes(api)) throw new Error('usage: node emit.cjs simple|batch chat|responses');

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
      return api === 'chat' ? await manualToolLoop(client) : await responsesToolLoop(client);
    } finally {
      span.end();
    }
  });
  console.log(`final: ${answer}`);
  await sdk.shutdown();
})();

// responsesToolLoop is ../manual-loop.mjs on the Responses API: function
// calls answered with function_call_output items, an unknown tool with
// "error: unknown tool <name>", a failed one with "error: <message>".
async function responsesToolLoop(client, maxTurns = 5) {
  const { TOOLS } = await import('../manual-loop.mjs');
  const { PROMPT, INSTRUCTIONS, getWeather, lookupStock } = await import('../scenario.mjs');
  const impl = { get_weather: getWeather, lookup_stock: lookupStock };
  const tools = TOOLS.map((t) => ({ type: 'function', name: t.function.name, description: t.function.description, parameters: t.function.parameters }));
  const input = [{ role: 'user', content: PROMPT }];
  for (let turn = 1; turn <= maxTurns; turn++) {
    const response = await client.responses.create({ model: 'gpt-4.1-mini', instructions: INSTRUCTIONS, input, tools });
    const calls = response.output.filter((o) => o.type === 'function_call');
    if (calls.length === 0) {
      console.log(`turn ${turn}: answer ${response.output_text}`);
      return response.output_text;
    }
    for (const call of calls) {
      input.push({ type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments });
      let output;
      if (!impl[call.name]) output = `error: unknown tool ${call.name}`;
      else {
        try {
          output = JSON.stringify(impl[call.name](JSON.parse(call.arguments)));
        } catch (err) {
          output = `error: ${err.message}`;
        }
      }
      console.log(`turn ${turn}: ${call.name} ${call.arguments} id=${call.call_id} -> ${output}`);
      input.push({ type: 'function_call_output', call_id: call.call_id, output });
    }
  }
  throw new Error('no answer');
}
