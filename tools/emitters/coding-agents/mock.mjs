// A scripted mock of the three coding agents' model APIs, for captures on
// loopback: Anthropic Messages (streamed SSE, Claude Code), Gemini
// generateContent/streamGenerateContent (Gemini CLI) and OpenAI Responses
// (streamed, Codex).
//
// Coding agents make side requests of their own (titles, next-speaker checks,
// quota probes), so the turn is not picked by request count: a request that
// offers tools gets the turn after the calls its history already answered
// (the script's turns are consumed call by call: a turn's calls all answered
// means the next turn). A request without tools, or one asking for JSON
// output, is a side request and gets a short text (or the JSON Gemini CLI's
// next-speaker check wants) without moving the script.
//
// A script is {"turns": [{"calls": [{"id", "name", "args"}]} | {"text"}]}.
import { readFileSync } from 'node:fs';

export function loadScript(path) {
  const s = JSON.parse(readFileSync(path, 'utf8'));
  const scripts = s.prompts ?? [s];
  if (scripts.some((p) => !Array.isArray(p.turns) || p.turns.length === 0)) throw new Error(`${path}: no turns`);
  return s;
}

// promptScript picks the part of a several-prompt script (an interactive
// session: {"prompts": [{"match", "turns"}]}) for the user's latest typed
// prompt, the last user content with text, and the tool results given since
// it: the session's history keeps the earlier prompts' calls, which must not
// move this prompt's turns. Gemini contents only.
function promptScript(script, contents) {
  let last = -1;
  for (let i = 0; i < contents.length; i++) {
    const c = contents[i];
    if (c.role === 'user' && (c.parts ?? []).some((p) => typeof p.text === 'string' && !p.functionResponse)) last = i;
  }
  const typed = last < 0 ? '' : contents[last].parts.map((p) => p.text ?? '').join('');
  const part = script.prompts.find((p) => typed.includes(p.match)) ?? script.prompts[0];
  let answered = 0;
  for (const c of contents.slice(last + 1)) for (const p of c.parts ?? []) if (p.functionResponse) answered++;
  return { part, answered };
}

// turnAfter returns the turn that follows `answered` tool results.
function turnAfter(script, answered) {
  let seen = 0;
  for (const t of script.turns) {
    if (!t.calls) return t;
    if (answered < seen + t.calls.length) return t;
    seen += t.calls.length;
  }
  return script.turns[script.turns.length - 1];
}

