// The MCP emitter's client: the hand-written OpenAI tool loop
// (../manual-loop.mjs) whose tools come from an MCP server (server.mjs,
// over stdio): tools/list gives the tool definitions, tools/call runs them;
// a CallToolResult with isError is answered with "error: <text>".
// Instrumented by OpenLLMetry (@traceloop/node-server-sdk: OpenAI chat spans
// and @traceloop/instrumentation-mcp client spans; the MCP client module and
// the OpenAI class handed over with instrumentModules, as ESM needs), the run
// wrapped in traceloop.withAgent. @arizeai/openinference-instrumentation-mcp
// puts the trace context into each request's params._meta for the server.
//
//   node client.mjs simple|batch    simple: initialize({disableBatch: true})
import OpenAI from 'openai';
import * as traceloop from '@traceloop/node-server-sdk';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import * as clientModule from '@modelcontextprotocol/sdk/client/index.js';
import * as clientStdioModule from '@modelcontextprotocol/sdk/client/stdio.js';
import { MCPInstrumentation } from '@arizeai/openinference-instrumentation-mcp';
import { fileURLToPath } from 'node:url';
import { manualToolLoop } from '../manual-loop.mjs';

const mode = process.argv[2];
if (!process.env.MOCK_BASE_URL) throw new Error('run under ../receiver.mjs --mock');
if (mode !== 'simple' && mode !== 'batch') throw new Error('usage: node client.mjs simple|batch');

traceloop.initialize({
  appName: 'mcp-client-emitter',
  disableBatch: mode === 'simple',
  exporter: new OTLPTraceExporter(),
  instrumentModules: { openAI: OpenAI, mcp: clientModule },
  traceloopSyncEnabled: false,
  silenceInitializationMessage: true,
});
new MCPInstrumentation().manuallyInstrument({ clientStdioModule });

const openai = new OpenAI({ apiKey: 'mock-key', baseURL: `${process.env.MOCK_BASE_URL}/v1` });

const answer = await traceloop.withAgent({ name: 'weather_agent' }, async () => {
  const mcp = new clientModule.Client({ name: 'weather-app', version: '1.0.0' });
  const transport = new clientStdioModule.StdioClientTransport({
    command: process.execPath,
    args: [fileURLToPath(new URL('./server.mjs', import.meta.url))],
    env: { ...process.env },
    stderr: 'inherit',
  });
  await mcp.connect(transport);
  const { tools } = await mcp.listTools();
  const openaiTools = tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.inputSchema },
  }));
  const execute = async (name, args) => {
    const result = await mcp.callTool({ name, arguments: args });
    const text = result.content.map((c) => c.text).join('');
    if (result.isError) throw new Error(text);
    return text;
  };
  try {
    return await manualToolLoop(openai, { tools: openaiTools, execute });
  } finally {
    await mcp.close();
  }
});
console.log(`final: ${answer}`);
await new Promise((r) => setTimeout(r, 1500)); // the server flushes its spans on close
await traceloop.forceFlush();
