package i18n

// The chat platforms' own dialogs around a card: Telegram's reply-box
// prompts and toasts, Slack's and Discord's modals: message ids
// "dialog.*".

var enDialogs = Catalog{}

var deDialogs = Catalog{}

var jaDialogs = Catalog{}
