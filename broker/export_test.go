package broker

// UpdateCopies lets the external tests hand a version of a question to the
// copy edits, as a change seen late would.
func (b *Broker) UpdateCopies(q *Question) { b.updateCopies(q) }

// What the external tests of the package reach that is not exported.
var (
	SniffFileType  = sniffFileType
	FormatDuration = formatDuration
)
