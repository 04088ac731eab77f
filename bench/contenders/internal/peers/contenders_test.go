package peers_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/bench/contenders/internal/peers"
	"github.com/weftrt/weft/bench/internal/cli"
)

// TestEverySuiteRuns runs every suite on tiny sizes with the third-party
// contenders: each must compute the right answers and not hang.
func TestEverySuiteRuns(t *testing.T) {
	peers.Register()
	peers.Register() // a second call is harmless
	var out, errOut bytes.Buffer
	code := cli.Main([]string{
		"-contenders", "sequential,weft,ants,pond,conc",
		"-workers", "1,2", "-reps", "1", "-warmup", "0", "-mintime", "0", "-retries", "0",
		"-fib", "10", "-fib-cutoff", "14", "-cutoff", "8", "-sort", "20000", "-tree", "500", "-tree-grain", "16", "-tree-sum", "8", "-loop-uniform", "20000", "-loop-irregular", "300",
		"-idle", "1ms", "-ticks", "2", "-wakes", "2", "-wake-gap", "100us", "-tasks", "200",
	}, &out, &errOut)
	require.Equal(t, 0, code, errOut.String())
	for _, want := range []string{"ants", "pond", "conc"} {
		assert.Contains(t, out.String(), "\n"+want+" ")
	}
	tasks := out.String()[strings.Index(out.String(), "admission/tasks"):]
	for _, c := range []string{"ants", "pond", "conc"} {
		assert.Contains(t, tasks, "\n"+c+" ", "%s takes jobs", c)
	}
}
