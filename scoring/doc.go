// Package scoring scores an AI agent's tool calls against what it should have
// done. It is pure Go: no pdata, no OpenTelemetry, no I/O.
//
// A [Scorer] is built from [Settings] (an [Expectation], a pass threshold and
// scorer options) with [New], and judges a list of actual [Call] values,
// returning a [Result]: a score in [0, 1], pass or fail, a short explanation,
// a call-by-call [Breakdown] and, for peer profiles, the peer's own result
// fields in Result.Details. Scorers are immutable and safe for concurrent use.
//
// A call's arguments are a [Value] tree ([Parse] reads JSON text into one,
// [ValueOf] converts a Go value); a call whose arguments were not recorded
// sets Call.ArgsUnknown instead, and is judged by name and position only.
//
// The registered scorers are the native scorer ("native", the default) and
// one profile per peer scorer, each reproducing that peer's code exactly so
// that numbers stay comparable with what teams already track.
//
// # Native semantics
//
// Pairing is optimal, never greedy: calls to the same tool are paired by a
// maximum-weight assignment (Hungarian algorithm) in order mode "any", and by
// a weighted longest common subsequence in "in_order" and "exact". The
// pairing maximises, in this order, the number of required expected calls
// paired, the number of optional ones, and the summed call scores.
// Duplicates count as a multiset: two expected calls need two actual calls.
//
// A call's score is the share of its argument checks that pass ("partial",
// the default) or 1/0 ("all_or_nothing"). Each leaf of the literal expected
// arguments is one check, compared by typed deep equality (1 equals 1.0, key
// order is ignored, "5" differs from 5 unless CoerceStrings); each path
// matcher is one check. Keys starting with "$" in literals are plain keys
// (MongoDB queries); matchers live only in Matchers, addressed by path. The
// extra-argument policy is a key-set check at every object level of the
// expectation: "allow" ignores extra keys, "penalize" counts each as a
// failed check, "fail" scores the call 0. A call whose arguments are unknown
// (content capture off, a placeholder, truncated JSON) scores 1 on its name
// and position and is reported as arguments unavailable, never as wrong.
// MustSucceed scores a failed call 0.
//
// The run's score is the summed call scores over the number of required
// expected calls plus the optional ones that were made. Then:
//   - a call to a forbidden tool, a forbidden sequence of consecutive calls,
//     or a call to a tool outside AvailableTools (hallucinated) scores 0;
//   - unpaired actual calls follow the extra-call policy: "allow" (the
//     default) ignores them, "penalize" caps the score at ExtraCallCap
//     (MongoDB's 0.75), "fail" scores 0. The cap applies to unpaired calls,
//     so an extra call cannot hide behind an optional expectation that was
//     not met;
//   - in "in_order", an expected call whose tool was called only in a wrong
//     position is out of order: it earns nothing, and its actual call is not
//     also counted as extra. "exact" is "in_order" where extra and
//     out-of-order calls follow the extra-call policy, which defaults to
//     "fail";
//   - calls of one model turn (equal, non-zero Call.Turn) ran in parallel, so
//     their relative order is not judged, calls to one tool included: each
//     takes the expected call it matches best.
//
// The empty cases have one rule each: nothing expected and nothing called
// scores 1; nothing expected but calls made follows the extra-call policy
// (1, the cap, or 0); calls expected but none made scores 0; only optional
// calls expected and none made scores 1. A run passes when its score is at
// least the threshold.
//
// # Matchers
//
// [ParseMatcher] builds matchers from their configuration form: equals,
// one_of, type, regex (RE2), case_insensitive, normalized (the Berkeley
// Function Calling Leaderboard's string normalisation), contains, prefix,
// suffix, range, tolerance, not, any_of, all_of, array_or_single, subset_of,
// superset_of, array_ordered, array_unordered, array_contains, each, and the
// operandless any, present, absent, null and empty. The idiom for an
// optional argument is {"any_of": [{"absent": true}, m]}.
//
// # Peer profiles
//
// Each profile takes the peer's own options in snake_case, reproduces the
// peer's code (not its documentation where they differ), keeps its quirks,
// and lists them in its type's doc comment. Where the peer crashes on an
// input, the profile returns an error result instead. The profiles are
// checked against test vectors produced by the peers' own tests and by
// running their real code.
//
//	profile                 peer and function                          score            where it differs from native
//	mongodb                 mongodb-mcp-server calculateToolCallingAccuracy  0, 0.75 or 1  greedy pairing in config order; extra calls capped by comparing list lengths (an extra call hides behind an unmet optional one); extra argument keys fail by count, not by set; strict ===
//	mastra_tool_call        @mastra/evals createToolCallAccuracyScorerCode   0 or 1       names only; relaxed order uses indexOf (repeated names never match, an earlier stray call breaks order); no calls always 0
//	mastra_trajectory       @mastra/evals createTrajectoryAccuracyScorerCode 0..1, 2 dp   greedy subsequence; strict mode positional with a 0.5 penalty per extra step; data compared by JSON.stringify (key order matters); repeated-step penalty
//	mastra_trajectory_full  @mastra/evals createTrajectoryScorerCode         0..1, 2 dp   weighted accuracy, efficiency, tool failures and blacklist; nested children expectations; blacklist hard-fails
//	deepeval                DeepEval ToolCorrectnessMetric (deterministic)   0..1         greedy; identical duplicate calls collapse (expected [a, a] vs [a, a] scores 0.5); partial credit over the union of keys; ordering by weighted LCS
//	agentevals              LangChain agentevals trajectory match            0 or 1       strict/unordered/subset/superset modes; strict compares message by message; argument modes and per-tool overrides; greedy
//	adk                     Google ADK tool_trajectory_avg_score / tool_parameter_match  mean of 0/1 per invocation / share of keys  EXACT, IN_ORDER, ANY_ORDER; Python dict ==; a parameter metric that credits keys
//	ragas                   Ragas ToolCallAccuracy / ToolCallF1              0..1         the name sequence must align exactly; arguments compared as Python str(); F1 over sets (duplicates collapse), rounded to 4 places
//
// A profile maps the rule's [Expectation] onto the peer's input (expected
// calls, their literal arguments, optional calls where the peer has them,
// order onto the peer's ordering option unless that option is given) and
// rejects, naming itself, what the peer cannot express: a rule with path
// matchers cannot use deepeval, for example. Actual calls whose arguments
// are unknown make an argument-comparing profile return an error result.
//
// # What this package promises
//
// The names listed here are the package's API: calls, expectations,
// matchers, results, scorers with their constructor and registry, the judge
// protocol and JSON values. Their behaviour is the one documented here and
// on the types; a scorer's result for given calls and settings changes only
// to follow its peer's code, and release notes say so. The machinery behind
// them (the JSON parser and its flat document index, argument
// specifications, pairing, each profile's and each judge's internals) lives
// in internal packages and may change at any time.
//
// # Adding a scorer
//
// Implement [Scorer] and [Register] a [Factory] under a new name, in an init
// function: [New] then builds it, and a collector rule can name it. Slow
// scorers (LLM judges) also implement [Deferred]; callers then run them off
// their hot path with a deadline. Scorers that read the tools offered, the
// request or the response implement [ContextScorer].
package scoring // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor/scoring"
