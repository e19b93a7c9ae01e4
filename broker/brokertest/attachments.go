package brokertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// TestAttachments runs the conformance suite of the Attachments role of
// broker.Store: open returns a fresh, empty store and arranges its own
// clean-up.
//
//	func TestAttachmentConformance(t *testing.T) {
//		brokertest.TestAttachments(t, func(t *testing.T) broker.Store { return openTemp(t) })
//	}
func TestAttachments(t *testing.T, open func(t *testing.T) broker.Store) {
	t.Helper()
	tests := []struct {
		name string
		run  func(t *testing.T, s broker.Store, fs broker.Attachments)
	}{
		{"PutGetRoundTrip", testPutGet},
		{"NumbersFromOne", testFileNumbers},
		{"UnknownOrClosedQuestion", testPutRefused},
		{"TotalCap", testFilesCap},
		{"ConcurrentPutsKeepTheCap", testConcurrentPuts},
		{"Delete", testDeleteFiles},
		{"KeptAfterResolve", testFilesAfterResolve},
		{"PurgedWithQuestion", testFilesPurged},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			tc.run(t, s, s)
		})
	}
}

// binaryData returns n bytes of every value, zeros included, so that a
// store that treats files as text fails.
func binaryData(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) + seed
	}
	return b
}

func mustPut(t *testing.T, fs broker.Attachments, id string, f broker.File) int {
	t.Helper()
	n, err := fs.PutAttachment(context.Background(), id, f, broker.MaxQuestionFiles)
	if err != nil {
		t.Fatalf("PutAttachment(%s, %s): %v", id, f.Name, err)
	}
	return n
}

func pendingQuestion(t *testing.T, s broker.Store) string {
	t.Helper()
	id := newIDs(1)[0]
	mustCreate(t, s, NewQuestion(id, "a1", baseTime()))
	return id
}

func testPutGet(t *testing.T, s broker.Store, fs broker.Attachments) {
	ctx := context.Background()
	id := pendingQuestion(t, s)
	big := binaryData(broker.MaxFileSize, 3)
	files := []broker.File{
		{Name: "screen shot ü.png", Type: "image/png", Data: []byte("\x89PNG\r\n\x1a\n\x00\x00rest")},
		{Name: "build.log", Type: "text/plain", Data: []byte("line 1\nline 2\n")},
		{Name: "big.pdf", Type: "application/pdf", Data: big},
	}
	for i, f := range files {
		f.Size = int64(len(f.Data))
		n := mustPut(t, fs, id, f)
		got, err := fs.GetAttachment(ctx, id, n)
		if err != nil {
			t.Fatalf("GetAttachment(%s, %d): %v", id, n, err)
		}
		if got.N != n || got.Name != f.Name || got.Type != f.Type || got.Size != f.Size || !bytes.Equal(got.Data, f.Data) {
			t.Fatalf("file %d read back as {N:%d Name:%q Type:%q Size:%d, %d bytes, equal=%v}, want {N:%d Name:%q Type:%q Size:%d}",
				i, got.N, got.Name, got.Type, got.Size, len(got.Data), bytes.Equal(got.Data, f.Data), n, f.Name, f.Type, f.Size)
		}
	}
	list, err := fs.ListAttachments(ctx, id)
	if err != nil {
		t.Fatalf("ListAttachments: %v", err)
	}
	if len(list) != len(files) {
		t.Fatalf("ListAttachments = %d files, want %d", len(list), len(files))
	}
	for i, f := range list {
		if f.N != i+1 || f.Name != files[i].Name || f.Size != int64(len(files[i].Data)) || f.Data != nil {
			t.Fatalf("ListAttachments[%d] = {N:%d Name:%q Size:%d, %d bytes}, want {N:%d Name:%q Size:%d} without bytes",
				i, f.N, f.Name, f.Size, len(f.Data), i+1, files[i].Name, len(files[i].Data))
		}
	}
	if _, err := fs.GetAttachment(ctx, id, 9); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("GetAttachment of a number never used: err = %v, want ErrNotFound", err)
	}
	other := pendingQuestion(t, s)
	if _, err := fs.GetAttachment(ctx, other, 1); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("GetAttachment of another question's number: err = %v, want ErrNotFound", err)
	}
	if l, err := fs.ListAttachments(ctx, other); err != nil || len(l) != 0 {
		t.Fatalf("ListAttachments of a question without files = %v, %v; want none", l, err)
	}
}

