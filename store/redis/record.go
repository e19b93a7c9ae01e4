package redis

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// Record hash fields (see doc.go); "j" is not a field but the body key's
// value, added by the readers:
//
//	j   the question's static part (JSON)  st  status
//	a   agent                              se  session id
//	cr  created (µs)                       np  number of prompts
//	rt  reminder times (µs, comma list)    rs  reminders sent
//	lu  lease until (ns)                   k   idempotency key name
//	cb  callback URL                       mn  number of posted copies
//	m<n> posted copy n (tab-separated)     r   resolution (JSON)
//	ra  resolved at (ns)                   p<i> progress of prompt i
//	s<i> selection of prompt i             ds/da/dn/de/dc/du the delivery
//	ps  policy state (JSON)                pv  policy state revision
//	ex  deadline moved by a snooze (µs)    bv  the body's version (bodies.go)
//	hf  files were stored (attachments.go) ha  audit entries were added
//	lv  layout version of the record: 2;   (votes.go)
//	    absent in records of layout 1
type record map[string]string

// resolution is the JSON of field r.
type resolution struct {
	Answers    map[string]broker.Answer `json:"answers,omitempty"`
	Fallback   string                   `json:"fallback,omitempty"`
	Reason     string                   `json:"reason,omitempty"`
	NotReady   bool                     `json:"not_ready,omitempty"`
	AnsweredBy *broker.Responder        `json:"answered_by,omitempty"`
	ResolvedAt time.Time                `json:"resolved_at"`
}

// toRecord turns a flat HGETALL reply into a record.
func toRecord(v any) (record, error) {
	arr, ok := v.([]any)
	if !ok || len(arr)%2 != 0 {
		return nil, fmt.Errorf("unexpected record reply %T", v)
	}
	r := make(record, len(arr)/2)
	for i := 0; i < len(arr); i += 2 {
		k, _ := arr[i].(string)
		val, _ := arr[i+1].(string)
		r[k] = val
	}
	return r, nil
}

// unpackRecord reads a record packed by the scripts' packed(): its
// names and values joined by NUL bytes (none holds one). The record's
// strings are slices of s.
func unpackRecord(s string) (record, error) {
	if s == "" {
		return record{}, nil
	}
	n := strings.Count(s, "\x00") + 1
	if n%2 != 0 {
		return nil, fmt.Errorf("packed record of %d strings: names and values do not pair", n)
	}
	r := make(record, n/2)
	for len(r) < n/2 {
		k, rest, _ := strings.Cut(s, "\x00")
		v, rest, _ := strings.Cut(rest, "\x00")
		if _, dup := r[k]; dup {
			return nil, fmt.Errorf("packed record names field %q twice", k)
		}
		r[k], s = v, rest
	}
	return r, nil
}

// fromWhole turns a {packed HGETALL, body} reply into a record.
func fromWhole(v any) (record, error) {
	arr, ok := v.([]any)
	if !ok || len(arr) != 2 {
		return nil, fmt.Errorf("unexpected record reply %T", v)
	}
	var r record
	var err error
	if packed, ok := arr[0].(string); ok {
		r, err = unpackRecord(packed)
	} else {
		r, err = toRecord(arr[0]) // a record that holds a NUL
	}
	if err != nil {
		return nil, err
	}
	r["j"], _ = arr[1].(string)
	return r, nil
}

// question assembles the question from its record.
func (r record) question() (*broker.Question, error) { return r.questionWith(nil, nil) }

// sentResolution is a resolution this process wrote, as res and as the
// JSON it wrote (raw), where a copy of res is what decoding raw gives
// (asDecoded).
type sentResolution struct {
	raw []byte
	res resolution
}

// asDecoded reports whether a copy of res is what decoding body, its
// JSON, gives: its time is in UTC, json.Marshal mended no text
// (broker.MendedJSON), and no map or list is empty without being nil
// (the JSON leaves it out, and it decodes as nil).
func asDecoded(res resolution, body []byte) bool {
	if res.ResolvedAt.Location() != time.UTC || broker.MendedJSON(body) {
		return false
	}
	if res.Answers != nil && len(res.Answers) == 0 {
		return false
	}
	for _, a := range res.Answers {
		if a.Attachments != nil && len(a.Attachments) == 0 {
			return false
		}
	}
	return true
}

// copyResolution returns res with maps, lists and pointers of its own.
func copyResolution(res resolution) resolution {
	res.Answers = broker.CloneAnswers(res.Answers)
	if res.AnsweredBy != nil {
		by := *res.AnsweredBy
		res.AnsweredBy = &by
	}
	return res
}

