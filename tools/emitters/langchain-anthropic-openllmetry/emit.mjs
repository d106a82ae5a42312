// LangChain JS (@langchain/core) with ChatAnthropic on the Messages API mock,
// instrumented by OpenLLMetry (@traceloop/node-server-sdk, LangChain
// callbacks), a hand-written tool loop over LangChain tools (tool(): a
// DynamicStructuredTool) wrapped in traceloop.withAgent, without withTool.
// A tool that throws is answered with a ToolMessage of status "error",
// which ChatAnthropic sends as a tool_result block with is_error: true.
//
//   node emit.mjs simple     SimpleSpanProcessor (disableBatch): one request per span
import * as traceloop from '@traceloop/node-server-sdk';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { z } from 'zod';
import { PROMPT, INSTRUCTIONS, WEATHER_DESCRIPTION, STOCK_DESCRIPTION, getWeather, lookupStock } from '../scenario.mjs';

if (!process.env.MOCK_BASE_URL) throw new Error('run under ../receiver.mjs --mock');
if (process.argv[2] !== 'simple') throw new Error('usage: node emit.mjs simple');

traceloop.initialize({
  appName: 'langchain-anthropic-openllmetry-emitter',
  disableBatch: true,
  exporter: new OTLPTraceExporter(),
  instrumentModules: { langchain: { callbackManagerModule: CallbackManagerModule } },
  traceloopSyncEnabled: false,
  silenceInitializationMessage: true,
});

const { ChatAnthropic } = await import('@langchain/anthropic');
const { tool } = await import('@langchain/core/tools');
const { HumanMessage, SystemMessage, ToolMessage } = await import('@langchain/core/messages');

const tools = [
  tool(async (args) => JSON.stringify(getWeather(args)), {
    name: 'get_weather', description: WEATHER_DESCRIPTION,
    schema: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) }),
  }),
  tool(async (args) => JSON.stringify(lookupStock(args)), {
    name: 'lookup_stock', description: STOCK_DESCRIPTION,
    schema: z.object({ symbol: z.string() }),
  }),
];
const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
const model = new ChatAnthropic({
  model: 'claude-mock-1', apiKey: 'mock-key', anthropicApiUrl: process.env.MOCK_BASE_URL, maxRetries: 0,
}).bindTools(tools);

async function loop() {
  const messages = [new SystemMessage(INSTRUCTIONS), new HumanMessage(PROMPT)];
  for (let turn = 1; turn <= 5; turn++) {
    const ai = await model.invoke(messages);
    messages.push(ai);
    if (!ai.tool_calls || ai.tool_calls.length === 0) return ai.content;
    for (const call of ai.tool_calls) {
      try {
        messages.push(await byName[call.name].invoke(call));
      } catch (e) {
        messages.push(new ToolMessage({ tool_call_id: call.id, name: call.name, content: `Error: ${e.message}`, status: 'error' }));
      }
    }
  }
  return '(no answer)';
}

const answer = await traceloop.withAgent({ name: 'weather_agent' }, loop);
console.log(`final: ${typeof answer === 'string' ? answer : JSON.stringify(answer)}`);
await traceloop.forceFlush();
