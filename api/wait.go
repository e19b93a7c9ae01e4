package api

import (
	"context"
	"net/http"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/park"
)

// wait long-polls the agent's question id for at most d (see
// broker.Wait) and hands the question as it then stands to then, with the
// ResponseWriter to answer on. On an error it writes the error answer
// instead; an internal error is logged with its cause, which the answer
// does not carry.
//
// When the question is still pending after parkAfter and the server parks
// long-polls (Config.Parking), an HTTP/1.1 request's connection is taken
// over for the rest of the wait and wait returns: the rest (then, and the
// answer) runs on a goroutine of its own, and net/http's goroutines and
// buffers for the connection are released meanwhile (internal/park).
//
// then gets a context for what it reads: the request's values, without
// its end (a long-poll answers what it waited for).
func (s *Server) wait(w http.ResponseWriter, r *http.Request, agent, id string, d time.Duration, then answerFunc) {
	deadline := time.Now().Add(d)
	ctx, cancel := s.waitContext(r.Context(), deadline)
	wt, err := s.b.StartWait(ctx, agent, id)
	if err != nil {
		cancel()
		s.waitFailed(w, id, err)
		return
	}
	var q *broker.Question
	done := false
	if wt.Pending() && s.cfg.Parking != nil && time.Until(deadline) > s.parkAfter {
		// Most waits end within moments (an answer given at once, an
		// agent polling a question answered already): they finish here,
		// as any request does, unless too many wait so already. Those
		// that last are parked.
		if s.unparked.Add(1) <= s.unparkedMax {
			q, done, err = wt.FinishWithin(ctx, s.parkAfter)
		}
		s.unparked.Add(-1)
		if !done {
			if pc, ok := s.cfg.Parking.Take(w, r); ok {
				// The request's context ends when its handler returns:
				// the wait goes on without it.
				cancel()
				go (&parkedWait{s: s, pc: pc, wt: wt, id: id, deadline: deadline, then: then}).run()
				return
			}
		}
	}
	if !done {
		q, err = wt.Finish(ctx)
	}
	cancel()
	if err != nil {
		s.waitFailed(w, id, err)
		return
	}
	then(context.WithoutCancel(r.Context()), w, q)
}

// parkAfter is how long a long-poll waits on its request's goroutine
// before its connection is parked (Config.Parking): parking costs a few
// allocations and a goroutine handover that a wait of moments need not
// pay. At most unparkedMax long-polls wait so at once (about 20 KiB
// each); beyond, a burst of them parks at once.
const (
	parkAfter   = time.Second
	unparkedMax = 128
)

// answerFunc writes the answer of a request that waited for q.
type answerFunc func(ctx context.Context, w http.ResponseWriter, q *broker.Question)

// parkedWait is the rest of a wait whose connection was taken over.
type parkedWait struct {
	s        *Server
	pc       *park.Conn
	wt       *broker.Waiting
	id       string
	deadline time.Time
	then     answerFunc
}

// run finishes the wait on a goroutine of its own that serves both the
// wait and the connection: it sleeps reading the connection (a client
// that hangs up ends the wait), and whatever the wait needs (the
// question's change, a lease renewal, the deadline, the server's drain)
// interrupts it. Its stack stays at the runtime's smallest while it
// waits: the frames below the read are few and small, and what answers
// runs after the wait. It holds one context, one timer and the server's
// drain hook, not a chain of contexts.
func (p *parkedWait) run() {
	ctx, cancel := context.WithCancel(context.Background())
	end := func() {
		cancel()
		p.pc.Interrupt()
	}
	timer := time.AfterFunc(time.Until(p.deadline), end)
	stopDrain := context.AfterFunc(p.s.drainCtx, end)
	p.wt.Watch(p.pc.Interrupt)
	for !p.poll(ctx) {
		p.pc.Await()
		if p.pc.Gone() {
			cancel()
		}
	}
	timer.Stop()
	stopDrain()
	cancel()
}

// poll does what the wait has due and reports whether it is over; when
// it is, the answer is written and the connection finished.
func (p *parkedWait) poll(ctx context.Context) bool {
	q, done, err := p.wt.Poll(ctx)
	if !done {
		return false
	}
	defer p.pc.Finish()
	if p.pc.Gone() {
		return true
	}
	if err != nil {
		p.s.waitFailed(p.pc, p.id, err)
	} else {
		p.then(context.Background(), p.pc, q)
	}
	return true
}

func (s *Server) waitFailed(w http.ResponseWriter, id string, err error) {
	if StatusOf(err).Status == http.StatusInternalServerError {
		s.log.Error("long-poll", "question_id", id, "err", err)
	}
	writeBrokerError(w, err)
}
