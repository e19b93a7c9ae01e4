// Package outboxconfig is the outbox section of the configuration file:
// how long an ask waits for the first attempts of its posts (grace), and
// how fast the bridge sends to each platform (pacing, as "N/s", "N/min",
// "N/h" or "off"). Validate names a bad key and its value; Broker turns
// the section into the broker's OutboxConfig over the platforms'
// published limits (broker.DefaultPacing). It lives apart from the
// broker, which reads no configuration file.
package outboxconfig
