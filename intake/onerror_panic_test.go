package intake_test

import (
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// A panic in OnError crashes the program, as a panic in any goroutine of
// the user's would, naming the hook and carrying the value: the worker
// neither swallows it nor lets it unwind through its own bookkeeping.
// The crash happens in a child process (this test binary, run again).
func TestOnErrorPanicCrashes(t *testing.T) {
	if os.Getenv("WEFT_ONERROR_CRASH") == "1" {
		w, err := intake.New(intake.Config{
			Source:     &seqSource{answers: []answer{{err: errPoll}}},
			Supplier:   slots.NewFixed(1),
			MaxPollers: 1,
			Handler:    nop,
			OnError:    func(error) { panic("the hook's own bug") },
		})
		require.NoError(t, err)
		defer w.Close()
		select {} // the crash ends the process
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestOnErrorPanicCrashes$", "-test.count=1")
	cmd.Env = append(os.Environ(), "WEFT_ONERROR_CRASH=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "the child did not crash: %v\n%s", err, out)
	require.Contains(t, string(out), "weft/intake: Config.OnError panicked: the hook's own bug")
	require.Contains(t, string(out), "onerror_panic_test.go", "the hook's stack")
}
