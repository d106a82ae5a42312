// Command toolscore scores agent runs offline with the tool_call_accuracy
// processor, reports the scores a collector attached, and replays traces
// over OTLP.
//
//	toolscore score  -config FILE [-processor ID] [-format table|json] [-calls] [-primary-only] [-fail-not-evaluated] TRACES...
//	toolscore report [-config FILE [-processor ID]] [-format table|json] [-calls] [-primary-only] [-fail-not-evaluated] [-wait-spans N] [-timeout D] SPANS...
//	toolscore inspect [-config FILE [-processor ID]] TRACES...
//	toolscore send   [-endpoint URL] [-protocol http|grpc] TRACES...
//	toolscore judge-standin [-listen ADDR] [-delay D] [-addr-file FILE]
//	toolscore evaluations [-records] [-wait-for SPANS] [-timeout D] LOGS...
//	toolscore load   [-endpoint URL] [-protocol http|grpc] [-rate N] [-duration D] [-spans N] [-genai-share F] [-split] [-hold N] TRACES...
//
// score runs the traces through the processor itself (created with
// toolcallaccuracyprocessor.NewFactory, exactly as the collector creates it)
// and reports the tool_call_accuracy.* attributes it wrote on the agent
// spans. report reads spans a collector already annotated (the file
// exporter's output). Trace files are OTLP JSON: one ExportTraceServiceRequest
// per line (the file exporter's framing) or a single document.
//
// Exit codes of score and report: 0 every evaluation passed and every
// configured rule scored at least one run; 1 an evaluation of any of a rule's
// scorers failed or errored (-primary-only: of its first scorer), a rule (or
// one of its scorers) selected no run or evaluated none of its runs, or no
// run was scored (-fail-not-evaluated: also any result not evaluated); 2
// usage, configuration or input errors. send exits 0 when every request was
// accepted, 2 otherwise.
//
// load is a load generator: it replays the runs of TRACES under fresh ids,
// mixed with ordinary HTTP spans, at a set rate, and reports what the
// receiver accepted. It exits 0 when every span was accepted, 1 when a
// request failed or spans were rejected, 2 on usage or input errors.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailed  = 1
	exitFailure = 2
)

const usage = `toolscore scores GenAI agent runs with the tool_call_accuracy processor.

Usage:
  toolscore score  -config FILE [-processor ID] [-format table|json] [-calls]
                   [-primary-only] [-fail-not-evaluated] TRACES...
      Run the traces through the processor (the collector's code) offline and
      report the scores. FILE is a collector config (the processor is taken
      from processors: tool_call_accuracy[/name]), a file of processor
      sections keyed by id, or a bare processor config; repeat -config to
      merge files as the collector does. ${env:VAR:-default} references
      resolve. -out FILE also writes the annotated spans. -calls lists each
      run's tool calls (arguments, result, failure) after the table; the
      JSON report always has them. Rules with a judge run it as the collector
      does; -no-judges skips judge scorers, -judge-endpoint URL sends their
      requests elsewhere (a stand-in, a local model). Every scorer of a rule
      gates (-primary-only: its first only); a run not evaluated does not,
      unless -fail-not-evaluated, but a rule that evaluated none of its runs
      does.
  toolscore report [-config FILE [-processor ID]] [-format table|json] [-calls]
                   [-primary-only] [-fail-not-evaluated] [-wait-spans N] [-timeout D] SPANS...
      Report the scores a collector attached to the spans in SPANS (the file
      exporter's output). With -config, rules that scored no run fail the
      report. With -wait-spans, wait until the files hold N spans.
  toolscore inspect [-config FILE [-processor ID]] TRACES...
      Say, per service, what the processor understands of the traces (runs,
      calls, their witnesses, whether content is captured) and list what
      looks like a tool call but was not read, each with the reason and the
      setting or rule that would read it. -config takes the processor's
      settings (skip_tools, local_roots) from FILE; its rules are not used.
      Exits 1 when something is left unexplained.

  toolscore send   [-endpoint URL] [-protocol http|grpc] [-timeout D] TRACES...
      Send every ExportTraceServiceRequest of the files over OTLP; prints the
      number of spans sent.
  toolscore load   [-endpoint URL] [-protocol http|grpc] [-rate N] [-duration D] [-spans N]
                   [-batch N] [-workers N] [-genai-share F] [-split] [-hold N [-drop-held]]
                   [-format text|json] TRACES...
      Load generator: replay each trace of the files as a GenAI run under
      fresh trace and span ids, mixed with ordinary HTTP server spans (each
      its own trace) so that a share F of the spans (default 0.1) are GenAI,
      at N spans per second (-rate, default 1000; 0 as fast as the receiver
      answers), in requests of -batch spans (default 100) from -workers
      concurrent senders (default 4), until -duration (default 10s) or -spans
      is reached. A run's spans go in one request unless -split sends them in
      separate ones, interleaved with other runs', its agent span last, once
      the requests with its other spans were answered. -hold N keeps the
      agent spans of the first N runs back until the end (never sent with
      -drop-held), so that those runs stay open in the collector. Reports
      spans sent and accepted, requests, errors, elapsed time and the rate
      achieved; exits 1 when a request failed or spans were rejected.

  toolscore evaluations [-records] [-wait-for SPANS] [-timeout D] LOGS...
      Summarize the gen_ai.evaluation.result log records the evaluations
      connector wrote (the file exporter's output of its logs pipeline): a
      line per agent and evaluation (-records: per record), then the count
      by severity. -wait-for waits until there is a record for each
      evaluation span event of the SPANS file.

  toolscore judge-standin [-listen ADDR] [-delay D] [-addr-file FILE]
      Serve a stand-in LLM judge on loopback (chat completions; prints its
      endpoint): deterministic answers in every judge profile's format, a run
      judged wrong when its request mentions an error. For demos and tests,
      not a judge.

Trace files are OTLP JSON: one ExportTraceServiceRequest per line (the file
exporter's framing) or one document.

Exit codes (score, report): 0 all evaluations passed and every rule scored a
run; 1 an evaluation of a gating scorer failed or errored, a rule or scorer
selected no run or evaluated none of its runs, or no run was scored; 2
usage, configuration or input error.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command and returns its exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitFailure
	}
	var err error
	code := exitOK
	switch args[0] {
	case "score":
		code, err = runScore(args[1:], stdout, stderr)
	case "report":
		code, err = runReport(args[1:], stdout, stderr)
	case "send":
		code, err = runSend(args[1:], stdout, stderr)
	case "judge-standin":
		code, err = runStandin(args[1:], stdout, stderr)
	case "load":
		code, err = runLoad(args[1:], stdout, stderr)
	case "evaluations":
		code, err = runEvaluations(args[1:], stdout, stderr)
	case "inspect":
		code, err = runInspect(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "toolscore: unknown command %q\n\n%s", args[0], usage)
		return exitFailure
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		if !errors.Is(err, errUsage) {
			fmt.Fprintf(stderr, "toolscore %s: %v\n", args[0], err)
		}
		return exitFailure
	}
	return code
}

// errUsage is returned after the flag package has printed the problem.
var errUsage = errors.New("usage")
