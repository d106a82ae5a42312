package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"context"
	"errors"

	"go.opentelemetry.io/collector/component"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/scoring"
)

// newJudgeClient makes a rule's judge client. Placeholder until the
// chat-completions client lands: it refuses to start a judge.
var newJudgeClient = func(_ context.Context, _ *JudgeConfig, _ component.Host, _ component.TelemetrySettings) (scoring.Completer, error) {
	return nil, errors.New("no judge client")
}