func testFileNumbers(t *testing.T, s broker.Store, fs broker.Attachments) {
	a, b := pendingQuestion(t, s), pendingQuestion(t, s)
	f := broker.File{Name: "a.txt", Type: "text/plain", Size: 2, Data: []byte("hi")}
	got := []int{mustPut(t, fs, a, f), mustPut(t, fs, b, f), mustPut(t, fs, a, f)}
	if fmt.Sprint(got) != "[1 1 2]" {
		t.Fatalf("numbers = %v, want [1 1 2]: each question counts its own files from 1", got)
	}
	if err := fs.DeleteAttachments(context.Background(), a, []int{2}); err != nil {
		t.Fatal(err)
	}
	if n := mustPut(t, fs, a, f); n != 3 {
		t.Fatalf("number after a deletion = %d, want 3: a number is never used twice", n)
	}
}

func testPutRefused(t *testing.T, s broker.Store, fs broker.Attachments) {
	ctx := context.Background()
	f := broker.File{Name: "a.txt", Type: "text/plain", Size: 2, Data: []byte("hi")}
	if _, err := fs.PutAttachment(ctx, newIDs(1)[0], f, broker.MaxQuestionFiles); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("PutAttachment on an unknown question: err = %v, want ErrNotFound", err)
	}
	id := pendingQuestion(t, s)
	mustResolve(t, s, id, answeredAt(baseTime(), "Postgres"))
	_, err := fs.PutAttachment(ctx, id, f, broker.MaxQuestionFiles)
	var closed *broker.ClosedError
	if !errors.As(err, &closed) || closed.Question.Status != broker.StatusAnswered {
		t.Fatalf("PutAttachment on an answered question: err = %v, want a *ClosedError with status answered", err)
	}
	if l, _ := fs.ListAttachments(ctx, id); len(l) != 0 {
		t.Fatalf("a refused file was stored: %v", l)
	}
}

func testFilesCap(t *testing.T, s broker.Store, fs broker.Attachments) {
	ctx := context.Background()
	id := pendingQuestion(t, s)
	f := func(n int) broker.File {
		return broker.File{Name: "f.txt", Type: "text/plain", Size: int64(n), Data: bytes.Repeat([]byte("x"), n)}
	}
	if _, err := fs.PutAttachment(ctx, id, f(60), 100); err != nil {
		t.Fatal(err)
	}
	_, err := fs.PutAttachment(ctx, id, f(41), 100)
	if !errors.Is(err, broker.ErrLimit) {
		t.Fatalf("a file past the total: err = %v, want ErrLimit", err)
	}
	if l, _ := fs.ListAttachments(ctx, id); len(l) != 1 {
		t.Fatalf("after a refused file the question holds %d files, want 1", len(l))
	}
	n, err := fs.PutAttachment(ctx, id, f(40), 100)
	if err != nil {
		t.Fatalf("a file that fits exactly: %v", err)
	}
	if err := fs.DeleteAttachments(ctx, id, []int{1, n}); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.PutAttachment(ctx, id, f(100), 100); err != nil {
		t.Fatalf("deleted files still count toward the total: %v", err)
	}
}

