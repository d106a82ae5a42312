// A scripted mock model behind the wire formats the emitters' frameworks speak:
// OpenAI chat completions (plain and streamed), OpenAI Responses (plain and
// streamed), Gemini generateContent / streamGenerateContent and Anthropic
// Messages (plain and streamed).
//
// A script is a JSON file {"turns": [turn, ...]}; a turn is
// {"calls": [{"id", "name", "args"}, ...]} (the model asks for these tool
// calls, in this order, in one response) or {"text": "..."} (a final answer).
// The n-th model request, whatever its API, gets turn n. Requests past the
// end get the last turn again and a warning on stderr. Gemini responses carry
// no function-call id unless the script says "gemini_ids": true (the Gemini
// API usually sends none).
import { readFileSync } from 'node:fs';

export function loadScript(path) {
  const script = JSON.parse(readFileSync(path, 'utf8'));
  if (!Array.isArray(script.turns) || script.turns.length === 0) {
    throw new Error(`${path}: no turns`);
  }
  return script;
}

const usage = { prompt: 42, completion: 17 };

// createMock returns handle(req, body, res) -> true when it answered, and
// log, the exchanges so far ({n, api, path, request, turn}).
export function createMock(script, { model = 'mock-model-1' } = {}) {
  let n = 0;
  const log = [];
  const now = () => Math.floor(Date.now() / 1000);

  function nextTurn(api, path, request) {
    let i = n++;
    if (i >= script.turns.length) {
      process.stderr.write(`mock-model: request ${i + 1} past the script's ${script.turns.length} turns; repeating the last\n`);
      i = script.turns.length - 1;
    }
    const turn = script.turns[i];
    log.push({ n: n, api, path, turn: i + 1, request });
    return turn;
  }

  function chatMessage(turn) {
    if (turn.calls) {
      return {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: turn.calls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: JSON.stringify(c.args) },
          })),
        },
        finish: 'tool_calls',
      };
    }
    return { message: { role: 'assistant', content: turn.text }, finish: 'stop' };
  }

  function chatCompletions(request, res) {
    const turn = nextTurn('openai.chat.completions', '/v1/chat/completions', request);
    const id = `chatcmpl-mock${n}`;
    const created = now();
    const mdl = request.model || model;
    const u = { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion };
    const { message, finish } = chatMessage(turn);
    if (!request.stream) {
      return json(res, {
        id, object: 'chat.completion', created, model: mdl,
        choices: [{ index: 0, message: { ...message, refusal: null }, logprobs: null, finish_reason: finish }],
        usage: u,
      });
    }
    const chunk = (delta, finish_reason = null, extra = {}) => ({
      id, object: 'chat.completion.chunk', created, model: mdl,
      choices: [{ index: 0, delta, logprobs: null, finish_reason }], ...extra,
    });
    const events = [chunk({ role: 'assistant', content: turn.calls ? null : '' })];
    if (turn.calls) {
      turn.calls.forEach((c, index) => {
        events.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
        events.push(chunk({ tool_calls: [{ index, function: { arguments: JSON.stringify(c.args) } }] }));
      });
    } else {
      events.push(chunk({ content: turn.text }));
    }
    events.push(chunk({}, finish));
    if (request.stream_options && request.stream_options.include_usage) {
      events.push({ id, object: 'chat.completion.chunk', created, model: mdl, choices: [], usage: u });
    }
    sse(res, events.map((e) => `data: ${JSON.stringify(e)}\n\n`).concat(['data: [DONE]\n\n']));
  }

  function responsesOutput(turn) {
    if (turn.calls) {
      return turn.calls.map((c, i) => ({
        type: 'function_call', id: `fc_mock${n}_${i}`, call_id: c.id, name: c.name,
        arguments: JSON.stringify(c.args), status: 'completed',
      }));
    }
    return [{
      type: 'message', id: `msg_mock${n}`, role: 'assistant', status: 'completed',
      content: [{ type: 'output_text', text: turn.text, annotations: [], logprobs: [] }],
    }];
  }

  function responses(request, res) {
    const turn = nextTurn('openai.responses', '/v1/responses', request);
    const output = responsesOutput(turn);
    const response = {
      id: `resp_mock${n}`, object: 'response', created_at: now(), status: 'completed', error: null,
      incomplete_details: null, instructions: request.instructions ?? null, max_output_tokens: null,
      model: request.model || model, output, parallel_tool_calls: true, previous_response_id: null,
      reasoning: { effort: null, summary: null }, store: false, temperature: 1, text: { format: { type: 'text' } },
      tool_choice: request.tool_choice ?? 'auto', tools: request.tools ?? [], top_p: 1, truncation: 'disabled',
      usage: {
        input_tokens: usage.prompt, input_tokens_details: { cached_tokens: 0 },
        output_tokens: usage.completion, output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.prompt + usage.completion,
      },
      user: null, metadata: {},
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

  function geminiResponse(turn, mdl) {
    const parts = turn.calls
      ? turn.calls.map((c) => ({ functionCall: script.gemini_ids ? { id: c.id, name: c.name, args: c.args } : { name: c.name, args: c.args } }))
      : [{ text: turn.text }];
    return {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: usage.prompt, candidatesTokenCount: usage.completion, totalTokenCount: usage.prompt + usage.completion },
      modelVersion: mdl,
      responseId: `mockresp${n}`,
    };
  }

  function gemini(request, res, mdl, stream, path) {
    const turn = nextTurn(stream ? 'gemini.streamGenerateContent' : 'gemini.generateContent', path, request);
    const body = geminiResponse(turn, mdl);
    if (!stream) return json(res, body);
    sse(res, [`data: ${JSON.stringify(body)}\r\n\r\n`]);
  }

  // Anthropic Messages: tool_use content blocks with the script's ids.
  function anthropicMessages(request, res) {
    const turn = nextTurn('anthropic.messages', '/v1/messages', request);
    const content = turn.calls
      ? turn.calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args }))
      : [{ type: 'text', text: turn.text }];
    const message = {
      id: `msg_mock${n}`, type: 'message', role: 'assistant', model: request.model || model, content,
      stop_reason: turn.calls ? 'tool_use' : 'end_turn', stop_sequence: null,
      usage: { input_tokens: usage.prompt, output_tokens: usage.completion },
    };
    if (!request.stream) return json(res, message);
    const ev = (type, body) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
    const events = [ev('message_start', { message: { ...message, content: [], stop_reason: null, usage: { input_tokens: usage.prompt, output_tokens: 0 } } })];
    content.forEach((block, index) => {
      if (block.type === 'tool_use') {
        events.push(ev('content_block_start', { index, content_block: { ...block, input: {} } }));
        events.push(ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } }));
      } else {
        events.push(ev('content_block_start', { index, content_block: { type: 'text', text: '' } }));
        events.push(ev('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } }));
      }
      events.push(ev('content_block_stop', { index }));
    });
    events.push(ev('message_delta', { delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: usage.completion } }));
    events.push(ev('message_stop', {}));
    sse(res, events);
  }

  function handle(req, body, res) {
    const url = new URL(req.url, 'http://x');
    const p = url.pathname;
    if (req.method !== 'POST') return false;
    let request;
    try {
      request = body.length ? JSON.parse(body.toString('utf8')) : {};
    } catch {
      return false;
    }
    if (p.endsWith('/chat/completions')) { chatCompletions(request, res); return true; }
    if (p.endsWith('/responses')) { responses(request, res); return true; }
    if (p.endsWith('/messages')) { anthropicMessages(request, res); return true; }
    const g = p.match(/\/models\/([^/:]+):(generateContent|streamGenerateContent)$/);
    if (g) { gemini(request, res, g[1], g[2] === 'streamGenerateContent', p); return true; }
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
