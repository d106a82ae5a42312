package toolcallaccuracyprocessor // import "github.com/toolcallaccuracy/toolcallaccuracyprocessor"

import (
	"strings"
	"sync/atomic"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"

	"github.com/toolcallaccuracy/toolcallaccuracyprocessor/internal/trajectory"
)

// completionHabits learns, per service and agent (or trace root), which
// evidence of an incomplete run its runs never send late: runs that end on
// a tool call (the last model turn asked for tools and no model call
// follows: a handoff, a return-direct tool, a run aborted after its
// tools), agent spans with nothing recorded below them, and spans whose
// parent never comes (an exporter that drops it, a parent in another
// process). When learnAfter of its held runs
// in a row reach wait_for_missing's deadline still lacking that evidence,
// and no span of the service arrived late meanwhile, its runs are no longer
// held for it, so complete runs leave with their batch. The first span of
// the service that arrives after its run was scored turns holding back on
// for every agent of the service. A held run that the evidence it waited
// for completed (it did arrive late) starts the count again.
//
// State is bounded (maxHabitServices services, maxHabitAgents agents
// each; others are held as before) and guarded by the processor's mutex;
// learned counts the learned pairs for the learned_completions gauge.
type completionHabits struct {
	services map[string]map[string]*agentHabit
	learned  [numEvidence]atomic.Int64
}

// evidence is a kind of missing evidence a service's runs may never send.
type evidence uint8

const (
	evidenceAnswer evidence = iota
	evidenceChildren
	evidenceParent
	numEvidence
)

var evidenceNames = [numEvidence]string{"answer", "children", "parent"}

// evidenceOf returns the learnable evidence that m names.
func evidenceOf(m trajectory.Missing) (evidence, bool) {
	switch m {
	case trajectory.MissingAnswer:
		return evidenceAnswer, true
	case trajectory.MissingChildren:
		return evidenceChildren, true
	case trajectory.MissingParent:
		return evidenceParent, true
	}
	return 0, false
}

// Bounds of completionHabits, and the deadlines in a row that teach it.
const (
	learnAfter       = 3
	maxHabitServices = 4096
	maxHabitAgents   = 64
)

// agentHabit is what one agent's held runs showed: deadlines reached in a
// row still lacking each evidence, and whether it is learned.
type agentHabit struct {
	deadlines [numEvidence]uint8
	learned   [numEvidence]bool
}

// habit returns the agent's habit, made when create and the bounds allow;
// nil otherwise.
func (c *completionHabits) habit(service, agent string, create bool) *agentHabit {
	agents := c.services[service]
	if h := agents[agent]; h != nil || !create {
		return h
	}
	if agents == nil {
		if len(c.services) >= maxHabitServices {
			return nil
		}
		if c.services == nil {
			c.services = make(map[string]map[string]*agentHabit)
		}
		agents = make(map[string]*agentHabit)
		c.services[strings.Clone(service)] = agents
	}
	if len(agents) >= maxHabitAgents {
		return nil
	}
	h := new(agentHabit)
	agents[strings.Clone(agent)] = h
	return h
}

// options marks in o the evidence the agent's runs are not held for.
func (c *completionHabits) options(service, agent string, o *trajectory.AgentOptions) {
	if h := c.habit(service, agent, false); h != nil {
		o.EndsOnTools = h.learned[evidenceAnswer]
		o.Alone = h.learned[evidenceChildren]
		o.ParentsDropped = h.learned[evidenceParent]
	}
}

// reachedDeadline records a held run of the agent released at its deadline
// still lacking m. It reports whether this taught that the agent's runs
// are no longer held for it.
func (c *completionHabits) reachedDeadline(service, agent string, m trajectory.Missing) bool {
	ev, ok := evidenceOf(m)
	if !ok {
		return false
	}
	h := c.habit(service, agent, true)
	if h == nil || h.learned[ev] {
		return false
	}
	if h.deadlines[ev]++; h.deadlines[ev] < learnAfter {
		return false
	}
	h.learned[ev] = true
	c.learned[ev].Add(1)
	return true
}

// completed records a held run of the agent, held for heldFor, that a late
// span completed: that evidence does come late for it.
func (c *completionHabits) completed(service, agent string, heldFor trajectory.Missing) {
	if ev, ok := evidenceOf(heldFor); ok {
		if h := c.habit(service, agent, false); h != nil {
			h.deadlines[ev] = 0
		}
	}
}

// anyLearned reports whether some agent's runs are not held for some
// evidence: only then is a span's lateness looked for.
func (c *completionHabits) anyLearned() bool {
	for ev := range numEvidence {
		if c.learned[ev].Load() > 0 {
			return true
		}
	}
	return false
}

// late records a span of service that arrived after its run was scored:
// the service's runs are held again for everything.
func (c *completionHabits) late(service string) {
	for _, h := range c.services[service] {
		for ev := range numEvidence {
			if h.learned[ev] {
				c.learned[ev].Add(-1)
			}
		}
		*h = agentHabit{}
	}
}

// agentOf names the agent of an agent span for completionHabits: its
// gen_ai.agent.name, else its span name.
func agentOf(span ptrace.Span) string {
	if v, ok := span.Attributes().Get("gen_ai.agent.name"); ok {
		return v.AsString()
	}
	return span.Name()
}

// learnFrom learns from a held run that was released (traj nil when its
// state was evicted) what its agent sends late. When this teaches that
// the agent's runs are no longer held for some evidence, its other held
// runs that lack nothing else are appended to complete, to be released at
// once. Called with p.mu held.
func (p *tcaProcessor) learnFrom(h *heldRun, traj *trajectory.Trajectory, complete []runKey) []runKey {
	if traj == nil || traj.ReleasedEarly {
		return complete
	}
	_, _, span := h.heldSpan()
	service, agent := serviceOfSpan(h), agentOf(span)
	if traj.Missing == trajectory.MissingNone {
		p.habits.completed(service, agent, h.heldFor)
		return complete
	}
	if !p.habits.reachedDeadline(service, agent, traj.Missing) {
		return complete
	}
	p.logger.Info("runs are no longer held for evidence this agent never sends late",
		zap.String("service", service), zap.String("agent", agent), zap.String("missing", traj.Missing.String()),
		zap.Int("deadlines_in_a_row", learnAfter))
	return p.holder.relaxWaiting(service, agent, complete)
}

// relaxWaiting gives the waiting runs of service and agent held incomplete
// the evidence their agent was learned never to send late, and appends to
// complete those that lack nothing else. Called with h.mu held.
func (h *holder) relaxWaiting(service, agent string, complete []runKey) []runKey {
	relax := func(o *trajectory.AgentOptions) { h.p.habits.options(service, agent, o) }
	h.waiting.all(func(r *heldRun) {
		if !r.incomplete || r.ready || serviceOfSpan(r) != service {
			return
		}
		if _, _, span := r.heldSpan(); agentOf(span) != agent {
			return
		}
		if h.p.store.Relax(r.trace, r.span, relax) == trajectory.MissingNone {
			complete = append(complete, runKey{r.trace, r.span})
		}
	})
	return complete
}
