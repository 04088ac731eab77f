package par_test

import (
	"context"
	"iter"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/weftrt/weft/par"
	"github.com/weftrt/weft/scheduler"
)

// TestNilSeqPanics: every form that takes a sequence refuses a nil one
// with a message naming the form and the parameter, as the loops refuse a
// nil body (TestNilFunctionPanics), and from the caller's goroutine, with
// the On form too. Before, a nil seq was called as it was pulled: a bare
// nil-pointer dereference on a worker, re-raised as a *scheduler.Panic
// that named neither; ForEachSeqErr with a cancelled ctx did not look at
// seq at all.
func TestNilSeqPanics(t *testing.T) {
	p, err := scheduler.New(scheduler.WithWorkers(1))
	require.NoError(t, err)
	defer p.Close()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	forms := []struct {
		name, fn string // the subtest, and the form the panic must name
		outside  bool   // an On form: called from the test's goroutine
		f        func(w *scheduler.Worker)
	}{
		{"ForEachSeq", "ForEachSeq", false, func(w *scheduler.Worker) {
			par.ForEachSeq(w, iter.Seq[int](nil), func(int) {})
		}},
		{"ForEachSeq2", "ForEachSeq2", false, func(w *scheduler.Worker) {
			par.ForEachSeq2(w, iter.Seq2[int, int](nil), func(int, int) {})
		}},
		{"ForEachSeqErr", "ForEachSeqErr", false, func(w *scheduler.Worker) {
			_ = par.ForEachSeqErr(context.Background(), w, iter.Seq[int](nil), func(int) error { return nil })
		}},
		{"ForEachSeqErr/cancelled", "ForEachSeqErr", false, func(w *scheduler.Worker) {
			_ = par.ForEachSeqErr(cancelled, w, iter.Seq[int](nil), func(int) error { return nil })
		}},
		{"ForEachSeqErrOn", "ForEachSeqErrOn", true, func(*scheduler.Worker) {
			_ = par.ForEachSeqErrOn(context.Background(), p, iter.Seq[int](nil), func(int) error { return nil })
		}},
		{"ForEachSeqErrOn/cancelled", "ForEachSeqErrOn", true, func(*scheduler.Worker) {
			_ = par.ForEachSeqErrOn(cancelled, p, iter.Seq[int](nil), func(int) error { return nil })
		}},
	}
	for _, c := range forms {
		t.Run(c.name, func(t *testing.T) {
			want := "weft/par: " + c.fn + " with a nil seq function"
			if c.outside {
				assert.PanicsWithValue(t, want, func() { c.f(nil) })
				return
			}
			require.NoError(t, p.Run(context.Background(), func(w *scheduler.Worker) error {
				assert.PanicsWithValue(t, want, func() { c.f(w) })
				return nil
			}))
		})
	}
}
