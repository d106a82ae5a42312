#!/usr/bin/env node
// Prints what a capture holds: per line (one ExportTraceServiceRequest) the
// spans in it, in the order they appear, with their parent, status and
// attribute keys; then the span tree of each trace.
//
//   node summarize.mjs FILE [--attrs]    --attrs prints attribute values too
import { readFileSync } from 'node:fs';

const file = process.argv[2];
const showAttrs = process.argv.includes('--attrs');
const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
const spans = new Map();
const order = [];

function value(v) {
  if (v == null) return null;
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('boolValue' in v) return v.boolValue;
  if ('arrayValue' in v) return (v.arrayValue.values ?? []).map(value);
  if ('kvlistValue' in v) return Object.fromEntries((v.kvlistValue.values ?? []).map((kv) => [kv.key, value(kv.value)]));
  return v;
}

lines.forEach((line, i) => {
  const doc = JSON.parse(line);
  const names = [];
  for (const rs of doc.resourceSpans ?? []) {
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        spans.set(s.spanId, { ...s, scope: ss.scope?.name, line: i + 1 });
        order.push(s.spanId);
        names.push(s.name);
      }
    }
  }
  console.log(`line ${i + 1}: ${names.join(' | ')}`);
});

const short = (id) => (id ? id.slice(0, 6) : '-');
console.log();
for (const id of order) {
  const s = spans.get(id);
  const attrs = Object.fromEntries((s.attributes ?? []).map((kv) => [kv.key, value(kv.value)]));
  const status = s.status?.code ? `status=${s.status.code}${s.status.message ? ` "${s.status.message}"` : ''}` : '';
  const events = (s.events ?? []).map((e) => e.name).join(',');
  console.log(`[L${s.line}] ${short(s.spanId)}<-${short(s.parentSpanId)} kind=${s.kind} scope=${s.scope} "${s.name}" ${status} ${events ? `events=${events}` : ''}`);
  if (showAttrs) {
    for (const [k, v] of Object.entries(attrs)) {
      let text = typeof v === 'string' ? v : JSON.stringify(v);
      if (text.length > 400) text = text.slice(0, 400) + '…';
      console.log(`      ${k} = ${text}`);
    }
    for (const e of s.events ?? []) {
      for (const kv of e.attributes ?? []) {
        let text = JSON.stringify(value(kv.value));
        if (text.length > 400) text = text.slice(0, 400) + '…';
        console.log(`      event ${e.name}: ${kv.key} = ${text}`);
      }
    }
  } else {
    console.log(`      ${Object.keys(attrs).join(', ')}`);
  }
}

console.log('\ntree (by start time):');
const children = new Map();
for (const id of order) {
  const s = spans.get(id);
  const p = spans.has(s.parentSpanId) ? s.parentSpanId : '';
  if (!children.has(p)) children.set(p, []);
  children.get(p).push(s);
}
function print(p, depth) {
  const kids = (children.get(p) ?? []).sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1));
  for (const s of kids) {
    console.log(`${'  '.repeat(depth)}${s.name} [L${s.line}]${s.parentSpanId && !spans.has(s.parentSpanId) ? ` (parent ${short(s.parentSpanId)} not in file)` : ''}`);
    print(s.spanId, depth + 1);
  }
}
print('', 0);
