package i18n

// The broker's refusals of a typed answer (not an option, a field's rule
// broken, a file where none is taken), the refusals given with no question
// loaded, the list of open questions (/pending) and the mark ending a
// shortened text: message ids "answer.*", "pending.*" and "text.*".

var enAnswers = Catalog{}

var deAnswers = Catalog{}

var jaAnswers = Catalog{}
