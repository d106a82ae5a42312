package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"context"

	"go.opentelemetry.io/collector/component"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/judgeclient"
	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/toolcall"
)

// newJudgeClient makes a rule's chat-completions client, with the host's
// extensions (authenticators) and the collector's telemetry.
func newJudgeClient(ctx context.Context, cfg *JudgeConfig, host component.Host, set component.TelemetrySettings) (toolcall.Completer, error) {
	return judgeclient.NewClientFromHost(ctx, &cfg.client, host, set)
}
