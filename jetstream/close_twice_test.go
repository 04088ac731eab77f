package weftjs_test

import (
	"testing"
	"time"

	weftjs "github.com/weftrt/weft/jetstream"
)

// Close may be called twice (an explicit Close and a deferred one), as
// for a source without partitions.
func TestKeyedSourceCloseTwice(t *testing.T) {
	srv := startServer(t)
	js := connect(t, srv.url())
	for _, parts := range []int{0, 2} {
		src := newSource(t, js, weftjs.Config{Stream: "TWICE", Partitions: parts, AckWait: time.Second, PollWait: 100 * time.Millisecond})
		src.Close()
		src.Close()
		if parts == 0 {
			// The next source (with partitions) needs a stream made for them.
			_ = js.DeleteStream(t.Context(), "TWICE")
		}
	}
}
