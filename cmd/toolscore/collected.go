package main

import (
	"errors"
	"fmt"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/extract"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"
)

func runReport(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("report", stderr)
	var configFiles configFlags
	fs.Var(&configFiles, "config", "collector or processor configuration `file` (repeatable); rules that scored no run then fail the report")
	id := fs.String("processor", "", "processor `id` to use when the file configures several")
	format := fs.String("format", "table", "output `format`: table or json")
	calls := fs.Bool("calls", false, "list each run's tool calls (arguments, result, failure) after the table")
	waitSpans := fs.Int("wait-spans", 0, "wait until the files hold at least `n` spans (the collector flushes asynchronously)")
	timeout := fs.Duration("timeout", 30*time.Second, "how long -wait-spans waits")
	gate := gateFlags(fs)
	files, err := parseArgs(fs, args)
	if err != nil {
		return 0, err
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "toolscore report: at least one span file is required")
		fs.Usage()
		return 0, errUsage
	}
	if err := checkFormat(*format); err != nil {
		return 0, err
	}
	var rules, monitoring []string
	skipTools := extract.DefaultSkipTools()
	if len(configFiles) > 0 {
		_, cfg, err := loadProcessorConfig(configFiles, *id)
		if err != nil {
			return 0, err
		}
		for _, r := range cfg.Rules {
			rules = append(rules, r.Name)
		}
		skipTools = cfg.SkipTools
		monitoring = monitoringOnly(cfg.Rules)
	}
	var docs []otlpjson.Doc
	if *waitSpans > 0 {
		docs, err = waitForSpans(files, *waitSpans, *timeout)
	} else {
		docs, err = otlpjson.ReadFiles(files...)
	}
	if err != nil {
		return 0, err
	}
	rep := buildReport(mergeDocs(docs), rules, skipTools)
	if monitoring != nil {
		rep.MonitoringOnly = monitoring
	}
	rep.setGate(*gate)
	if err := rep.write(stdout, *format, *calls); err != nil {
		return 0, err
	}
	return rep.exitCode(), nil
}

// waitForSpans polls the files until they hold at least want spans, then
// returns their documents. Missing files and a half-written last line are
// expected while the exporter writes; anything else is an error.
func waitForSpans(files []string, want int, timeout time.Duration) ([]otlpjson.Doc, error) {
	deadline := time.Now().Add(timeout)
	for {
		docs, complete, err := readGrowingFiles(files)
		if err != nil {
			return nil, err
		}
		got := otlpjson.SpanCount(docs)
		if got >= want && complete {
			return docs, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("waited %v for %d spans in %s, found %d", timeout, want, strings.Join(files, ", "), got)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// readGrowingFiles reads files an exporter may still be writing; complete is
// false when a file is missing or ends in a partial document.
func readGrowingFiles(files []string) (docs []otlpjson.Doc, complete bool, err error) {
	complete = true
	for _, p := range files {
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			complete = false
			continue
		}
		if err != nil {
			return nil, false, err
		}
		d, err := otlpjson.Parse(p, data, true)
		if errors.Is(err, otlpjson.ErrIncomplete) {
			complete = false
		} else if err != nil {
			return nil, false, err
		}
		docs = append(docs, d...)
	}
	return docs, complete, nil
}