func testConcurrentPuts(t *testing.T, s broker.Store, fs broker.Attachments) {
	ctx := context.Background()
	id := pendingQuestion(t, s)
	const workers, size, total = 8, 30, 100
	var wg sync.WaitGroup
	nums := make(chan int, workers)
	for range workers {
		wg.Go(func() {
			n, err := fs.PutAttachment(ctx, id, broker.File{Name: "f.txt", Type: "text/plain", Size: size, Data: bytes.Repeat([]byte("y"), size)}, total)
			switch {
			case err == nil:
				nums <- n
			case !errors.Is(err, broker.ErrLimit):
				t.Errorf("PutAttachment: %v", err)
			}
		})
	}
	wg.Wait()
	close(nums)
	seen := map[int]bool{}
	for n := range nums {
		if seen[n] {
			t.Fatalf("number %d given twice", n)
		}
		seen[n] = true
	}
	if len(seen) != total/size {
		t.Fatalf("%d of %d concurrent files of %d bytes stored under a total of %d, want exactly %d", len(seen), workers, size, total, total/size)
	}
}

func testDeleteFiles(t *testing.T, s broker.Store, fs broker.Attachments) {
	ctx := context.Background()
	id := pendingQuestion(t, s)
	f := broker.File{Name: "a.txt", Type: "text/plain", Size: 2, Data: []byte("hi")}
	one, two := mustPut(t, fs, id, f), mustPut(t, fs, id, f)
	if err := fs.DeleteAttachments(ctx, id, []int{one, 77}); err != nil {
		t.Fatalf("DeleteAttachments with an unknown number: %v", err)
	}
	if _, err := fs.GetAttachment(ctx, id, one); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("deleted file: err = %v, want ErrNotFound", err)
	}
	if _, err := fs.GetAttachment(ctx, id, two); err != nil {
		t.Fatalf("the other file went too: %v", err)
	}
	if err := fs.DeleteAttachments(ctx, newIDs(1)[0], []int{1}); err != nil {
		t.Fatalf("DeleteAttachments on an unknown question: %v", err)
	}
}

func testFilesAfterResolve(t *testing.T, s broker.Store, fs broker.Attachments) {
	id := pendingQuestion(t, s)
	n := mustPut(t, fs, id, broker.File{Name: "a.txt", Type: "text/plain", Size: 2, Data: []byte("hi")})
	r := answeredAt(baseTime(), "Postgres")
	r.Answers["Which database?"] = broker.Answer{Selected: []string{}, CustomText: "[File #1: a.txt]",
		Attachments: []broker.FileRef{{N: n, Name: "a.txt", Type: "text/plain", Size: 2, URL: broker.FileURL(id, n)}}}
	mustResolve(t, s, id, r)
	got, err := fs.GetAttachment(context.Background(), id, n)
	if err != nil || string(got.Data) != "hi" {
		t.Fatalf("file after the answer: %v, %v", got, err)
	}
	q := mustGet(t, s, id)
	if refs := q.Answers["Which database?"].Attachments; len(refs) != 1 || refs[0].URL != broker.FileURL(id, n) {
		t.Fatalf("stored answer lists files %+v, want the one file", refs)
	}
}

func testFilesPurged(t *testing.T, s broker.Store, fs broker.Attachments) {
	ctx := context.Background()
	now := baseTime()
	ids := newIDs(2)
	for _, id := range ids {
		mustCreate(t, s, NewQuestion(id, "a1", now.Add(-3*time.Hour)))
		mustPut(t, fs, id, broker.File{Name: "a.txt", Type: "text/plain", Size: 2, Data: []byte("hi")})
	}
	mustResolve(t, s, ids[0], answeredAt(now.Add(-2*time.Hour), "Postgres"))
	if _, err := s.Purge(ctx, now.Add(-time.Hour)); err != nil {
		t.Fatalf("Purge: %v", err)
	}
	if _, err := fs.GetAttachment(ctx, ids[0], 1); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("file of a purged question: err = %v, want ErrNotFound", err)
	}
	if l, _ := fs.ListAttachments(ctx, ids[0]); len(l) != 0 {
		t.Fatalf("purged question still lists %d files", len(l))
	}
	if _, err := fs.GetAttachment(ctx, ids[1], 1); err != nil {
		t.Fatalf("file of a pending question went with the purge: %v", err)
	}
}
