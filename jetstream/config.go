package weftjs

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
	// workers; it must exceed the sum of their slots and of their
	// settlements in flight (intake.Config.MaxSettling: by default twice
	// the slots). Default 1000.
	MaxAckPending int

	// PollWait is how long a poll that finds the queue empty waits for a
	// task before returning empty. Default 5s.
	PollWait time.Duration

	// Storage is the stream's storage. Default file storage.
	Storage natsjs.StorageType
	// Replicas is the stream's replica count. Default 1.
	Replicas int

	// DeadLetterStream is the stream where terminated tasks are kept, each
	// with its payload, its headers and Weft-Dead-* headers that say why
	// (see DeadLetter), for Replay to put back. Default: the stream's
	// name followed by "_DEAD" ("WEFT_TASKS_DEAD"). Created unless it
	// exists or BindOnly (limits retention, file storage).
	DeadLetterStream string
	// DeadLetterSubject is the subject terminated tasks are published to;
	// it must be one of DeadLetterStream's subjects. Default: the stream's
	// name in lower case, then "_dead" ("weft_tasks_dead").
	DeadLetterSubject string
	// NoDeadLetter turns the dead-letter stream off: a terminated task is
	// then gone, known only from the server's advisory.
	NoDeadLetter bool

	// OnError, if set, is told about what the source handles by itself:
	// messages set aside (not tasks), hand-backs of messages that came
	// outside a poll that failed, the failure of a keyed poll's pull that
	// came after other pulls had brought tasks (see Source.Poll). It must
	// not block.
	OnError func(error)

	// Partitions, when > 0, turns on keyed work (see docs/jetstream.md,
	// Keyed tasks): the stream gets a subject transform that stores a
	// task published to "<base>.k.<token>" (PublishKeyed) on
	// "<base>.p.<partition>", the partition being the server's hash of
	// the key's token modulo Partitions (the key itself travels in the
	// HeaderKeyToken header), and the source reads
	// one durable pull consumer per partition ("<Consumer>_p<i>"), each
	// pinned to one worker process at a time, the partitions shared out
	// evenly among the live workers. Unkeyed tasks ("<base>.<token>",
	// Publish) are read as before, through Consumer, filtered to them.
	// Subjects must then be one subject "<base>.>" (the default). 0: no
	// partitions, the source works as it always did. At most
	// MaxPartitions. Every worker of a stream must agree on it.
	Partitions int
	// PinnedTTL is how long a partition stays pinned to a worker that
	// has stopped asking for its tasks (died, hung, cut off): then it
	// moves to another. The worker asks at least every third of it,
	// busy or not. Default: AckWait, so that the tasks a dead worker held
	// are due for redelivery when its partitions move, and go first.
	PinnedTTL time.Duration
	// MemberTTL is how long a worker's entry in the member bucket lasts
	// without a refresh (it refreshes every third of it): a dead worker's
	// partitions are shared out again once it has expired (and PinnedTTL
	// passed). Default 10s, at most PinnedTTL.
	MemberTTL time.Duration
	// MemberBucket is the JetStream key-value bucket where workers list
	// themselves. Default: the stream's name followed by "_MEMBERS".
	MemberBucket string
	// MemberID names this worker in the member bucket; it must be unique
	// among the live workers. Default: a random one. A worker restarted
	// under the same ID may list itself before the old one's Close: that
	// Close leaves the newer entry in place.
	MemberID string

	// OnPartitions, if set, is told the partitions assigned to this
	// worker each time they change (an empty list: none). It must not
	// block.
	OnPartitions func(owned []int)

	// BindOnly makes NewSource only look the stream and the consumer up,
	// never create them: for deployments that provision JetStream
	// separately. (Without it, missing ones are created from this Config;
	// existing ones are never changed.)
	BindOnly bool
}

// MinAckWait is the shortest AckWait a Source accepts: the worker's
// InProgress heartbeats go out every third of it, and a lease that
// short makes it lapse at a pause of the process, so tasks run
// twice; below 100ms a single round trip can use it up. (An AckWait of
// 30ns is a unit slip for 30s.)
const MinAckWait = 100 * time.Millisecond

// MaxPartitions bounds Config.Partitions: each partition is a consumer
// on the server, and a worker sweeps the ones it owns on every poll.
const MaxPartitions = 1024

// MinMemberTTL is the shortest PinnedTTL and MemberTTL a Source accepts:
// a worker refreshes both every third of them.
const MinMemberTTL = 300 * time.Millisecond

// MinPollWait is the shortest PollWait a Source accepts: the server
// takes a pull request's expiry in whole milliseconds, and a shorter wait
// would poll in a tight loop.
const MinPollWait = 10 * time.Millisecond

