// Seeded random cases for the differential harness (see README.md).
//
//   node tools/peers/gen.mjs <peer> <seed> <count>   # peer: mongodb | mastra | deepeval
//
// writes {generator, generator_version, seed, peer, cases: [...]} as JSON on
// stdout. The same seed and count always give the same cases. The cases are
// in the neutral vector schema of shared/reference/peer-scorers.md §0 (the
// peer's own option names; {"$matcher": ...} objects for MongoDB's
// matchers), plus what a trace carries beside the calls:
//
//   actual_calls[i].failed       the tool span recorded an error
//   actual_calls[i].duration_ms  the tool span's duration
//   tools                        tool definitions {name, description?, parameters}
//   tools_where                  "recorded" (on the spans) or "configured" (in the rule)
//   convention                   "genai" (OTel GenAI) or "adk" (Google ADK), the instrumentation
//
// Nothing here is peer code: the drivers next to this file turn a case into
// each peer's own input and record what the peer's real code returns.

export const GENERATOR_VERSION = 1;

// sfc32, seeded through splitmix32: small, fast and the same everywhere.
export function rng(seed) {
  let s = seed >>> 0;
  const split = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x21f0aaad) >>> 0;
    z = Math.imul(z ^ (z >>> 15), 0x735a2d97) >>> 0;
    return (z ^ (z >>> 15)) >>> 0;
  };
  let a = split(), b = split(), c = split(), d = split();
  const next = () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
  const r = {
    float: next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p) => next() < p,
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    shuffle: (xs) => {
      const out = xs.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    },
  };
  return r;
}

const clone = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// ---------------------------------------------------------------------------
// Values. Numbers are integers or non-integral decimals (JSON cannot tell 2
// from 2.0, and Python would read them differently).

const STRINGS = ['Paris', 'paris', 'PARIS', 'London', 'celsius', 'fahrenheit', '5', '', 'ZZZZ', 'it\'s', 'a"b', 'Zürich', 'x\ny', 'db1', 'movies'];
const INTS = [0, 1, 2, 3, 5, 7, 10, 11, 42, 100, -1];
const FLOATS = [0.5, 2.5, 0.1, -1.25, 10.5, 99.9];
const KEYS = ['city', 'unit', 'days', 'query', 'limit', 'filter', 'options', 'tags', 'id', 'lang'];

function scalar(r) {
  switch (r.int(0, 9)) {
    case 0: case 1: case 2: case 3: return r.pick(STRINGS);
    case 4: case 5: return r.pick(INTS);
    case 6: return r.pick(FLOATS);
    case 7: return r.chance(0.5);
    case 8: return null;
    default: return r.pick(STRINGS);
  }
}

function value(r, depth) {
  const k = depth <= 0 ? 0 : r.int(0, 9);
  if (k <= 6) return scalar(r);
  if (k === 7) return object(r, depth - 1, 0, 3);
  if (k === 8) {
    const n = r.int(0, 3);
    const out = [];
    for (let i = 0; i < n; i++) out.push(r.chance(0.8) ? scalar(r) : object(r, depth - 1, 0, 2));
    return out;
  }
  return r.chance(0.5) ? {} : [];
}

function object(r, depth, lo, hi, keys = KEYS) {
  const n = r.int(lo, hi);
  const out = {};
  for (const k of r.shuffle(keys).slice(0, n)) out[k] = value(r, depth);
  return out;
}

// otherScalar returns a scalar different from v (maybe of another type).
function otherScalar(r, v) {
  if (typeof v === 'number' && r.chance(0.3)) return String(v);
  if (typeof v === 'string' && /^\d+$/.test(v) && r.chance(0.5)) return Number(v);
  if (v === 1 && r.chance(0.5)) return true;
  if (v === true && r.chance(0.5)) return 1;
  for (let i = 0; i < 10; i++) {
    const w = scalar(r);
    if (JSON.stringify(w) !== JSON.stringify(v)) return w;
  }
  return 'other';
}

function reorder(r, v) {
  if (Array.isArray(v)) return v.map((x) => reorder(r, x));
  if (!isObj(v)) return v;
  const out = {};
  for (const k of r.shuffle(Object.keys(v))) out[k] = reorder(r, v[k]);
  return out;
}

