// Package outboxconfig is the outbox section of the configuration file:
// how long an ask waits for the first attempts of its posts (grace), and
// how fast the bridge sends to each platform (pacing, as "N/s", "N/min",
// "N/h" or "off"). Validate names a bad key and its value; AskGrace gives
// the broker its grace, and Delivery the outbox's configuration over the
// platforms' published limits (outbox.DefaultPacing). It lives apart from
// the broker and its outbox, which read no configuration file.
package outboxconfig
