package main

import (
	"bytes"
	"context"
	"fmt"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

func runSend(args []string, stdout, stderr io.Writer) (int, error) {
	fs := newFlagSet("send", stderr)
	endpoint := fs.String("endpoint", "", "OTLP endpoint: a URL for http (default http://127.0.0.1:4318), host:port for grpc (default 127.0.0.1:4317)")
	protocol := fs.String("protocol", "http", "`protocol`: http (OTLP/HTTP protobuf) or grpc")
	timeout := fs.Duration("timeout", 10*time.Second, "timeout of each request")
	files, err := parseArgs(fs, args)
	if err != nil {
		return 0, err
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "toolscore send: at least one trace file is required")
		fs.Usage()
		return 0, errUsage
	}
	docs, err := otlpjson.ReadFiles(files...)
	if err != nil {
		return 0, err
	}
	exp, err := newExporter(*protocol, *endpoint, *timeout)
	if err != nil {
		return 0, err
	}
	defer exp.close()
	spans := 0
	for _, d := range docs {
		req := ptraceotlp.NewExportRequestFromTraces(d.Traces)
		if err := exp.export(context.Background(), req); err != nil {
			return 0, fmt.Errorf("%s:%d: %w", d.Path, d.Line, err)
		}
		spans += d.Traces.SpanCount()
	}
	fmt.Fprintf(stderr, "toolscore send: sent %s in %s to %s\n", plural(spans, "span"), plural(len(docs), "request"), exp.target())
	fmt.Fprintln(stdout, spans)
	return exitOK, nil
}

// exporter sends one ExportTraceServiceRequest.
type exporter interface {
	export(ctx context.Context, req ptraceotlp.ExportRequest) error
	target() string
	close()
}

type httpExporter struct {
	url    string
	client *http.Client
}

func newHTTPExporter(endpoint string, timeout time.Duration) (*httpExporter, error) {
	if endpoint == "" {
		endpoint = "http://127.0.0.1:4318"
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("-endpoint %q: expected a URL such as http://127.0.0.1:4318", endpoint)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return &httpExporter{url: u.String(), client: &http.Client{Timeout: timeout}}, nil
}

func (e *httpExporter) export(ctx context.Context, req ptraceotlp.ExportRequest) error {
	body, err := req.MarshalProto()
	if err != nil {
		return err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	hreq.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := e.client.Do(hreq)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s: %s", e.url, resp.Status, strings.TrimSpace(string(data)))
	}
	out := ptraceotlp.NewExportResponse()
	if err := out.UnmarshalProto(data); err != nil {
		return fmt.Errorf("POST %s: reading the response: %w", e.url, err)
	}
	return partialSuccessError(out)
}

func (e *httpExporter) target() string { return e.url }
func (e *httpExporter) close()         {}

type grpcExporter struct {
	endpoint string
	timeout  time.Duration
	conn     *grpc.ClientConn
	client   ptraceotlp.GRPCClient
}

func newGRPCExporter(endpoint string, timeout time.Duration) (*grpcExporter, error) {
	if endpoint == "" {
		endpoint = "127.0.0.1:4317"
	}
	endpoint = strings.TrimPrefix(endpoint, "http://")
	conn, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("-endpoint %q: %w", endpoint, err)
	}
	return &grpcExporter{endpoint: endpoint, timeout: timeout, conn: conn, client: ptraceotlp.NewGRPCClient(conn)}, nil
}

func (e *grpcExporter) export(ctx context.Context, req ptraceotlp.ExportRequest) error {
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	resp, err := e.client.Export(ctx, req)
	if err != nil {
		return fmt.Errorf("gRPC export to %s: %w", e.endpoint, err)
	}
	return partialSuccessError(resp)
}

func (e *grpcExporter) target() string { return "grpc://" + e.endpoint }
func (e *grpcExporter) close()         { _ = e.conn.Close() }

func partialSuccessError(resp ptraceotlp.ExportResponse) error {
	ps := resp.PartialSuccess()
	if ps.RejectedSpans() > 0 {
		return &rejectedError{spans: ps.RejectedSpans(), message: ps.ErrorMessage()}
	}
	return nil
}

// rejectedError is a partial success: the request was answered, but the
// collector dropped some of its spans. The load generator counts them.
type rejectedError struct {
	spans   int64
	message string
}

func (e *rejectedError) Error() string {
	return fmt.Sprintf("the collector rejected %d spans: %s", e.spans, e.message)
}

// newExporter returns the OTLP exporter for -protocol (http or grpc).
func newExporter(protocol, endpoint string, timeout time.Duration) (exporter, error) {
	switch protocol {
	case "http":
		return newHTTPExporter(endpoint, timeout)
	case "grpc":
		return newGRPCExporter(endpoint, timeout)
	}
	return nil, fmt.Errorf("-protocol %q: expected http or grpc", protocol)
}