// mutate returns arguments like args, changed the way a model gets them
// wrong: a key dropped or added, a value changed (nested too), keys
// reordered; or unchanged.
export function mutate(r, args) {
  let out = clone(args);
  if (!isObj(out)) return out;
  const keys = Object.keys(out);
  switch (r.int(0, 9)) {
    case 0: case 1: case 2: case 3: break; // the same
    case 4: out = reorder(r, out); break;
    case 5: if (keys.length) delete out[r.pick(keys)]; break;
    case 6: {
      const k = r.pick(KEYS);
      if (!(k in out)) out[k] = scalar(r);
      break;
    }
    case 7: if (keys.length) { const k = r.pick(keys); out[k] = isObj(out[k]) ? mutate(r, out[k]) : otherScalar(r, out[k]); } break;
    case 8: out = reorder(r, mutate(r, out)); break;
    default: if (keys.length) { const k = r.pick(keys); if (isObj(out[k])) out[k] = reorder(r, mutate(r, out[k])); else out[k] = otherScalar(r, out[k]); }
  }
  return out;
}

// actualFrom derives the calls made from the expected ones: most made
// (arguments maybe mutated), some missing, duplicated, extra calls,
// reordered.
function actualFrom(r, expected, names, makeArgs) {
  let out = [];
  for (const e of expected) {
    if (r.chance(0.8)) out.push({ name: e.name, args: e.args === undefined || e.args === null ? makeArgs(e.name) : mutate(r, e.args) });
    if (r.chance(0.1)) out.push({ name: e.name, args: e.args === undefined || e.args === null ? makeArgs(e.name) : mutate(r, e.args) });
  }
  while (r.chance(0.25)) {
    const name = r.pick(names);
    out.splice(r.int(0, out.length), 0, { name, args: makeArgs(name) });
  }
  if (r.chance(0.3)) out = r.shuffle(out);
  else if (out.length > 1 && r.chance(0.2)) {
    const i = r.int(0, out.length - 2);
    [out[i], out[i + 1]] = [out[i + 1], out[i]];
  }
  if (r.chance(0.05)) out = [];
  return out.slice(0, 6);
}

// Tools, with the parameters a model must give. Tools without required
// parameters are the ones called with "{}".
const TOOLS = {
  get_weather: { required: ['city'], description: 'Get the weather for a city' },
  lookup_stock: { required: ['symbol'], description: 'Look up a stock price' },
  get_time: { required: [], description: 'Get the current time' },
  search: { required: ['query'], description: '' },
  whoami: { required: [], description: undefined },
};
const MONGO_TOOLS = {
  find: { required: ['database', 'collection'] },
  aggregate: { required: ['database', 'collection', 'pipeline'] },
  count: { required: ['database', 'collection'] },
  'list-databases': { required: [] },
  'list-collections': { required: ['database'] },
};

function toolDefs(r, table) {
  const names = Object.keys(table);
  return names.map((name) => {
    const t = table[name];
    const properties = {};
    for (const p of t.required) properties[p] = {};
    if (r.chance(0.5)) properties.extra = { type: 'string' };
    const def = { name, parameters: { type: 'object', properties } };
    if (t.required.length) def.parameters.required = t.required;
    if (t.description !== undefined) def.description = t.description;
    return def;
  });
}

function withDefinitions(r, c, table) {
  c.convention = conventionOf(r);
  const k = r.int(0, 2);
  if (k === 0) return c;
  c.tools = toolDefs(r, table);
  c.tools_where = k === 1 ? 'recorded' : 'configured';
  return c;
}

// conventionOf picks the instrumentation convention the calls were
// recorded in: OTel GenAI (which omits arguments it does not capture) or
// Google ADK (which writes "{}" for them).
function conventionOf(r) {
  return r.chance(0.7) ? 'genai' : 'adk';
}

// argsFor makes the arguments of a call to a tool: its required parameters
// and maybe a few more; "{}" for tools without required parameters.
function argsFor(r, table, name) {
  const req = table[name]?.required ?? [];
  if (req.length === 0) return r.chance(0.8) ? {} : object(r, 1, 1, 2);
  const out = {};
  for (const p of req) out[p] = value(r, 1);
  if (r.chance(0.4)) Object.assign(out, object(r, 1, 1, 2));
  return out;
}

// ---------------------------------------------------------------------------
// MongoDB: calculateToolCallingAccuracy with Matcher expectations.

const MONGO_KEYS = ['database', 'collection', 'filter', 'limit', 'projection', 'pipeline', 'sort', 'query'];

function mongoArgs(r, name) {
  const req = MONGO_TOOLS[name].required;
  if (req.length === 0) return r.chance(0.85) ? {} : object(r, 1, 1, 2, MONGO_KEYS);
  const out = {};
  for (const p of req) {
    if (p === 'pipeline') out[p] = [object(r, 1, 1, 2, ['$match', '$sort', '$limit'])];
    else out[p] = r.pick(['mflix', 'movies', 'comics', 'db1', 'users']);
  }
  if (r.chance(0.6)) Object.assign(out, object(r, 2, 1, 2, ['filter', 'limit', 'projection', 'sort']));
  return out;
}

