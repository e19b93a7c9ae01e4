package hooks

import "strings"

// A rough reader of shell scripts, enough to tell which words are
// commands: the risk checks (risk.go) must not take `echo "rm -rf"` for a
// deletion, and must find `curl … | sh` inside $(…), backticks, <(…),
// subshells and here-documents fed to a shell. It knows quoting, escapes,
// separators, pipes, redirections and substitutions; it does not expand
// anything, and reads control words (if, then, do, {) as words to skip.

// shScript is a script: its simple commands in order.
type shScript struct {
	cmds []*shCmd
}

// shCmd is one simple command.
type shCmd struct {
	// words are its words with quotes and escapes removed; a substitution
	// stands as "$(…)".
	words  []string
	redirs []shRedir
	// subs are the scripts of its substitutions ($(…), `…`, <(…), >(…))
	// and of a subshell ( … ) standing in its place.
	subs []*shScript
	// heredoc is the body of its here-document, if any.
	heredoc string
	// pipeline numbers the pipelines of the script: the commands joined
	// by | share one.
	pipeline int
}

// shRedir is a redirection: its operator (">", ">>", "<", "<<", …) and
// its target word.
type shRedir struct{ op, target string }

// substitution stands in a word for the output of a nested script.
const substitution = "$(…)"

type shParser struct {
	s string
	i int
}

// parseShell reads script s.
func parseShell(s string) *shScript {
	p := &shParser{s: s}
	return p.list(0)
}

// list reads commands until the end, or until an unmatched stop byte
// (")" of a substitution or a subshell), which it consumes.
func (p *shParser) list(stop byte) *shScript {
	sc := &shScript{}
	pipeline := 0
	cur := &shCmd{}
	var word strings.Builder
	inWord := false
	redirOp := "" // the operator waiting for its target word
	var heredocs []*shCmd
	flush := func() {
		if !inWord {
			return
		}
		w := word.String()
		word.Reset()
		inWord = false
		if redirOp != "" {
			if redirOp == "<<" || redirOp == "<<-" {
				cur.heredoc = redirOp + "\x00" + w // delimiter, read at the line's end
				heredocs = append(heredocs, cur)
			}
			cur.redirs = append(cur.redirs, shRedir{redirOp, w})
			redirOp = ""
			return
		}
		cur.words = append(cur.words, w)
	}
	end := func(piped bool) {
		flush()
		redirOp = ""
		if len(cur.words) > 0 || len(cur.redirs) > 0 || len(cur.subs) > 0 {
			cur.pipeline = pipeline
			sc.cmds = append(sc.cmds, cur)
		}
		if !piped {
			pipeline++
		}
		cur = &shCmd{}
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		next := p.at(p.i + 1)
		switch {
		case c == ')' && stop == ')':
			p.i++
			end(false)
			return sc
		case c == ' ' || c == '\t' || c == '\r':
			flush()
			p.i++
		case c == '\n':
			end(false)
			p.i++
			for _, h := range heredocs {
				p.readHeredoc(h)
			}
			heredocs = nil
		case c == ';', c == ')':
			end(false)
			p.i++
		case c == '&' && next == '>':
			flush()
			p.i += 2
			redirOp = "&>"
			if p.at(p.i) == '>' {
				p.i++
				redirOp = "&>>"
			}
		case c == '&':
			end(false)
			p.i++
			if next == '&' {
				p.i++
			}
		case c == '|' && next == '|':
			end(false)
			p.i += 2
		case c == '|':
			end(true)
			p.i++
			if next == '&' {
				p.i++
			}
		case c == '(' && !inWord:
			p.i++
			cur.subs = append(cur.subs, p.list(')'))
		case c == '#' && !inWord:
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		case c == '\'':
			inWord = true
			k := strings.IndexByte(p.s[p.i+1:], '\'')
			if k < 0 {
				k = len(p.s) - p.i - 1
			}
			word.WriteString(p.s[p.i+1 : p.i+1+k])
			p.i += k + 2
		case c == '"':
			inWord = true
			p.i++
			p.doubleQuoted(&word, cur)
		case c == '\\':
			inWord = true
			if next == '\n' {
				inWord = word.Len() > 0
			} else if p.i+1 < len(p.s) {
				word.WriteByte(next)
			}
			p.i += 2
		case c == '$' && next == '(' || c == '`':
			inWord = true
			p.substitute(&word, cur)
		case (c == '<' || c == '>') && next == '(':
			inWord = true
			p.i += 2
			cur.subs = append(cur.subs, p.list(')'))
			word.WriteString(substitution)
		case c == '<' || c == '>':
			// A word of digits just before is the descriptor: 2>file.
			if inWord && strings.Trim(word.String(), "0123456789") == "" {
				word.Reset()
				inWord = false
			}
			flush()
			k := p.i + 1
			for k < len(p.s) && strings.IndexByte("<>|&-", p.s[k]) >= 0 && k-p.i < 3 {
				k++
			}
			redirOp = p.s[p.i:k]
			p.i = k
		default:
			inWord = true
			word.WriteByte(c)
			p.i++
		}
	}
	end(false)
	return sc
}

func (p *shParser) at(i int) byte {
	if i < len(p.s) {
		return p.s[i]
	}
	return 0
}

// doubleQuoted reads the rest of a "…" string into word; substitutions
// inside it run, so their scripts join cur's.
func (p *shParser) doubleQuoted(word *strings.Builder, cur *shCmd) {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return
		case c == '\\' && p.i+1 < len(p.s):
			if strings.IndexByte("$`\"\\\n", p.s[p.i+1]) < 0 {
				word.WriteByte(c)
			}
			word.WriteByte(p.s[p.i+1])
			p.i += 2
		case c == '$' && p.at(p.i+1) == '(' || c == '`':
			p.substitute(word, cur)
		default:
			word.WriteByte(c)
			p.i++
		}
	}
}

// substitute reads a $(…), $((…)) or `…` at p.i.
func (p *shParser) substitute(word *strings.Builder, cur *shCmd) {
	if p.s[p.i] == '`' {
		var body strings.Builder
		k := p.i + 1
		for ; k < len(p.s) && p.s[k] != '`'; k++ {
			if p.s[k] == '\\' && k+1 < len(p.s) {
				k++
			}
			body.WriteByte(p.s[k])
		}
		p.i = k + 1
		cur.subs = append(cur.subs, parseShell(body.String()))
		word.WriteString(substitution)
		return
	}
	if p.at(p.i+2) == '(' { // arithmetic: nothing runs
		depth := 0
		for ; p.i < len(p.s); p.i++ {
			switch p.s[p.i] {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 {
				p.i++
				break
			}
		}
		word.WriteString("$((…))")
		return
	}
	p.i += 2
	cur.subs = append(cur.subs, p.list(')'))
	word.WriteString(substitution)
}

// readHeredoc reads the body of h's here-document, the lines up to its
// delimiter, starting at p.i (the line after the command).
func (p *shParser) readHeredoc(h *shCmd) {
	op, delim, _ := strings.Cut(h.heredoc, "\x00")
	var body strings.Builder
	for p.i < len(p.s) {
		line, _, _ := strings.Cut(p.s[p.i:], "\n")
		p.i += len(line) + 1
		check := line
		if op == "<<-" {
			check = strings.TrimLeft(line, "\t")
		}
		if check == delim {
			break
		}
		body.WriteString(line + "\n")
	}
	p.i = min(p.i, len(p.s))
	h.heredoc = body.String()
}
