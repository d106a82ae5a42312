// The app of the raw-SDK emitters: a hand-written tool loop on OpenAI chat
// completions. The app runs the tools itself (no framework, so no tool
// spans); a call to a tool it did not offer is refused with the tool message
// "error: unknown tool <name>", and a tool that throws is answered with
// "error: <message>". The client is passed in, so this file imports no
// package and each emitter's own node_modules provide `openai`. The MCP
// emitter passes its own tools (from tools/list) and execute (tools/call).
import { PROMPT, INSTRUCTIONS, WEATHER_DESCRIPTION, STOCK_DESCRIPTION, WEATHER_PARAMETERS, STOCK_PARAMETERS, getWeather, lookupStock } from './scenario.mjs';

export const TOOLS = [
  { type: 'function', function: { name: 'get_weather', description: WEATHER_DESCRIPTION, parameters: WEATHER_PARAMETERS } },
  { type: 'function', function: { name: 'lookup_stock', description: STOCK_DESCRIPTION, parameters: STOCK_PARAMETERS } },
];
const IMPLEMENTATIONS = { get_weather: getWeather, lookup_stock: lookupStock };

async function executeLocal(name, args) {
  return JSON.stringify(IMPLEMENTATIONS[name](args));
}

export async function manualToolLoop(client, { model = 'gpt-4.1-mini', maxTurns = 5, log = console.log, tools = TOOLS, execute = executeLocal } = {}) {
  const offered = new Set(tools.map((t) => t.function.name));
  const messages = [
    { role: 'system', content: INSTRUCTIONS },
    { role: 'user', content: PROMPT },
  ];
  for (let turn = 1; turn <= maxTurns; turn++) {
    const completion = await client.chat.completions.create({ model, messages, tools });
    const message = completion.choices[0].message;
    messages.push(message);
    if (!message.tool_calls || message.tool_calls.length === 0) {
      log(`turn ${turn}: answer ${message.content}`);
      return message.content;
    }
    for (const call of message.tool_calls) {
      let content;
      if (!offered.has(call.function.name)) {
        content = `error: unknown tool ${call.function.name}`;
      } else {
        try {
          content = await execute(call.function.name, JSON.parse(call.function.arguments));
        } catch (err) {
          content = `error: ${err.message}`;
        }
      }
      log(`turn ${turn}: ${call.function.name} ${call.function.arguments} id=${call.id} -> ${content}`);
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
  }
  throw new Error('no answer');
}
