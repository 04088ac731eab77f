package scheduler_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/scheduler"
)

// crashCloseChildEnv makes this test binary, re-executed by
// TestDetachedPanicCrashesBeforeClose, run the child's side of that test.
const crashCloseChildEnv = "WEFT_CRASH_CLOSE_CHILD"

// A detached task's unhandled panic, and a panic handler's own panic
// (even one that re-raises a task's Goexit it was handed), crash the
// program (docs/faults.md): that must hold even when the program closes
// the pool and exits right after. Close returns once the workers
// have exited; if the crash is only on its way, on a goroutine that has
// not run yet, the program can end first and the panic is lost. The
// child exits 0 only if it got past Close and the crash never came.
func TestDetachedPanicCrashesBeforeClose(t *testing.T) {
	if mode := os.Getenv(crashCloseChildEnv); mode != "" {
		var opts []scheduler.Option
		task := func(*scheduler.Worker) { panic("detached task's panic") }
		switch mode {
		case "panicking-handler":
			opts = append(opts, scheduler.WithPanicHandler(func(*scheduler.Panic) { panic("the handler's own panic") }))
		case "handler-repanics-goexit":
			// A handler that re-raises what it is given, here a task's
			// Goexit: a panic like any other, which it chose to raise.
			opts = append(opts, scheduler.WithPanicHandler(func(p *scheduler.Panic) { panic(p) }))
			task = func(*scheduler.Worker) { runtime.Goexit() }
		}
		p, err := scheduler.New(append(opts, scheduler.WithWorkers(2))...)
		if err != nil {
			panic(err)
		}
		if err := p.Spawn(context.Background(), task); err != nil {
			panic(err)
		}
		p.Close()
		os.Exit(0) // the crash was lost
	}
	if testing.Short() {
		t.Skip("runs child processes")
	}
	for _, c := range []struct{ mode, crash string }{
		{"no-handler", "detached task's panic"},
		{"panicking-handler", "the handler's own panic"},
		{"handler-repanics-goexit", "runtime.Goexit"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			for i := range 20 {
				cmd := exec.Command(os.Args[0], "-test.run=^TestDetachedPanicCrashesBeforeClose$", "-test.count=1")
				cmd.Env = append(os.Environ(), crashCloseChildEnv+"="+c.mode)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				require.NoError(t, cmd.Start())
				exited := make(chan struct{})
				go func() { _ = cmd.Wait(); close(exited) }()
				select {
				case <-exited:
				case <-time.After(20 * time.Second):
					_ = cmd.Process.Kill()
					<-exited
					t.Fatalf("run %d: hang: the child neither crashed nor exited\n%s", i, out.String())
				}
				require.NotEqual(t, 0, cmd.ProcessState.ExitCode(), "run %d: Close returned and the program exited without the crash:\n%s", i, out.String())
				require.Contains(t, out.String(), c.crash, "run %d: the child died of something else", i)
			}
		})
	}
}