// nonNullScalar returns v when it is a string, number or boolean, else one
// such value: Matcher.value of one is what a configuration's equals
// matcher expresses (a null or object operand follows MongoDB's
// ValueMatcher rules, which no matcher form writes).
function nonNullScalar(r, v) {
  if (v !== null && typeof v !== 'object') return v;
  for (;;) {
    const w = scalar(r);
    if (w !== null) return w;
  }
}

// A matcher standing for an actual value v (satisfied by it or not).
function mongoMatcherFor(r, v) {
  switch (r.int(0, 12)) {
    case 0: return { $matcher: 'anyValue' };
    case 1: return { $matcher: 'number' };
    case 2: return { $matcher: 'number', filter: { $fn: '(v) => v > 10' } };
    case 3: return { $matcher: 'string' };
    case 4: return r.chance(0.5) ? { $matcher: 'boolean' } : { $matcher: 'boolean', expected: r.chance(0.5) };
    case 5: return { $matcher: 'caseInsensitiveString', expected: typeof v === 'string' ? (r.chance(0.5) ? v.toUpperCase() : v.toLowerCase()) : 'Paris' };
    case 6: return { $matcher: 'not', of: { $matcher: 'value', expected: nonNullScalar(r, r.chance(0.5) ? v : scalar(r)) } };
    case 7: return { $matcher: 'anyOf', of: [{ $matcher: 'undefined' }, { $matcher: 'string' }] };
    case 8: return { $matcher: 'anyOf', of: [{ $matcher: 'number' }, { $matcher: 'null' }] };
    case 9: return { $matcher: 'null' };
    case 10: return { $matcher: 'emptyObjectOrUndefined' };
    case 11: return { $matcher: 'arrayOrSingle', of: { $matcher: 'value', expected: nonNullScalar(r, Array.isArray(v) ? v[0] : v) } };
    default: return { $matcher: 'undefined' };
  }
}

// Expected parameters for MongoDB: the actual ones, with some values
// replaced by matchers and keys forbidden (Matcher.undefined).
function mongoExpectedArgs(r, args) {
  if (!isObj(args)) return args;
  const k = r.int(0, 19);
  if (k === 0) return { $matcher: 'anyValue' };
  if (k === 1) return { $matcher: 'emptyObjectOrUndefined' };
  const out = {};
  for (const key of Object.keys(args)) {
    const v = args[key];
    if (r.chance(0.25)) out[key] = mongoMatcherFor(r, v);
    else if (isObj(v) && r.chance(0.3)) out[key] = mongoExpectedArgs(r, v);
    else out[key] = clone(v);
  }
  if (r.chance(0.1)) out[r.pick(['limit', 'projection', 'sort'])] = { $matcher: 'undefined' };
  if (r.chance(0.1)) out.limit = { $matcher: 'anyOf', of: [{ $matcher: 'undefined' }, { $matcher: 'number' }] };
  return out;
}

function genMongo(r, i) {
  const names = Object.keys(MONGO_TOOLS);
  const n = r.int(0, 4);
  const made = [];
  for (let j = 0; j < n; j++) {
    const name = r.pick(names);
    made.push({ name, args: mongoArgs(r, name) });
  }
  const expected = made.map((c) => {
    const e = { name: c.name, args: r.chance(0.6) ? mongoExpectedArgs(r, c.args) : clone(c.args) };
    if (r.chance(0.2)) e.optional = true;
    return e;
  });
  const actual = actualFrom(r, made, names, (name) => mongoArgs(r, name));
  return withDefinitions(r, {
    id: `mongodb/diff/${String(i).padStart(5, '0')}`,
    peer: 'mongodb-mcp-server',
    algorithm: 'calculateToolCallingAccuracy',
    options: {},
    expected_calls: expected,
    actual_calls: actual.map((c) => ({ name: c.name, args: c.args })),
  }, MONGO_TOOLS);
}

// ---------------------------------------------------------------------------
// Mastra: the code tool-call, trajectory and full-trajectory scorers.

const NAMES = Object.keys(TOOLS);

