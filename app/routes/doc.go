// Package routes is the routes section of the configuration file: where
// questions go (targets, responders), when they time out, the reminders,
// and the team policies of each route (a quorum of approvers, no
// self-approval, snoozes, escalation steps; docs/policies.md). Config
// checks the section against the configured channels in Validate,
// reporting every problem with its key, and Broker turns it into the
// broker's routes. The rules themselves are the broker's
// (broker.ValidatePolicy, ValidateEscalation and their kin); this package
// reads them from the file.
package routes
