package main

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/weftrt/weft/intake"
)

// control shows the progress line and obeys signals and typed commands
// until the worker has acked target tasks (never, if target is 0), or it
// is told to quit.
func control(w *intake.Worker, target uint64) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, append(pauseSignals, syscall.SIGINT, syscall.SIGTERM)...)
	defer signal.Stop(sigs)
	cmds := make(chan string)
	go readCommands(cmds) // ends with the process: a read of stdin cannot be interrupted

	p := newProgress(target)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case sig := <-sigs:
			switch {
			case isPause(sig):
				w.Pause()
			case isResume(sig):
				w.Resume()
			default:
				return
			}
		case cmd := <-cmds:
			switch cmd {
			case "p", "pause":
				w.Pause()
			case "r", "resume":
				w.Resume()
			case "s", "stats":
				fmt.Fprintln(os.Stderr)
				printStats(w.Stats())
			case "q", "quit":
				return
			case "":
			default:
				fmt.Fprintf(os.Stderr, "\nunknown command %q: p(ause), r(esume), s(tats), q(uit)\n", cmd)
			}
		case <-tick.C:
		}
		s := w.Stats()
		p.show(s)
		if target > 0 && s.Acked+s.Terminated >= target {
			return
		}
	}
}

func readCommands(cmds chan<- string) {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		cmds <- strings.TrimSpace(sc.Text())
	}
}