export function createMock(script) {
  const log = [];
  let n = 0;

  function anthropic(request, res) {
    const msgs = request.messages ?? [];
    let answered = 0;
    for (const m of msgs) {
      if (m.role === 'user' && Array.isArray(m.content)) answered += m.content.filter((b) => b.type === 'tool_result').length;
    }
    const side = !Array.isArray(request.tools) || request.tools.length === 0;
    const turn = side ? { text: 'ok' } : turnAfter(script, answered);
    log.push({ n: ++n, api: 'anthropic.messages', side, answered, request });
    const id = `msg_mock${n}`;
    const model = request.model || 'claude-mock';
    const ev = (type, body) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
    const usage = { input_tokens: 42, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const out = [ev('message_start', { message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } })];
    const blocks = turn.calls
      ? turn.calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args }))
      : [{ type: 'text', text: turn.text }];
    blocks.forEach((b, index) => {
      if (b.type === 'tool_use') {
        out.push(ev('content_block_start', { index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } }));
        out.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } }));
      } else {
        out.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
        out.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: b.text } }));
      }
      out.push(ev('content_block_stop', { index }));
    });
    out.push(ev('message_delta', { delta: { stop_reason: turn.calls ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 17 } }));
    out.push(ev('message_stop', {}));
    if (!request.stream) {
      return json(res, { id, type: 'message', role: 'assistant', model, content: blocks, stop_reason: turn.calls ? 'tool_use' : 'end_turn', stop_sequence: null, usage });
    }
    sse(res, out);
  }

  function gemini(request, res, model, stream) {
    let answered = 0;
    let part = script;
    if (script.prompts) ({ part, answered } = promptScript(script, request.contents ?? []));
    else for (const c of request.contents ?? []) for (const p of c.parts ?? []) if (p.functionResponse) answered++;
    const gc = request.generationConfig ?? request.config ?? {};
    const wantsJSON = gc.responseMimeType === 'application/json' || gc.responseSchema || gc.responseJsonSchema;
    const hasTools = Array.isArray(request.tools) && request.tools.length > 0;
    let parts;
    let side = false;
    if (wantsJSON) {
      side = true;
      parts = [{ text: JSON.stringify({ reasoning: 'The model finished its turn.', next_speaker: 'user', model_choice: 'flash', complexity_reasoning: 'simple', complexity_score: 1 }) }];
    } else if (!hasTools) {
      side = true;
      parts = [{ text: 'ok' }];
    } else {
      const turn = turnAfter(part, answered);
      parts = turn.calls ? turn.calls.map((c) => ({ functionCall: { id: c.id, name: c.name, args: c.args } })) : [{ text: turn.text }];
    }
    log.push({ n: ++n, api: stream ? 'gemini.stream' : 'gemini', side, answered, model, request });
    const body = {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 42, candidatesTokenCount: 17, totalTokenCount: 59 },
      modelVersion: model, responseId: `mockresp${n}`,
    };
    if (!stream) return json(res, body);
    sse(res, [`data: ${JSON.stringify(body)}\r\n\r\n`]);
  }

  function responses(request, res) {
    const input = Array.isArray(request.input) ? request.input : [];
    const answered = input.filter((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output').length;
    const hasTools = Array.isArray(request.tools) && request.tools.length > 0;
    const turn = hasTools ? turnAfter(script, answered) : { text: 'ok' };
    log.push({ n: ++n, api: 'openai.responses', side: !hasTools, answered, request });
    const output = turn.calls
      ? turn.calls.map((c, i) => ({ type: 'function_call', id: `fc_mock${n}_${i}`, call_id: c.id, name: c.name, arguments: JSON.stringify(c.args), status: 'completed' }))
      : [{ type: 'message', id: `msg_mock${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] }];
    const response = {
      id: `resp_mock${n}`, object: 'response', created_at: Math.floor(Date.now() / 1000), status: 'completed', error: null,
      model: request.model || 'gpt-mock', output, parallel_tool_calls: true, tools: request.tools ?? [],
      usage: { input_tokens: 42, input_tokens_details: { cached_tokens: 0 }, output_tokens: 17, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 59 },
    };
    if (!request.stream) return json(res, response);
    let seq = 0;
    const ev = (type, body) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...body })}\n\n`;
    const events = [ev('response.created', { response: { ...response, status: 'in_progress', output: [] } })];
    output.forEach((item, output_index) => {
      events.push(ev('response.output_item.added', { output_index, item: { ...item, status: 'in_progress' } }));
      if (item.type === 'function_call') {
        events.push(ev('response.function_call_arguments.delta', { output_index, item_id: item.id, delta: item.arguments }));
        events.push(ev('response.function_call_arguments.done', { output_index, item_id: item.id, arguments: item.arguments }));
      } else {
        const text = item.content[0].text;
        events.push(ev('response.content_part.added', { output_index, item_id: item.id, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }));
        events.push(ev('response.output_text.delta', { output_index, item_id: item.id, content_index: 0, delta: text }));
        events.push(ev('response.output_text.done', { output_index, item_id: item.id, content_index: 0, text }));
        events.push(ev('response.content_part.done', { output_index, item_id: item.id, content_index: 0, part: item.content[0] }));
      }
      events.push(ev('response.output_item.done', { output_index, item }));
    });
    events.push(ev('response.completed', { response }));
    sse(res, events);
  }

  function handle(req, body, res) {
    const p = new URL(req.url, 'http://x').pathname;
    if (req.method !== 'POST') return false;
    let request;
    try { request = body.length ? JSON.parse(body.toString('utf8')) : {}; } catch { return false; }
    if (p.endsWith('/v1/messages')) { anthropic(request, res); return true; }
    if (p.endsWith('/responses')) { responses(request, res); return true; }
    const g = p.match(/\/models\/([^/:]+):(generateContent|streamGenerateContent)$/);
    if (g) { gemini(request, res, g[1], g[2] === 'streamGenerateContent'); return true; }
    const c = p.match(/\/models\/([^/:]+):countTokens$/);
    if (c) { json(res, { totalTokens: 42 }); return true; }
    return false;
  }
  return { handle, log };
}

function json(res, body) {
  const data = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) });
  res.end(data);
}

function sse(res, chunks) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const c of chunks) res.write(c);
  res.end();
}
