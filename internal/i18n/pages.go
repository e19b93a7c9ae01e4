package i18n

// The web inbox's pages beside the inbox (the Rules page), its push
// notifications' own words and its <noscript> line: message ids "rules.*",
// "push.*" and "page.*".

var enPages = Catalog{}

var dePages = Catalog{}

var jaPages = Catalog{}
