package intake_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/weftrt/weft/intake"
	"github.com/weftrt/weft/slots"
)

// Every task polled is counted Received, and ends Started or HandedBack
// (the stress test's books): the extras a source returned beyond what
// was asked are handed back, so they were received too.
func TestExtraTasksBalanceTheBooks(t *testing.T) {
	src := &greedySource{}
	ran := make(chan string, 16)
	w := newWorker(t, intake.Config{
		Source:   src,
		Supplier: slots.NewFixed(1),
		Handler: func(_ context.Context, task intake.Task) error {
			ran <- task.ID()
			return nil
		},
		OnError: func(error) {},
	})
	<-ran
	require.NoError(t, w.Shutdown(context.Background()))
	s := w.Stats()
	require.EqualValues(t, 3, src.nacked.Load()+int64(s.Acked))
	require.Equal(t, s.Received, s.Started+s.HandedBack, "%+v", s)
}