function mastraToolCall(r, i) {
  const options = {};
  const order = [];
  const k = r.int(0, 2);
  if (k !== 1) options.expectedTool = r.pick(NAMES);
  if (k !== 0) {
    const n = r.int(0, 4);
    for (let j = 0; j < n; j++) order.push(r.pick(NAMES));
    options.expectedToolOrder = order;
  }
  if (r.chance(0.5)) options.strictMode = r.chance(0.5);
  const base = order.length ? order.map((name) => ({ name })) : options.expectedTool ? [{ name: options.expectedTool }] : [];
  const actual = actualFrom(r, base, NAMES, () => ({})).map((c) => {
    const a = { name: c.name, args: argsFor(r, TOOLS, c.name) };
    if (r.chance(0.15)) a.failed = true;
    return a;
  });
  return { id: `mastra/tool_call/${String(i).padStart(5, '0')}`, peer: 'mastra', algorithm: 'createToolCallAccuracyScorerCode', options, actual_calls: actual, convention: conventionOf(r) };
}

function stepResult(r) {
  return r.pick([{ temp: 21 }, { price: 10.5, symbol: 'ZZZZ' }, 'ok', 42, ['a', 'b'], { error: 'not found' }]);
}

// A Mastra expected step for an actual call: name, maybe stepType, maybe
// data (toolArgs, toolResult, success) written in a key order of its own.
function expectedStep(r, c) {
  const e = { name: c.name };
  if (r.chance(0.7)) {
    e.stepType = c.mcp ? 'mcp_tool_call' : 'tool_call';
    if (r.chance(0.1)) e.stepType = c.mcp ? 'tool_call' : 'mcp_tool_call';
    if (r.chance(0.6)) e.toolArgs = r.chance(0.5) ? reorder(r, c.args) : mutate(r, c.args);
    if (r.chance(0.2) && c.result !== undefined) e.toolResult = r.chance(0.7) ? clone(c.result) : stepResult(r);
    if (r.chance(0.2)) e.success = r.chance(0.8);
  }
  return e;
}

function mastraActual(r, names) {
  const n = r.int(0, 5);
  const out = [];
  for (let j = 0; j < n; j++) {
    const name = r.pick(names);
    const c = { name, args: argsFor(r, TOOLS, name), duration_ms: r.int(1, 400) };
    if (r.chance(0.6)) c.output = stepResult(r);
    if (r.chance(0.15)) c.failed = true;
    if (r.chance(0.1)) c.mcp = true;
    // A retry: the same call again after a failure.
    if (c.failed && r.chance(0.6)) {
      out.push(c);
      const again = clone(c);
      again.failed = r.chance(0.4);
      out.push(again);
      continue;
    }
    out.push(c);
  }
  return out;
}

function expectedSteps(r, actual) {
  const steps = [];
  for (const c of actual) {
    if (r.chance(0.75)) steps.push(expectedStep(r, { ...c, result: c.output }));
  }
  while (r.chance(0.25)) steps.splice(r.int(0, steps.length), 0, { name: r.pick(NAMES), ...(r.chance(0.5) ? { stepType: 'tool_call' } : {}) });
  if (r.chance(0.25)) return r.shuffle(steps);
  return steps;
}

const ORDERINGS = ['relaxed', 'strict', 'unordered'];

function mastraTrajectory(r, i) {
  const actual = mastraActual(r, NAMES);
  const options = {};
  const steps = expectedSteps(r, actual);
  if (r.chance(0.9)) options.expectedTrajectory = r.chance(0.2) ? { steps: steps.map((s) => ({ stepType: 'tool_call', ...s })) } : steps;
  if (r.chance(0.8)) {
    options.comparisonOptions = {};
    if (r.chance(0.8)) options.comparisonOptions.ordering = r.pick(ORDERINGS);
    if (r.chance(0.5)) options.comparisonOptions.allowRepeatedSteps = r.chance(0.5);
  }
  return { id: `mastra/trajectory/${String(i).padStart(5, '0')}`, peer: 'mastra', algorithm: 'createTrajectoryAccuracyScorerCode', options, actual_calls: actual, convention: conventionOf(r) };
}