// questionWith assembles the question from its record, starting from a
// copy of base, the record's body already decoded, when not nil; a
// resolution in the record that is sent's is copied, not decoded.
func (r record) questionWith(base *broker.Question, sent *sentResolution) (*broker.Question, error) {
	// One Question is allocated: the clone, or the decoded body.
	var q *broker.Question
	if base != nil {
		q = base.Clone()
	} else {
		q = new(broker.Question)
		if err := json.Unmarshal([]byte(r["j"]), q); err != nil {
			return nil, fmt.Errorf("decode question: %w", err)
		}
	}
	q.Status = broker.Status(r["st"])
	q.Agent, q.SessionID = r["a"], r["se"]
	if cr, err := strconv.ParseInt(r["cr"], 10, 64); err == nil {
		q.CreatedAt = time.UnixMicro(cr).UTC()
	}
	if rt := r["rt"]; rt != "" {
		for v := range strings.SplitSeq(rt, ",") {
			us, _ := strconv.ParseInt(v, 10, 64)
			q.Reminders = append(q.Reminders, time.UnixMicro(us).UTC())
		}
	}
	if v, ok := r["r"]; ok {
		var res resolution
		if sent != nil && v == string(sent.raw) {
			res = copyResolution(sent.res)
		} else if err := json.Unmarshal([]byte(v), &res); err != nil {
			return nil, fmt.Errorf("decode resolution of %s: %w", q.ID, err)
		}
		q.Answers, q.Fallback, q.Reason, q.NotReady = res.Answers, res.Fallback, res.Reason, res.NotReady
		q.AnsweredBy, q.ResolvedAt = res.AnsweredBy, res.ResolvedAt
	}
	if v, ok := r["rs"]; ok {
		q.RemindersSent, _ = strconv.Atoi(v)
	}
	if err := r.policyState(q); err != nil {
		return nil, err
	}
	if v, ok := r["lu"]; ok {
		ns, _ := strconv.ParseInt(v, 10, 64)
		q.LeaseUntil = time.Unix(0, ns).UTC()
	}
	for f, v := range r {
		if len(f) < 2 || (f[0] != 'p' && f[0] != 's') || f[1] < '0' || f[1] > '9' {
			continue // st, se, ps, pv...: not a prompt's field
		}
		i, err := strconv.Atoi(f[1:])
		if err != nil || i < 0 || i >= len(q.Prompts) {
			continue
		}
		if f[0] == 'p' {
			var a broker.Answer
			if err := json.Unmarshal([]byte(v), &a); err != nil {
				return nil, fmt.Errorf("decode progress of %s: %w", q.ID, err)
			}
			if q.Progress == nil {
				q.Progress = make([]*broker.Answer, len(q.Prompts))
			}
			q.Progress[i] = &a
		} else {
			var sel []int
			if err := json.Unmarshal([]byte(v), &sel); err != nil {
				return nil, fmt.Errorf("decode selection of %s: %w", q.ID, err)
			}
			if q.Selections == nil {
				q.Selections = map[int][]int{}
			}
			q.Selections[i] = sel
		}
	}
	return q, nil
}

// messages lists the posted copies kept in fields m1..m<mn>.
func (r record) messages() ([]broker.MessageRef, error) {
	n, _ := strconv.Atoi(r["mn"])
	out := make([]broker.MessageRef, 0, n)
	for i := 1; i <= n; i++ {
		f := strings.Split(r["m"+strconv.Itoa(i)], "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("decode message %d: %d fields", i, len(f))
		}
		out = append(out, broker.MessageRef{Channel: f[0], Chat: f[1], MessageID: f[2], PostedAt: nsTime(f[3])})
	}
	return out, nil
}

// messageLine encodes a posted copy for field m<n>.
func messageLine(m broker.MessageRef) string {
	var ns int64
	if !m.PostedAt.IsZero() {
		ns = nsec(m.PostedAt)
	}
	return m.Channel + "\t" + m.Chat + "\t" + m.MessageID + "\t" + strconv.FormatInt(ns, 10)
}

// delivery returns the callback delivery kept in the record, if any.
func (r record) delivery(id string) (broker.Delivery, bool, error) {
	state, ok := r["ds"]
	if !ok {
		return broker.Delivery{}, false, nil
	}
	att, _ := strconv.Atoi(r["da"])
	return broker.Delivery{
		ID: deliveryPrefix + id, QuestionID: id, Agent: r["a"], URL: r["cb"], State: state,
		Attempts: att, NextAt: nsTime(r["dn"]), LastError: r["de"],
		CreatedAt: nsTime(r["dc"]), UpdatedAt: nsTime(r["du"]),
	}, true, nil
}

func nsTime(s string) time.Time {
	ns, err := strconv.ParseInt(s, 10, 64)
	if err != nil || ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// scriptReply splits a {code, {packed HGETALL, body}} reply of the mutating
// scripts.
func scriptReply(v any) (string, record, error) {
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		return "", nil, fmt.Errorf("unexpected script reply %T", v)
	}
	code, _ := arr[0].(string)
	if len(arr) < 2 {
		return code, nil, nil
	}
	rec, err := fromWhole(arr[1])
	return code, rec, err
}
