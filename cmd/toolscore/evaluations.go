package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"text/tabwriter"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
)

// Attributes of the evaluation records (semantic conventions).
const (
	recordEvalName  = "gen_ai.evaluation.name"
	recordEvalScore = "gen_ai.evaluation.score.value"
	recordEvalLabel = "gen_ai.evaluation.score.label"
)

// evaluationRecord is one gen_ai.evaluation.result log record, as the
// evaluations connector writes it, with what the summary shows of it.
type evaluationRecord struct {
	severity, service, agent, name, score, label, trace string
}

// runEvaluations summarizes the gen_ai.evaluation.result log records in
// LOGS (the file exporter's output of the evaluations connector's logs
// pipeline): a line per agent and evaluation (or per record, with
// -records), then the count by severity.
func runEvaluations(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("evaluations", stderr)
	each := fs.Bool("records", false, "list every record instead of a line per agent and evaluation")
	spansFile := fs.String("wait-for", "", "wait until the log files hold a record for each gen_ai.evaluation.result span event of this span `file` (the connector writes them as the spans pass)")
	timeout := fs.Duration("timeout", 30*time.Second, "how long -wait-for waits")
	files, err := parseArgs(fs, args)
	if err != nil {
		return 0, err
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "toolscore evaluations: at least one log file is required")
		fs.Usage()
		return 0, errUsage
	}
	want := 0
	if *spansFile != "" {
		docs, err := otlpjson.ReadFiles(*spansFile)
		if err != nil {
			return 0, err
		}
		want = evaluationEvents(docs)
	}
	deadline := time.Now().Add(*timeout)
	var records []evaluationRecord
	for {
		records, err = readEvaluationRecords(files)
		if err != nil {
			return 0, err
		}
		if len(records) >= want {
			break
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("waited %v for %d evaluation records in %v, found %d", *timeout, want, files, len(records))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if *each {
		writeEvaluationRecords(stdout, records)
	} else {
		writeEvaluationGroups(stdout, records)
	}
	return exitOK, nil
}

// evaluationEvents counts the gen_ai.evaluation.result span events.
func evaluationEvents(docs []otlpjson.Doc) int {
	n := 0
	for _, td := range otlpjson.Traces(docs) {
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, s := range ss.Spans().All() {
					for _, e := range s.Events().All() {
						if e.Name() == eventEval {
							n++
						}
					}
				}
			}
		}
	}
	return n
}

// readEvaluationRecords reads the complete lines of the files, one
// ExportLogsServiceRequest each; a missing file has none yet.
func readEvaluationRecords(files []string) ([]evaluationRecord, error) {
	var out []evaluationRecord
	var u plog.JSONUnmarshaler
	for _, f := range files {
		data, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		data = bytes.TrimLeft(data, "\x00")
		for len(data) > 0 {
			line, rest, complete := bytes.Cut(data, []byte{'\n'})
			if !complete {
				break // still being written
			}
			data = rest
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			ld, err := u.UnmarshalLogs(line)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			out = appendEvaluationRecords(out, ld)
		}
	}
	return out, nil
}

func appendEvaluationRecords(out []evaluationRecord, ld plog.Logs) []evaluationRecord {
	for _, rl := range ld.ResourceLogs().All() {
		service := attrText(rl.Resource().Attributes().Get("service.name"))
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				if lr.EventName() != eventEval {
					continue
				}
				a := lr.Attributes()
				r := evaluationRecord{
					severity: lr.SeverityText(),
					service:  service,
					agent:    attrText(a.Get("gen_ai.agent.name")),
					name:     attrText(a.Get(recordEvalName)),
					label:    attrText(a.Get(recordEvalLabel)),
					trace:    lr.TraceID().String(),
				}
				if v, ok := a.Get(recordEvalScore); ok {
					r.score = strconv.FormatFloat(v.Double(), 'g', 4, 64)
				}
				if r.label == "" {
					r.label = attrText(a.Get("error.type"))
				}
				out = append(out, r)
			}
		}
	}
	return out
}

func attrText(v interface{ AsString() string }, ok bool) string {
	if !ok {
		return ""
	}
	return v.AsString()
}

func writeEvaluationRecords(w io.Writer, records []evaluationRecord) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SEVERITY\tSERVICE\tAGENT\tEVALUATION\tSCORE\tLABEL\tTRACE")
	for _, r := range records {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.severity, dash(r.service), dash(r.agent), r.name, dash(r.score), dash(r.label), r.trace)
	}
	tw.Flush()
	writeSeverityCounts(w, records)
}

// writeEvaluationGroups writes a line per service, agent and evaluation, in
// order of first record: the records by severity, and the trace of the
// last WARN or ERROR record (a run to look at).
func writeEvaluationGroups(w io.Writer, records []evaluationRecord) {
	type group struct {
		key              [3]string
		info, warn, errs int
		lastBad          string
	}
	var groups []*group
	index := map[[3]string]*group{}
	for _, r := range records {
		k := [3]string{r.service, r.agent, r.name}
		g := index[k]
		if g == nil {
			g = &group{key: k}
			index[k] = g
			groups = append(groups, g)
		}
		switch r.severity {
		case "WARN":
			g.warn++
			g.lastBad = r.trace
		case "ERROR":
			g.errs++
			g.lastBad = r.trace
		default:
			g.info++
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVICE\tAGENT\tEVALUATION\tINFO\tWARN\tERROR\tA TRACE TO LOOK AT")
	for _, g := range groups {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\n", dash(g.key[0]), dash(g.key[1]), g.key[2], g.info, g.warn, g.errs, dash(g.lastBad))
	}
	tw.Flush()
	writeSeverityCounts(w, records)
}

func writeSeverityCounts(w io.Writer, records []evaluationRecord) {
	bySeverity := map[string]int{}
	for _, r := range records {
		bySeverity[r.severity]++
	}
	fmt.Fprintf(w, "%d records: %d INFO (pass, not evaluated), %d WARN (fail), %d ERROR (evaluator error)\n", len(records), bySeverity["INFO"], bySeverity["WARN"], bySeverity["ERROR"])
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
