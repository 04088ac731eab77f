// Package embedded runs a NATS server with JetStream inside the process,
// for tests and the example command: nothing to install.
package embedded
