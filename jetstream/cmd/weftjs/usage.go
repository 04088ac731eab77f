package main

import (
	"flag"
	"fmt"
)

// mainUsage is what `weftjs -h` prints before the flags.
const mainUsage = `Usage:
  weftjs [flags]
  weftjs replay -url URL [flags]

weftjs runs a weft task worker on a NATS JetStream work queue and shows
its progress on one line. Without -url it starts a NATS server inside the
process (JetStream in a temporary directory, or -store), publishes -tasks
tasks and works through them, each taking -work of simulated work, then
exits (-stay: keeps running). With -url it works on a real NATS server or cluster instead, on
its own demo stream and consumer (-stream, -consumer): its handler only
simulates work and acks what it takes, so never point it at a stream that
holds real tasks. Flags that cannot work are refused before anything
starts.

Subcommand:
  replay  put the tasks the workers gave up on (terminated, and kept in
          the dead-letter stream) back on the work queue; see weftjs replay -h

While it runs, type a command and Enter:
  p, pause   stop taking tasks (those running finish, those polled go back)
  r, resume  take tasks again
  s, stats   print the worker's counters
  q, quit    shut down gracefully, as when the tasks are done
SIGUSR1 and SIGUSR2 pause and resume it too; SIGINT and SIGTERM shut it
down gracefully: the tasks running finish and are acked, the rest go back
to the stream.

Examples:
  # embedded server: publish 5000 tasks of 5ms, run 32 at a time
  weftjs -tasks 5000 -work 5ms -slots 32

  # a worker on a real cluster, taking what producers publish until stopped
  weftjs -url nats://n1:4222,nats://n2:4222 -creds worker.creds -tasks 0 -stay

Flags:
`

// replayUsage is what `weftjs replay -h` prints before the flags.
const replayUsage = `Usage:
  weftjs replay -url URL [-stream WEFT_TASKS] [-dead NAME] [-n N] [flags]

Puts the tasks the workers gave up on back on the work queue: each record
of the dead-letter stream (by default the stream's name followed by _DEAD)
is published to the subject it came from, with its payload and headers and
a fresh delivery count, then deleted from the dead-letter stream. Use it
once the cause is fixed (a bug in the handler, a service that was down).
It needs a real server: the dead-letter stream lives there.

Examples:
  # look at the records first
  nats stream view WEFT_TASKS_DEAD
  # put back the 10 oldest
  weftjs replay -url nats://n1:4222 -stream WEFT_TASKS -n 10

Flags:
`

// printUsage writes text and then fs's flags, with their defaults, to
// fs's output.
func printUsage(fs *flag.FlagSet, text string) {
	fmt.Fprint(fs.Output(), text)
	fs.PrintDefaults()
}
