package broker

// ResponderPeople returns the ids of the people responder entries name,
// each once, in the order first named: a person, a group's people, and
// the people whose accounts an account entry names. Roles name nobody the
// directory can list, and malformed entries nobody at all. An empty list
// (anyone in the question's chats may answer) names nobody either: the
// caller decides what "anyone" means where it sends.
func ResponderPeople(entries []string, d *People) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range entries {
		r, err := parseResponder(e)
		if err != nil {
			continue
		}
		ids, _ := r.people(d)
		for _, id := range ids {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}
