package jetstream

import (
	"fmt"
	"strings"
	"time"

	natsjs "github.com/nats-io/nats.go/jetstream"
)

// Config names the stream and the consumer a Source reads, and how it
// reads. The zero Config gives the defaults.
type Config struct {
	// Stream is the work-queue stream's name. Default "WEFT_TASKS".
	Stream string
	// Subjects are the stream's subjects, where producers publish tasks.
	// Default: the stream's name in lower case, then ".>" ("weft_tasks.>").
	Subjects []string
	// Consumer is the durable pull consumer's name, shared by every worker
	// process that takes from the stream. Default "weft".
	Consumer string

	// AckWait is the lease: a task neither settled nor extended within it
	// is delivered again. The worker extends it for long tasks (Leaser).
	// Default 30s.
	AckWait time.Duration
	// MaxDeliver is how often the server delivers a task at most (0: no
	// limit). Give the worker a MaxDeliveries one lower, so that it
	// terminates a task that keeps failing (deleting it from the work
	// queue) instead of the server giving up on it silently, and
	// terminates unrun the task delivered one time more (it crashed the
	// processes that ran it).
	MaxDeliver int
	// MaxAckPending bounds the tasks delivered and not settled across all
	// workers; it must exceed the sum of their slots. Default 1000.
	MaxAckPending int

	// PollWait is how long a poll that finds the queue empty waits for a
	// task before returning empty. Default 5s.
	PollWait time.Duration

	// Storage is the stream's storage. Default file storage.
	Storage natsjs.StorageType
	// Replicas is the stream's replica count. Default 1.
	Replicas int

	// BindOnly makes NewSource only look the stream and the consumer up,
	// never create them: for deployments that provision JetStream
	// separately. (Without it, missing ones are created from this Config;
	// existing ones are never changed.)
	BindOnly bool
}

func (c Config) withDefaults() (Config, error) {
	if c.Stream == "" {
		c.Stream = "WEFT_TASKS"
	}
	if len(c.Subjects) == 0 {
		c.Subjects = []string{strings.ToLower(c.Stream) + ".>"}
	}
	if c.Consumer == "" {
		c.Consumer = "weft"
	}
	if c.AckWait <= 0 {
		c.AckWait = 30 * time.Second
	}
	if c.MaxAckPending == 0 {
		c.MaxAckPending = 1000
	}
	if c.PollWait <= 0 {
		c.PollWait = 5 * time.Second
	}
	if c.Replicas == 0 {
		c.Replicas = 1
	}
	if c.MaxDeliver < 0 || c.MaxAckPending < 0 || c.Replicas < 0 {
		return c, fmt.Errorf("weft/jetstream: negative MaxDeliver, MaxAckPending or Replicas")
	}
	return c, nil
}

func (c Config) streamConfig() natsjs.StreamConfig {
	return natsjs.StreamConfig{
		Name:      c.Stream,
		Subjects:  c.Subjects,
		Retention: natsjs.WorkQueuePolicy,
		Storage:   c.Storage,
		Replicas:  c.Replicas,
	}
}

func (c Config) consumerConfig() natsjs.ConsumerConfig {
	maxDeliver := c.MaxDeliver
	if maxDeliver == 0 {
		maxDeliver = -1 // the server's "no limit"
	}
	return natsjs.ConsumerConfig{
		Durable:       c.Consumer,
		AckPolicy:     natsjs.AckExplicitPolicy,
		AckWait:       c.AckWait,
		MaxDeliver:    maxDeliver,
		MaxAckPending: c.MaxAckPending,
	}
}
