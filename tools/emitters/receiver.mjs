#!/usr/bin/env node
// OTLP/HTTP JSON trace receiver on loopback, and the mock model beside it.
//
//   node receiver.mjs --out FILE [--logs FILE] [--mock SCRIPT.json] [--exchanges FILE] [--port N] -- CMD ARGS...
//
// Listens on 127.0.0.1 (port N, or any free one), runs CMD with
//   OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:PORT  (and the traces endpoint, protocol http/json)
//   MOCK_BASE_URL=http://127.0.0.1:PORT                (the mock model, when --mock is given)
// and writes each POST /v1/traces body to FILE as one line, exactly as received
// (after gzip decoding, if the exporter compressed it), in the order the
// requests arrived: the collector file exporter's framing, one
// ExportTraceServiceRequest per line. With --logs, each POST /v1/logs body
// is written to that file the same way (one ExportLogsServiceRequest per
// line); otherwise logs, and always metrics, are acknowledged and dropped. A protobuf body is refused (415) and makes the run fail. When CMD
// exits the receiver waits a moment for late exports, then exits with CMD's
// status. --exchanges writes the mock model's requests, one per line.
import { createServer } from 'node:http';
import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createMock, loadScript } from './mock-model.mjs';

function parseArgs(argv) {
  const opts = { port: 0 };
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') { i++; break; }
    if (a === '--out') opts.out = argv[++i];
    else if (a === '--mock') opts.mock = argv[++i];
    else if (a === '--exchanges') opts.exchanges = argv[++i];
    else if (a === '--logs') opts.logs = argv[++i];
    else if (a === '--port') opts.port = Number(argv[++i]);
    else throw new Error(`unknown argument ${a}`);
  }
  opts.cmd = argv.slice(i);
  if (!opts.out || opts.cmd.length === 0) {
    throw new Error('usage: node receiver.mjs --out FILE [--mock SCRIPT] [--exchanges FILE] [--port N] -- CMD ARGS...');
  }
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
writeFileSync(opts.out, '');
if (opts.logs) writeFileSync(opts.logs, '');
const mock = opts.mock ? createMock(loadScript(opts.mock)) : null;
const stats = { lines: 0, spans: [], logLines: 0, records: [], refused: 0, dropped: { logs: 0, metrics: 0 }, unknown: [] };

function countSpans(doc) {
  let n = 0;
  for (const rs of doc.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) n += (ss.spans ?? []).length;
  return n;
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body = Buffer.concat(chunks);
    if ((req.headers['content-encoding'] ?? '').includes('gzip')) body = gunzipSync(body);
    const path = new URL(req.url, 'http://x').pathname;
    const type = req.headers['content-type'] ?? '';
    if (req.method === 'POST' && (path === '/v1/traces' || path === '/v1/logs' || path === '/v1/metrics')) {
      if (!type.includes('json')) {
        stats.refused++;
        process.stderr.write(`receiver: refused ${path} with content-type ${type}: only OTLP/JSON is recorded\n`);
        res.writeHead(415, { 'content-type': 'text/plain' });
        return res.end('OTLP/JSON only');
      }
      if (path === '/v1/logs' && opts.logs) {
        const doc = JSON.parse(body.toString('utf8'));
        appendFileSync(opts.logs, JSON.stringify(doc) + '\n');
        stats.logLines++;
        let n = 0;
        for (const rl of doc.resourceLogs ?? []) for (const sl of rl.scopeLogs ?? []) n += (sl.logRecords ?? []).length;
        stats.records.push(n);
      } else if (path === '/v1/traces') {
        let text = body.toString('utf8');
        const doc = JSON.parse(text);
        if (text.includes('\n')) {
          process.stderr.write('receiver: body held a newline; written re-serialized\n');
          text = JSON.stringify(doc);
        }
        appendFileSync(opts.out, text + '\n');
        stats.lines++;
        stats.spans.push(countSpans(doc));
      } else {
        stats.dropped[path.slice(4)]++;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{}');
    }
    if (mock && mock.handle(req, body, res)) return;
    stats.unknown.push(`${req.method} ${req.url}`);
    process.stderr.write(`receiver: no route for ${req.method} ${req.url}\n`);
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"not found"}}');
  });
});

server.listen(opts.port, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${server.address().port}`;
  process.stderr.write(`receiver: listening on ${url}, writing ${opts.out}\n`);
  const child = spawn(opts.cmd[0], opts.cmd.slice(1), {
    stdio: 'inherit',
    env: {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: url,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${url}/v1/traces`,
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: `${url}/v1/logs`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      RECEIVER_URL: url,
      ...(mock ? { MOCK_BASE_URL: url } : {}),
    },
  });
  child.on('exit', (code, signal) => {
    setTimeout(() => {
      server.close();
      if (opts.exchanges && mock) writeFileSync(opts.exchanges, mock.log.map((e) => JSON.stringify(e)).join('\n') + '\n');
      process.stderr.write(`receiver: ${stats.lines} lines, spans per line [${stats.spans.join(', ')}]` +
        (mock ? `, ${mock.log.length} model requests` : '') +
        (opts.logs ? `, ${stats.logLines} logs lines, records per line [${stats.records.join(', ')}]` : '') +
        `, dropped logs ${stats.dropped.logs} metrics ${stats.dropped.metrics}` +
        (stats.refused ? `, REFUSED ${stats.refused} non-JSON exports` : '') +
        (stats.unknown.length ? `, unrouted: ${stats.unknown.join('; ')}` : '') + '\n');
      const rc = code ?? (signal ? 1 : 0);
      process.exit(rc || (stats.refused ? 1 : 0));
    }, 500);
  });
});
