//go:build !race

package toolcallaccuracyprocessor

// raceEnabled reports a test binary built with -race, whose frames are
// not the production build's (see TestStackBudget).
const raceEnabled = false