func (c Config) withDefaults() (Config, error) {
	// Negative durations were once taken as "the default": refuse them,
	// as they are surely a mistake.
	if c.AckWait < 0 || (c.AckWait > 0 && c.AckWait < MinAckWait) {
		return c, fmt.Errorf("%w: AckWait %v: want 0 (the default, 30s) or at least %v (the worker's heartbeats, a third of it, must reach the server in time)", ErrConfig, c.AckWait, MinAckWait)
	}
	if c.PollWait < 0 || (c.PollWait > 0 && c.PollWait < MinPollWait) {
		return c, fmt.Errorf("%w: PollWait %v: want 0 (the default, 5s) or at least %v", ErrConfig, c.PollWait, MinPollWait)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"MaxDeliver", c.MaxDeliver}, {"MaxAckPending", c.MaxAckPending}, {"Replicas", c.Replicas}} {
		if f.v < 0 {
			return c, fmt.Errorf("%w: %s %d: want >= 0 (0: the default)", ErrConfig, f.name, f.v)
		}
	}
	for _, subj := range c.Subjects {
		if err := checkSubject(subj, true); err != nil {
			return c, fmt.Errorf("%w: Subjects: %w", ErrConfig, err)
		}
	}
	if c.DeadLetterSubject != "" {
		if err := checkSubject(c.DeadLetterSubject, false); err != nil {
			return c, fmt.Errorf("%w: DeadLetterSubject: %w", ErrConfig, err)
		}
	}
	if c.Partitions < 0 || c.Partitions > MaxPartitions {
		return c, fmt.Errorf("%w: Partitions %d: want 0 (no keyed work) to %d", ErrConfig, c.Partitions, MaxPartitions)
	}
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"PinnedTTL", c.PinnedTTL}, {"MemberTTL", c.MemberTTL}} {
		if f.v < 0 || (f.v > 0 && f.v < MinMemberTTL) {
			return c, fmt.Errorf("%w: %s %v: want 0 (the default) or at least %v", ErrConfig, f.name, f.v, MinMemberTTL)
		}
	}
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
	if c.DeadLetterStream == "" {
		c.DeadLetterStream = c.Stream + "_DEAD"
	}
	if c.DeadLetterSubject == "" {
		c.DeadLetterSubject = strings.ToLower(c.Stream) + "_dead"
	}
	if !c.NoDeadLetter {
		// Records stored in the work stream, or on one of its subjects,
		// would be tasks again: run, acked, and gone from the dead letters.
		if c.DeadLetterStream == c.Stream {
			return c, fmt.Errorf("%w: DeadLetterStream %s is the work stream: its records would be run as tasks (name another stream, or set NoDeadLetter)", ErrConfig, c.DeadLetterStream)
		}
		for _, subj := range c.Subjects {
			if subjectMatches(subj, c.DeadLetterSubject) {
				return c, fmt.Errorf("%w: DeadLetterSubject %s is one of the work stream's subjects (%s): its records would be run as tasks", ErrConfig, c.DeadLetterSubject, subj)
			}
		}
	}
	if c.Partitions > 0 {
		if len(c.Subjects) != 1 || !strings.HasSuffix(c.Subjects[0], ".>") {
			return c, fmt.Errorf("%w: Subjects %q with Partitions %d: want one subject \"<base>.>\" (keyed tasks go to <base>.k.<token>, are stored on <base>.p.<partition>, unkeyed ones on <base>.<token>)", ErrConfig, c.Subjects, c.Partitions)
		}
		if c.PinnedTTL == 0 {
			c.PinnedTTL = c.AckWait
		}
		if c.MemberTTL == 0 {
			c.MemberTTL = min(10*time.Second, c.PinnedTTL)
		}
		if c.MemberTTL > c.PinnedTTL {
			return c, fmt.Errorf("%w: MemberTTL %v above PinnedTTL %v: a dead worker's partitions cannot move before its pins lapse anyway, and its entry would keep them assigned to it after", ErrConfig, c.MemberTTL, c.PinnedTTL)
		}
		if c.MemberBucket == "" {
			c.MemberBucket = c.Stream + "_MEMBERS"
		}
	}
	return c, nil
}

