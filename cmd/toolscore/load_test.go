package main

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/otlpjson"
)

// TestTrafficLimits drives the traffic alone over many shapes: -spans is
// exact, every run started is whole, and the stream ends.
func TestTrafficLimits(t *testing.T) {
	docs, err := otlpjson.ReadFiles(demoTraces(t)...)
	require.NoError(t, err)
	groups := []spanGroup{ordinaryGroup()}
	templates, err := readTemplates(docs, &groups)
	require.NoError(t, err)
	require.Len(t, templates, 9)
	for _, share := range []float64{0, 0.05, 0.5, 1} {
		for _, split := range []bool{false, true} {
			for _, hold := range []int{0, 2} {
				for _, drop := range []bool{false, true} {
					for _, limit := range []int64{1, 7, 100, 1001} {
						for _, batch := range []int{1, 10, 64} {
							name := "share=" + strconv.FormatFloat(share, 'g', -1, 64) + fmt.Sprintf("/split=%v/hold=%d/drop=%v/spans=%d/batch=%d", split, hold, drop, limit, batch)
							cfg := trafficConfig{batch: batch, share: share, split: split, hold: hold, dropHeld: drop, limit: limit}
							tr := newTraffic(cfg, templates, groups, 1)
							total, genai := 0, 0
							var seq uint64
							for range 10 * limit {
								b, state := tr.next(seq+1, seq)
								if state == nextDone {
									break
								}
								require.Equal(t, nextRequest, state, name)
								require.LessOrEqual(t, b.spans, batch, name)
								seq++
								total += b.spans
								genai += b.genai
							}
							for _, b := range tr.heldRequests() {
								total += b.spans
								genai += b.genai
							}
							require.Equal(t, int(limit), total, name)
							require.Empty(t, tr.active, name)
							if share == 0 {
								require.Zero(t, genai, name)
							}
						}
					}
				}
			}
		}
	}
}
