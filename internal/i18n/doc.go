// Package i18n holds the words people read, in every language the bridge
// speaks, and picks the language for a reader.
//
// A message has an id ("card.expires") and a form per locale: one text, or
// plural forms chosen by one of its arguments under the language's CLDR
// rules (German: one and other; Japanese: other only). English (en) is the
// source; German (de) and Japanese (ja) are translations of it; en-XA is a
// pseudo-locale generated from English, every text bracketed and made 40 %
// longer with its placeholders kept, so a test can see any text that did
// not come from the catalog and any layout that breaks on longer words.
//
// Formatting is golang.org/x/text/message: the catalogs are Go tables
// (en.go, de.go, ja.go) loaded into one catalog.Builder when first used,
// and a Printer per locale formats with fmt's verbs. A message missing from
// a catalog is a test failure (TestCatalogsComplete), not a silent English
// fallback.
//
// Choosing the language is the caller's: Parse checks a configured tag and
// returns the supported locale it names; Negotiate reads a browser's
// Accept-Language. The package imports nothing of the bridge.
package i18n