// checkSubject checks a subject as NATS reads it: dot-separated tokens,
// none empty or holding white space, "*" and ">" only as whole tokens and
// ">" only last. Wildcards are refused where a subject is published to.
func checkSubject(subj string, wildcards bool) error {
	if subj == "" {
		return fmt.Errorf("empty subject")
	}
	toks := strings.Split(subj, ".")
	for i, tok := range toks {
		switch {
		case tok == "":
			return fmt.Errorf("subject %q has an empty token (a leading, trailing or double dot)", subj)
		case strings.ContainsAny(tok, " \t\r\n"):
			return fmt.Errorf("subject %q holds white space", subj)
		case tok == "*" || tok == ">":
			if !wildcards {
				return fmt.Errorf("subject %q: a wildcard cannot be published to", subj)
			}
			if tok == ">" && i != len(toks)-1 {
				return fmt.Errorf("subject %q: \">\" must be the last token", subj)
			}
		case strings.ContainsAny(tok, "*>"):
			return fmt.Errorf("subject %q: token %q: a wildcard must be a whole token (did you mean %q?)", subj, tok, strings.TrimRight(tok, "*>")+".>")
		}
	}
	return nil
}

// deadLetterStreamConfig is the dead-letter stream NewSource creates when
// it is missing: limits retention, so that replaying or inspecting it
// needs no consumer of its own.
func (c Config) deadLetterStreamConfig() natsjs.StreamConfig {
	return natsjs.StreamConfig{
		Name:     c.DeadLetterStream,
		Subjects: []string{c.DeadLetterSubject},
		Storage:  c.Storage,
		Replicas: c.Replicas,
	}
}

func (c Config) streamConfig() natsjs.StreamConfig {
	return natsjs.StreamConfig{
		Name:             c.Stream,
		Subjects:         c.Subjects,
		Retention:        natsjs.WorkQueuePolicy,
		Storage:          c.Storage,
		Replicas:         c.Replicas,
		SubjectTransform: c.partitionTransform(),
	}
}

// base is the stream's subject less its trailing ".>", with Partitions.
func (c Config) base() string { return strings.TrimSuffix(c.Subjects[0], ".>") }

// keyedPrefix is where keyed tasks are published (PublishKeyed).
func (c Config) keyedPrefix() string { return c.base() + ".k" }

// partitionSubject is what partition i's consumer reads.
func (c Config) partitionSubject(i int) string { return fmt.Sprintf("%s.p.%d", c.base(), i) }

// partitionTransform maps a keyed subject to its partition's with the
// server's deterministic partition function (server 2.10+), which hashes
// the key's token: a key always lands in the same partition, and
// messages of one key keep their publish order there. The token is left
// out of the stored subject, so that a partition's consumer filters on a
// literal subject: with the token kept, the filter ended in a wildcard,
// and finding a partition's next message was the server's largest cost
// per keyed task (see docs/figures.md, Keyed tasks).
func (c Config) partitionTransform() *natsjs.SubjectTransformConfig {
	if c.Partitions == 0 {
		return nil
	}
	return &natsjs.SubjectTransformConfig{
		Source:      c.keyedPrefix() + ".*",
		Destination: fmt.Sprintf("%s.p.{{partition(%d,1)}}", c.base(), c.Partitions),
	}
}

// pinGroup is the priority group every partition consumer has.
const pinGroup = "weft"

// partitionConsumerConfig is partition i's consumer: pinned to one
// client at a time (server 2.11+), filtered to its partition.
func (c Config) partitionConsumerConfig(i int) natsjs.ConsumerConfig {
	cc := c.consumerConfig()
	cc.Durable = fmt.Sprintf("%s_p%d", c.Consumer, i)
	cc.FilterSubject = c.partitionSubject(i)
	cc.PriorityPolicy = natsjs.PriorityPolicyPinned
	cc.PinnedTTL = c.PinnedTTL
	cc.PriorityGroups = []string{pinGroup}
	return cc
}

func (c Config) consumerConfig() natsjs.ConsumerConfig {
	maxDeliver := c.MaxDeliver
	if maxDeliver == 0 {
		maxDeliver = -1 // the server's "no limit"
	}
	cc := natsjs.ConsumerConfig{
		Durable:       c.Consumer,
		AckPolicy:     natsjs.AckExplicitPolicy,
		AckWait:       c.AckWait,
		MaxDeliver:    maxDeliver,
		MaxAckPending: c.MaxAckPending,
	}
	if c.Partitions > 0 {
		// On a work queue no two consumers may read one subject: the
		// unkeyed one reads the one-token subjects under the base, and
		// the partitions' have two tokens there.
		cc.FilterSubject = c.base() + ".*"
	}
	return cc
}

// subjectMatches reports whether the literal subject subj matches
// pattern, which may hold wildcards.
func subjectMatches(pattern, subj string) bool {
	pt, st := strings.Split(pattern, "."), strings.Split(subj, ".")
	for i, p := range pt {
		switch {
		case p == ">":
			return len(st) > i
		case i >= len(st):
			return false
		case p != "*" && p != st[i]:
			return false
		}
	}
	return len(pt) == len(st)
}
