package channeltest

import (
	"strings"
	"unicode/utf8"
)

// HookContext is a question context of exactly n characters (n ≥ 200)
// laid out as `bridge hook claude` writes it for a command whose preview
// is shortened: who asks, the directory and the session, then "Full
// command:" and the whole command. The command is long shell with
// $(…), quotes, backticks, < > &, markdown and mention characters and a
// few non-ASCII letters, on several lines, so that a channel showing or
// attaching it must keep every byte as it is. It ends in a letter.
func HookContext(n int) string {
	head := "Claude Code asks for permission.\n" +
		"Reason: Format the Go files and record which changed\n" +
		"Directory: /home/dev/src/askbridge\n" +
		"Session: claude:7f3c9e2a-41d0-4b8e-9a51-2c6f0d8e1b37 (permission mode default)\n\n" +
		"Full command:\n"
	step := []string{
		`for f in $(git ls-files '*.go' | grep -v '_test.go$'); do gofmt -l "$f" && echo "<$f> & changed"; done`,
		` && printf '%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >> /tmp/fmt.log`,
		" && echo `whoami` *bold* _it_ ~strike~ |pipe| @here @everyone <@U123> #general [x](http://e.x) café 語 \\\n",
	}
	var b strings.Builder
	b.WriteString(head)
	for i := 0; utf8.RuneCountInString(b.String()) < n; i++ {
		b.WriteString(step[i%len(step)])
	}
	r := []rune(b.String())[:n]
	r[n-1] = 'x' // never ends in white space or half an escape
	return string(r)
}
