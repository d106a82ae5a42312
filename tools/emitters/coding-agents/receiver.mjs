#!/usr/bin/env node
// OTLP/HTTP JSON receiver for traces AND logs, with the coding-agent mock
// model on the same loopback port.
//
//   node receiver.mjs --out PREFIX --mock SCRIPT.json [--port N] -- CMD ARGS...
//
// Writes each POST /v1/traces body to PREFIX.otlp.jsonl and each POST /v1/logs
// body to PREFIX.logs.otlp.jsonl, one request per line, as received (gzip
// removed), in arrival order; metrics are acknowledged and dropped; protobuf is
// refused (415). The model's requests go to PREFIX.exchanges.jsonl (not a
// capture: kept in the scratch dir to debug a script). Any other POST is
// answered {} and named on stderr (Codex posts a turn-cost request to its
// model base URL). CMD runs with RECEIVER_URL=http://127.0.0.1:PORT.
import { createServer } from 'node:http';
import { spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, inflateSync } from 'node:zlib';
import { createMock, loadScript } from './mock.mjs';

const argv = process.argv.slice(2);
const opts = { port: 0 };
let i = 0;
for (; i < argv.length; i++) {
  if (argv[i] === '--') { i++; break; }
  if (argv[i] === '--out') opts.out = argv[++i];
  else if (argv[i] === '--mock') opts.mock = argv[++i];
  else if (argv[i] === '--port') opts.port = Number(argv[++i]);
  else throw new Error(`unknown argument ${argv[i]}`);
}
opts.cmd = argv.slice(i);
const files = { traces: `${opts.out}.otlp.jsonl`, logs: `${opts.out}.logs.otlp.jsonl` };
writeFileSync(files.traces, '');
writeFileSync(files.logs, '');
const mock = createMock(loadScript(opts.mock));
const stats = { traces: 0, logs: 0, metrics: 0, refused: 0, other: [] };

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body = Buffer.concat(chunks);
    const enc = req.headers['content-encoding'] ?? '';
    if (enc.includes('gzip')) body = gunzipSync(body);
    else if (enc.includes('deflate')) body = inflateSync(body);
    const path = new URL(req.url, 'http://x').pathname;
    const type = req.headers['content-type'] ?? '';
    const signal = { '/v1/traces': 'traces', '/v1/logs': 'logs', '/v1/metrics': 'metrics' }[path];
    if (req.method === 'POST' && signal) {
      if (!type.includes('json')) {
        stats.refused++;
        process.stderr.write(`receiver: refused ${path} (${type}): OTLP/JSON only\n`);
        res.writeHead(415); return res.end('OTLP/JSON only');
      }
      stats[signal]++;
      if (signal !== 'metrics') appendFileSync(files[signal], JSON.stringify(JSON.parse(body.toString('utf8'))) + '\n');
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('{}');
    }
    if (mock.handle(req, body, res)) return;
    stats.other.push(`${req.method} ${req.url}`);
    process.stderr.write(`receiver: answered {} to ${req.method} ${req.url}\n`);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
});

server.listen(opts.port, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${server.address().port}`;
  process.stderr.write(`receiver: listening on ${url}\n`);
  const child = spawn(opts.cmd[0], opts.cmd.slice(1), { stdio: 'inherit', env: { ...process.env, RECEIVER_URL: url } });
  child.on('exit', (code) => {
    setTimeout(() => {
      server.close();
      writeFileSync(`${opts.out}.exchanges.jsonl`, mock.log.map((e) => JSON.stringify(e)).join('\n') + '\n');
      process.stderr.write(`receiver: traces ${stats.traces} logs ${stats.logs} metrics ${stats.metrics} requests, ` +
        `${mock.log.length} model requests (${mock.log.filter((e) => e.side).length} side)` +
        (stats.other.length ? `, other: ${stats.other.join('; ')}` : '') + (stats.refused ? `, REFUSED ${stats.refused}` : '') + '\n');
      process.exit(code ?? 1);
    }, 1500);
  });
});
