// The MCP server of the MCP emitter (stdio; client.mjs starts it). Tools
// get_weather and lookup_stock; lookup_stock answers "ZZZZ" with a tool error
// (CallToolResult isError: true, text "unknown symbol ZZZZ"), as an MCP
// server reports a failed tool. Instrumented by @shinzolabs/instrumentation-mcp
// (its own NodeSDK, batch processor, OTLP/HTTP JSON to OTEL_EXPORTER_OTLP_ENDPOINT;
// argument collection on), which wraps tools registered with server.tool();
// @arizeai/openinference-instrumentation-mcp reads the trace context the
// client put in params._meta, so the server spans join the client's trace.
import * as serverStdioModule from '@modelcontextprotocol/sdk/server/stdio.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { instrumentServer } from '@shinzolabs/instrumentation-mcp';
import { MCPInstrumentation } from '@arizeai/openinference-instrumentation-mcp';
import { z } from 'zod';
import { WEATHER_DESCRIPTION, STOCK_DESCRIPTION, getWeather, lookupStock } from '../scenario.mjs';

const server = new McpServer({ name: 'weather-mcp', version: '1.0.0' });
const telemetry = instrumentServer(server, {
  serverName: 'weather-mcp',
  serverVersion: '1.0.0',
  exporterEndpoint: `${process.env.OTEL_EXPORTER_OTLP_ENDPOINT}/v1`,
  enableArgumentCollection: true,
  enableMetrics: false,
});
new MCPInstrumentation().manuallyInstrument({ serverStdioModule });

server.tool('get_weather', WEATHER_DESCRIPTION, { city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) },
  async (args) => ({ content: [{ type: 'text', text: JSON.stringify(getWeather(args)) }] }));
server.tool('lookup_stock', STOCK_DESCRIPTION, { symbol: z.string() }, async (args) => {
  try {
    return { content: [{ type: 'text', text: JSON.stringify(lookupStock(args)) }] };
  } catch (err) {
    return { isError: true, content: [{ type: 'text', text: err.message }] };
  }
});

// The client ends stdin when it closes the session: flush the spans, exit.
let closing = false;
async function close() {
  if (closing) return;
  closing = true;
  await telemetry.shutdown();
  process.exit(0);
}
process.stdin.on('end', close);
process.on('SIGTERM', close);
await server.connect(new serverStdioModule.StdioServerTransport());
