package broker

import (
	"context"
	"time"
)

// PlatformOutbox is the part of the Store that keeps the platform work of
// questions: one task per (question, kind, target) that posts the copy,
// edits it, or sends a reminder under it. Create writes the post tasks of
// every target of a question and Resolve writes the edit tasks, each in
// the same atomic step as the change that needs them, so that a crash
// after the change can never lose the work. Any instance may claim a due
// task; a claim holds it for a while, and the outcome of an attempt is
// recorded only while the claim is still the task's (as with callback
// deliveries).
//
// A task is renewed rather than duplicated: asking again for a task that
// exists raises its generation (Gen). An attempt whose claim began before
// the renewal records its outcome, but a finished outcome then leaves the
// task due again at once, so that the newest state of the question is
// always the last one shown, and attempts on one task never overlap.
type PlatformOutbox interface {
	// ClaimPlatformWork returns up to limit tasks due at now (of question
	// questionID only, when it is not empty) and holds each until
	// now+hold; each carries its claim in Claim.
	ClaimPlatformWork(ctx context.Context, questionID string, now time.Time, limit int, hold time.Duration) ([]PlatformTask, error)
	// UpdatePlatformWork records the outcome of an attempt on a claimed
	// task: State, Attempts, NextAt, LastError, MessageID and UpdatedAt.
	// It records only while t.Claim is still the task's claim; otherwise
	// it changes nothing and returns ErrConflict. A task renewed since the
	// claim (its generation moved past t.Gen) stays due at once whatever
	// the outcome, with the outcome's attempts and last error.
	UpdatePlatformWork(ctx context.Context, t PlatformTask) error
	// EnqueuePlatformWork adds, or renews, the task of kind for each
	// target of question id, due at now, given up after deadline. A
	// renewed task that is not claimed now becomes due at once; a claimed
	// one keeps its claim (see the generation above).
	EnqueuePlatformWork(ctx context.Context, id string, kind TaskKind, targets []Target, now, deadline time.Time) error
	// PlatformWork lists the tasks of a question, posts first, then by
	// kind and target.
	PlatformWork(ctx context.Context, id string) ([]PlatformTask, error)
	// PlatformBacklog counts the unfinished tasks of each channel, with
	// the creation time of the oldest.
	PlatformBacklog(ctx context.Context) ([]Backlog, error)
	// Pace reserves the next free slot of the pacing key: slots are at
	// least interval apart, across every instance on the store. When the
	// next free slot is within maxWait of now it is taken and returned
	// with ok; otherwise nothing is taken and the slot's time is returned
	// so that the caller can come back then.
	Pace(ctx context.Context, key string, interval time.Duration, now time.Time, maxWait time.Duration) (at time.Time, ok bool, err error)
	// HoldPace moves the next free slot of key to until when it is
	// earlier (a platform's "retry after").
	HoldPace(ctx context.Context, key string, until time.Time) error
}

// TaskKind says what a platform task does with its copy.
type TaskKind string

// Task kinds.
const (
	TaskPost   TaskKind = "post"
	TaskEdit   TaskKind = "edit"
	TaskRemind TaskKind = "remind"
)

// Valid reports whether k is a known kind.
func (k TaskKind) Valid() bool { return k == TaskPost || k == TaskEdit || k == TaskRemind }

// Task states. Queued and retrying tasks are unfinished: they are due at
// NextAt. Done, failed and dropped tasks are finished.
const (
	TaskQueued   = "queued"
	TaskRetrying = "retrying"
	TaskDone     = "done"
	TaskFailed   = "failed"
	// TaskDropped ends a task that had nothing left to do: the question
	// closed before its copy was posted, or there is no copy to edit.
	TaskDropped = "dropped"
)

// TaskFinished reports whether state ends a task.
func TaskFinished(state string) bool {
	return state == TaskDone || state == TaskFailed || state == TaskDropped
}

// EditWindow is how long the edits of a copy are retried after they were
// asked for.
const EditWindow = 24 * time.Hour

// PlatformTask is one piece of platform work of a question.
type PlatformTask struct {
	QuestionID string    `json:"question_id"`
	Kind       TaskKind  `json:"kind"`
	Target     Target    `json:"target"`
	State      string    `json:"state"`
	Attempts   int       `json:"attempts"`
	NextAt     time.Time `json:"next_at"`
	// Deadline is when the task gives up: the question's deadline for
	// posts and reminders, EditWindow after the last request for edits.
	Deadline time.Time `json:"deadline"`
	// LastError is the class of the last failure ("unreachable",
	// "rate limited", "chat not found"), or the reason a task ended.
	LastError string `json:"last_error,omitempty"`
	// MessageID is the platform message of a posted copy.
	MessageID string `json:"message_id,omitempty"`
	// Gen counts the requests for the task (see PlatformOutbox).
	Gen       int64     `json:"gen"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Claim is the end of the hold a claim placed on the task; zero for a
	// task not read by a claim. It fences UpdatePlatformWork.
	Claim time.Time `json:"-"`
}

// Backlog is the unfinished platform work of one channel.
type Backlog struct {
	Channel string
	Depth   int
	Oldest  time.Time
}

// TaskMaxError bounds the length of LastError kept by stores.
const TaskMaxError = 300
