package mcp

import (
	"context"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
)

// A task's question raced at the terminal (Config.RaceLocal), in the
// extension's shape: while the question is pending and its form not yet
// answered, the task is input_required and tasks/get carries the form in
// inputRequests; the client shows it and sends the response with
// tasks/update, which settles the race as racelocal.go does. A dismissed
// form leaves the task working, for chat to answer. The forms are held
// by the server that made the task: another server, or this one after a
// restart, reports the task working and chat alone decides.
//
// The 2025-11-25 shape would send the form as an elicitation/create tied
// to the task, answered through tasks/result; its tasks are not raced.

// taskStatusInputRequired is the status of a task waiting for the
// client's input.
const taskStatusInputRequired = "input_required"

// taskForm is the form of a task's question, waiting for its response.
type taskForm struct {
	form *localForm
	who  *client.Responder
}

// taskForms are the forms of this server's tasks, by question id.
type taskForms struct {
	mu sync.Mutex
	m  map[string]*taskForm
}

func (f *taskForms) put(id string, tf *taskForm) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]*taskForm{}
	}
	f.m[id] = tf
}

func (f *taskForms) get(id string) *taskForm {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[id]
}

// take removes and returns the form of id.
func (f *taskForms) take(id string) *taskForm {
	f.mu.Lock()
	defer f.mu.Unlock()
	tf := f.m[id]
	delete(f.m, id)
	return tf
}

// offerTaskForm keeps the form of a task's question made by req, when
// the server races and the client takes forms.
func (s *Server) offerTaskForm(req *sdk.CallToolRequest, in *AskInput, id string) {
	ok, version, who := s.localClient(req)
	if !ok {
		return
	}
	form, why := formFor(in, version)
	if form == nil {
		s.log.Debug("mcp: no local form for the task, chat only", "question_id", id, "why", why)
		return
	}
	s.forms.put(id, &taskForm{form: form, who: who})
}

// withInput marks t input_required with its form's request while its
// question is pending and the form waits; a task that ended lets its
// form go.
func (s *Server) withInput(t *taskState) sdk.InputRequestMap {
	if t.status != taskWorking {
		s.forms.take(t.id)
		return nil
	}
	tf := s.forms.get(t.id)
	if tf == nil {
		return nil
	}
	t.status = taskStatusInputRequired
	t.message = "Waiting for an answer here or in chat: the first answer counts"
	return sdk.InputRequestMap{localFormKey: &sdk.ElicitParams{Mode: "form", Message: tf.form.message, RequestedSchema: tf.form.schema}}
}

// answerTaskForm settles task id's race with the form's response from a
// tasks/update: accepted or declined it is the question's answer or
// decline, unless chat answered first; dismissed, chat decides.
func (s *Server) answerTaskForm(ctx context.Context, a Asker, id string, responses sdk.InputResponseMap) {
	res, ok := responses[localFormKey].(*sdk.ElicitResult)
	if !ok {
		return
	}
	tf := s.forms.take(id)
	if tf == nil {
		s.log.Debug("mcp tasks/update: no form of this task is waiting; response ignored", "question_id", id)
		return
	}
	if res.Action != "accept" && res.Action != "decline" {
		s.log.Debug("mcp: local form of the task dismissed, chat only", "question_id", id)
		return
	}
	if out := s.settleLocal(ctx, a, id, &localRace{form: tf.form, who: tf.who, res: res}); out == nil {
		s.log.Debug("mcp: the task's local answer was not taken, chat decides", "question_id", id)
	}
}