function mastraTrajectoryFull(r, i) {
  const actual = mastraActual(r, NAMES);
  const defaults = {};
  if (r.chance(0.8)) defaults.steps = expectedSteps(r, actual);
  if (r.chance(0.4)) defaults.ordering = r.pick(ORDERINGS);
  if (r.chance(0.3)) defaults.allowRepeatedSteps = r.chance(0.5);
  if (r.chance(0.3)) defaults.maxSteps = r.int(1, 5);
  if (r.chance(0.2)) defaults.maxTotalDurationMs = r.int(50, 1200);
  if (r.chance(0.3)) defaults.noRedundantCalls = r.chance(0.6);
  if (r.chance(0.2)) defaults.blacklistedTools = [r.pick(NAMES)];
  if (r.chance(0.15)) defaults.blacklistedSequences = [[r.pick(NAMES), r.pick(NAMES)]];
  if (r.chance(0.3)) defaults.maxRetriesPerTool = r.int(0, 2);
  if (r.chance(0.05)) defaults.maxTotalTokens = r.int(10, 1000);
  const options = {};
  if (Object.keys(defaults).length || r.chance(0.5)) options.defaults = defaults;
  if (r.chance(0.3)) {
    options.weights = {};
    for (const w of ['accuracy', 'efficiency', 'toolFailures', 'blacklist']) if (r.chance(0.5)) options.weights[w] = r.pick([0, 0.1, 0.25, 0.5, 1]);
  }
  return { id: `mastra/trajectory_full/${String(i).padStart(5, '0')}`, peer: 'mastra', algorithm: 'createTrajectoryScorerCode', options, actual_calls: actual, convention: conventionOf(r) };
}

function genMastra(r, i) {
  switch (i % 3) {
    case 0: return mastraToolCall(r, i);
    case 1: return mastraTrajectory(r, i);
  }
  return mastraTrajectoryFull(r, i);
}

// ---------------------------------------------------------------------------
// DeepEval: ToolCorrectnessMetric (deterministic).

function genDeepEval(r, i) {
  const options = {};
  if (r.chance(0.5)) options.threshold = r.pick([0, 0.25, 0.5, 0.6, 0.75, 1]);
  if (r.chance(0.2)) options.strict_mode = r.chance(0.5);
  if (r.chance(0.3)) options.should_exact_match = r.chance(0.5);
  if (r.chance(0.4)) options.should_consider_ordering = r.chance(0.7);
  if (r.chance(0.6)) {
    const p = [];
    if (r.chance(0.8)) p.push('input_parameters');
    if (r.chance(0.3)) p.push('output');
    options.evaluation_params = r.shuffle(p);
  }
  if (r.chance(0.2)) options.include_reason = r.chance(0.5);
  const n = r.int(0, 4);
  const made = [];
  for (let j = 0; j < n; j++) {
    const name = r.pick(NAMES);
    const c = { name, args: argsFor(r, TOOLS, name) };
    if (r.chance(0.4)) c.output = stepResult(r);
    if (r.chance(0.1)) c.type = 'MCP';
    made.push(c);
  }
  const expected = made.map((c) => {
    const e = { name: c.name };
    if (r.chance(0.95)) e.args = r.chance(0.3) ? mutate(r, c.args) : clone(c.args);
    if (c.output !== undefined && r.chance(0.8)) e.output = r.chance(0.8) ? clone(c.output) : stepResult(r);
    if (c.type) e.type = r.chance(0.8) ? c.type : 'FUNCTION';
    return e;
  });
  const actual = actualFrom(r, made, NAMES, (name) => argsFor(r, TOOLS, name)).map((c) => {
    const m = made.find((x) => x.name === c.name);
    const a = { name: c.name, args: c.args };
    if (m?.output !== undefined && r.chance(0.85)) a.output = r.chance(0.85) ? clone(m.output) : stepResult(r);
    else if (r.chance(0.2)) a.output = stepResult(r);
    if (m?.type && r.chance(0.8)) a.type = m.type;
    else if (r.chance(0.05)) a.type = 'MCP';
    return a;
  });
  return withDefinitions(r, {
    id: `deepeval/diff/${String(i).padStart(5, '0')}`,
    peer: 'deepeval',
    algorithm: 'ToolCorrectnessMetric',
    options,
    input: 'What is the weather in Paris, and the price of ZZZZ?',
    expected_calls: expected,
    actual_calls: actual,
  }, TOOLS);
}

// ---------------------------------------------------------------------------

const GENERATORS = { mongodb: genMongo, mastra: genMastra, deepeval: genDeepEval };

export function generate(peer, seed, count) {
  const g = GENERATORS[peer];
  if (!g) throw new Error(`unknown peer ${peer}: mongodb, mastra or deepeval`);
  const r = rng(seed);
  const cases = [];
  for (let i = 0; i < count; i++) cases.push(g(r, i));
  return { generator: 'tools/peers/gen.mjs', generator_version: GENERATOR_VERSION, seed, peer, cases };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [peer, seed, count] = process.argv.slice(2);
  process.stdout.write(JSON.stringify(generate(peer, Number(seed), Number(count))) + '\n');
}
