package clientcmd

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/cmdline"
)

// minQuestion is the least width of the question column on a narrow
// terminal: below it, the options column is cut too.
const minQuestion = 16

// printList writes the table of `bridge list`. With width > 0 (a
// terminal's) every line fits it: the question, then if need be the
// options, are cut with "…". Widths are counted in runes, as tabwriter
// aligns the columns.
func printList(w io.Writer, qs []client.Result, width int) error {
	rows := [][]string{{"ID", "STATUS", "EXPIRES", "QUESTION", "OPTIONS"}}
	for _, q := range qs {
		text, opts := "", ""
		if len(q.Questions) > 0 {
			text = cmdline.Printable(q.Questions[0].Question, false)
			for i, o := range q.Questions[0].Options {
				opts += fmt.Sprintf("%d=%s ", i+1, cmdline.Printable(o.Label, false))
			}
		}
		rows = append(rows, []string{q.ID, string(q.Status), q.ExpiresAt.Local().Format("15:04:05"), text, strings.TrimSpace(opts)})
	}
	if width > 0 {
		fitColumns(rows, width)
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

// fitColumns cuts the question column (index 3), and the options column
// (4) when the question would get fewer than minQuestion columns, so that
// each row fits width with tabwriter's padding of 2.
func fitColumns(rows [][]string, width int) {
	const pad = 2
	colWidth := func(c int) int {
		n := 0
		for _, r := range rows {
			n = max(n, utf8.RuneCountInString(r[c]))
		}
		return n
	}
	fixed := 0
	for c := range 3 {
		fixed += colWidth(c) + pad
	}
	room := width - fixed - pad // the question column's padding
	opts := colWidth(4)
	question := room - opts
	if question < minQuestion {
		// Share what is left, neither column narrower than its heading:
		// a terminal narrower than that gets lines longer than it.
		question = max(min(minQuestion, room/2), utf8.RuneCountInString(rows[0][3]))
		opts = max(room-question, utf8.RuneCountInString(rows[0][4]))
	}
	for _, r := range rows[1:] {
		r[3] = cut(r[3], question)
		r[4] = cut(r[4], opts)
	}
}

// cut returns s in at most n runes, ending with "…" when it was longer.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
