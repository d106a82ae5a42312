package judgetest

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind: a retry loop
// still sleeping, a handler still waiting, a connection never closed.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
