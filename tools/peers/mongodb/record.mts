// Records what mongodb-mcp-server's own calculateToolCallingAccuracy returns
// on generated cases (see ../README.md).
//
//   MONGODB_SDK=<checkout>/packages/accuracy-tests/src/sdk \
//     npx tsx tools/peers/mongodb/record.mts cases.json > out.json
//
// The scorer and Matcher are imported from MONGODB_SDK, a checkout of the
// repository outside this project; nothing of them is copied here.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const sdk = process.env.MONGODB_SDK;
if (!sdk) throw new Error("set MONGODB_SDK to packages/accuracy-tests/src/sdk of a mongodb-mcp-server checkout");
const { calculateToolCallingAccuracy } = await import(pathToFileURL(join(sdk, "accuracyScorer.ts")).href);
const { Matcher } = await import(pathToFileURL(join(sdk, "matcher.ts")).href);

// The only predicate the generator writes.
const predicates: Record<string, (v: number) => boolean> = { "(v) => v > 10": (v) => v > 10 };

// matcher builds MongoDB's Matcher from a {"$matcher": ...} encoding.
function matcher(m: any): any {
    switch (m.$matcher) {
        case "anyValue": return Matcher.anyValue;
        case "emptyObjectOrUndefined": return Matcher.emptyObjectOrUndefined;
        case "undefined": return Matcher.undefined;
        case "null": return Matcher.null;
        case "number": return m.filter ? Matcher.number(predicates[m.filter.$fn]) : Matcher.number();
        case "string": return Matcher.string();
        case "boolean": return "expected" in m ? Matcher.boolean(m.expected) : Matcher.boolean();
        case "caseInsensitiveString": return Matcher.caseInsensitiveString(m.expected);
        case "not": return Matcher.not(matcher(m.of));
        case "anyOf": return Matcher.anyOf(...m.of.map(matcher));
        case "arrayOrSingle": return Matcher.arrayOrSingle(matcher(m.of));
        case "value": return Matcher.value(params(m.expected));
    }
    throw new Error(`unknown matcher ${m.$matcher}`);
}

// params turns expected parameters into MongoDB's: matchers where the
// encoding has them, plain values elsewhere.
function params(v: any): any {
    if (Array.isArray(v)) return v.map(params);
    if (v !== null && typeof v === "object") {
        if ("$matcher" in v) return matcher(v);
        const out: Record<string, unknown> = {};
        for (const k of Object.keys(v)) out[k] = params(v[k]);
        return out;
    }
    return v;
}

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = [];
for (const c of input.cases) {
    const expected = c.expected_calls.map((e: any) => ({ toolName: e.name, parameters: params(e.args), ...(e.optional ? { optional: true } : {}) }));
    const actual = c.actual_calls.map((a: any, i: number) => ({ toolCallId: `call_${i}`, toolName: a.name, parameters: a.args }));
    const rec: any = { ...c };
    try {
        rec.score = calculateToolCallingAccuracy(expected, actual);
    } catch (e: any) {
        rec.error = String(e?.message ?? e);
    }
    out.push(rec);
}
process.stdout.write(JSON.stringify({ ...input, cases: out }) + "\n");
