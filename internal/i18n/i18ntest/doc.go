// Package i18ntest finds text that did not come from a catalog, for tests
// that render in the pseudo-locale (en-XA), where every catalog text is in
// brackets.
//
// Untranslated takes a text as a person would read it (markup and emoji
// may stay), removes what is meant to pass unchanged (the agent's texts,
// names, commands), then every bracketed text from the innermost out, and
// returns the words that are left: each one a text that a catalog should
// have supplied.
package i18ntest
