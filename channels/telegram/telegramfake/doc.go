// Package telegramfake is a fake Telegram Bot API server for tests. It
// speaks the Bot API's real JSON over HTTP (success envelopes, error bodies
// such as {"ok":false,"error_code":429,...,"parameters":{"retry_after":3}}),
// keeps the messages a bot sent and edited the way a Telegram client would
// show them (documents sent with sendDocument included, and replies named
// by reply_parameters or reply_to_message_id), and lets tests act as people: tap a button, send a command,
// reply to a message, send a photo or a document (served by getFile and
// the file download path, /file/bot<token>/<file_path>). Updates are delivered the way the bot asked for them:
// through long-polled getUpdates, or POSTed to the webhook set with
// setWebhook (with its secret token header).
//
// The server parses HTML parse mode like Telegram does (supported tags
// only, every "<" escaped), so a message a bot failed to escape comes back
// as "Bad Request: can't parse entities", as it would in production.
package telegramfake
